"""Timing: every core's instructions on its pipes, all cores at once, event by event.

The functional run gave each core its instructions in program order. Here they meet
the machine (hardware notes, section 6):

1. the scalar pipe ``S`` walks a core's program: it runs the scalar code before each
   instruction (one cycle an op), then *dispatches* the instruction to its pipe's queue
   (one cycle) or, if it is an ``S`` instruction, runs it;
2. every pipe takes its queue in order; an instruction starts when the pipe is free and
   it has been dispatched; a ``wait_flag`` holds its pipe until the matching
   ``set_flag`` has run on the other pipe (and clears the flag); a cross-core wait
   likewise (the flags' state: ``flag_board.py``); ``pipe_barrier ALL`` holds ``S``
   until every pipe of the core is idle;
3. a vector op lasts its startup plus repeats, an ``mmad`` its fractals plus setup; a
   DMA holds its pipe while it moves its bytes, at the path's rate, or, to or from GM,
   sharing the L2 and the HBM with every other DMA moving at the same time
   (``fluid_hbm.py``; which lines hit the L2: ``l2_cache.py``); its bytes *land* its
   latency later. DMAs on one pipe so overlap their latencies, as a DMA engine keeps
   requests in flight; a ``set_flag`` on the pipe goes out in order but *fires* only
   when every DMA before it has landed, so its waiter sees the data (a barrier waits
   for the landing too);
4. as each instruction starts, its clock is checked against what earlier instructions
   accessed (``hazards.py``): a hazard, a flag set twice, an event id out of range are
   errors that name both ops, their pipes and the missing flag;
5. when nothing can move and some pipe still has work, the program has deadlocked:
   the error lists every pipe's pending wait, so a notebook never hangs.

The result is the ``Timeline`` (one ``Span`` per instruction and per wait) and the
bytes each core moved through HBM.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field
from itertools import count

from tinycomp.targets.npu_sim.core_context import CoreContext
from tinycomp.targets.npu_sim.cross_core import scopes_of
from tinycomp.targets.npu_sim.errors import UNCHANGED, NpuSanitizerError, op_text, sanitizer_error
from tinycomp.targets.npu_sim.flag_board import FlagBoard
from tinycomp.targets.npu_sim.fluid_hbm import FluidHbm
from tinycomp.targets.npu_sim.hazards import HazardLog, hazard_error
from tinycomp.targets.npu_sim.instruction import Instruction
from tinycomp.targets.npu_sim.l2_cache import L2Cache, lines_of
from tinycomp.targets.npu_sim.preset import NpuPreset
from tinycomp.targets.npu_sim.rules_sync import pipes_of
from tinycomp.targets.npu_sim.timeline import Span, Timeline

__all__ = ["Schedule", "schedule"]

Clock = dict[tuple[str, str], int]
LANDED = ("barrier",)
"""Instructions that run only once every DMA before them on their pipe has landed (a
flag does not hold its pipe: it fires when those DMAs have landed)."""


@dataclass
class _Pipe:
    """One pipe of one core while the schedule runs."""

    queue: deque = field(default_factory=deque)
    """``(instruction, dispatch time, scalar clock at dispatch)`` not yet started."""
    busy: bool = False
    free_at: float = 0.0
    clock: Clock = field(default_factory=dict)
    merged: object = None
    waiting_since: float | None = None
    landed_at: float = 0.0
    """When the last DMA this pipe issued has landed (its latency after issuing)."""


@dataclass
class _Core:
    context: CoreContext
    pipes: dict[str, _Pipe]
    position: int = 0
    """The next instruction ``S`` looks at."""
    scalar_paid: bool = False
    """``S`` has run the scalar code before the instruction at ``position``."""


@dataclass
class Schedule:
    """What the timing produced."""

    timeline: Timeline
    hbm_bytes: int
    """Bytes moved to and from the HBM (L2 misses and all writes), over all cores."""
    l2_bytes: int = 0
    """Bytes moved to and from GM through the L2, over all cores."""


class _Scheduler:
    def __init__(self, preset: NpuPreset, cores: list[CoreContext], sanitize: bool) -> None:
        self.preset = preset
        self.sanitize = sanitize
        self.cores = [
            _Core(core, {pipe: _Pipe() for pipe in pipes_of(core.kind)}) for core in cores
        ]
        self.by_name = {core.context.name: core for core in self.cores}
        self.events: list = []
        self.wakeups: set[tuple[int, str, float]] = set()
        self.sequence = count()
        self.spans: list[Span] = []
        self.hazards = HazardLog()
        self.board = FlagBoard(scopes_of(cores), sanitize)
        self.hbm = FluidHbm(preset.hbm_bytes_per_cycle, preset.l2_bytes_per_cycle)
        self.hbm_version = 0
        self.hbm_bytes = 0
        self.l2_bytes = 0
        self.l2 = L2Cache(preset.gm_line_bytes, preset.l2_bytes)
        self.moving: dict[int, tuple[_Core, str, Instruction, float]] = {}
        self.last_landing = 0.0

    # -- the event loop ------------------------------------------------------------------
    def push(self, time: float, kind: str, *payload: object) -> None:
        if kind == "pipe":  # one wake-up of a pipe at a time is enough
            key = (id(payload[0]), payload[1], time)
            if key in self.wakeups:
                return
            self.wakeups.add(key)
        heapq.heappush(self.events, (time, next(self.sequence), kind, payload))

    def run(self) -> Schedule:
        for core in self.cores:
            self.push(0.0, "pipe", core, "S")
        while self.events:
            time, _, kind, payload = heapq.heappop(self.events)
            if kind == "pipe":
                self.wakeups.discard((id(payload[0]), payload[1], time))
                self.try_start(payload[0], payload[1], time)
            elif kind == "finish":
                self.finish(payload[0], payload[1], payload[2], payload[3], time)
            elif kind == "hbm" and payload[0] == self.hbm_version:
                self.hbm_done(time, payload[1])
        self.check_finished()
        spans = sorted(self.spans, key=lambda s: (s.start, s.core, s.pipe))
        timeline = Timeline(self.preset.clock_ghz, tuple(spans), self.last_landing)
        return Schedule(timeline, self.hbm_bytes, self.l2_bytes)

    # -- S: scalar code and dispatch -------------------------------------------------------
    def scalar_span(self, core: _Core, start: float, end: float) -> None:
        last = self.spans[-1] if self.spans else None
        name = core.context.name
        if last and last.core == name and last.pipe == "S" and last.kind == "scalar" \
                and last.name == "scalar" and last.end == start:  # fmt: skip
            self.spans[-1] = Span(name, "S", "scalar", "scalar", last.start, end)
        else:
            self.spans.append(Span(name, "S", "scalar", "scalar", start, end))

    def step_scalar(self, core: _Core, now: float) -> None:
        """Walk the program from ``now``: scalar code and dispatches back to back, up
        to the next instruction of ``S`` itself (which may have to wait)."""
        pipe = core.pipes["S"]
        stream = core.context.stream
        if pipe.busy or core.position >= len(stream):
            return
        if pipe.free_at > now:
            self.push(pipe.free_at, "pipe", core, "S")
            return
        per_op = self.preset.scalar_cycles_per_op
        time = now
        while core.position < len(stream):
            instruction = stream[core.position]
            if not core.scalar_paid and instruction.scalar_ops:
                core.scalar_paid = True
                end = time + instruction.scalar_ops * per_op
                self.scalar_span(core, time, end)
                time = end
            if instruction.pipe == "S":
                if time > now:
                    pipe.free_at = time
                    self.push(time, "pipe", core, "S")
                elif self.start_instruction(core, "S", instruction, now, pipe.clock):
                    core.position += 1
                    core.scalar_paid = False
                return
            end = time + per_op
            self.scalar_span(core, time, end)
            target = core.pipes.get(instruction.pipe)
            if target is None:
                raise sanitizer_error(
                    "wrong-core", instruction.op, core.context.name,
                    f"no pipe {instruction.pipe} on {core.context.name}",
                )  # fmt: skip
            target.queue.append((instruction, end, pipe.clock))
            if len(target.queue) == 1 and not target.busy:
                self.push(end, "pipe", core, instruction.pipe)
            core.position += 1
            core.scalar_paid = False
            time = end
        pipe.free_at = time

    # -- the other pipes -----------------------------------------------------------------------
    def try_start(self, core: _Core, name: str, now: float) -> None:
        if name == "S":
            self.step_scalar(core, now)
            return
        pipe = core.pipes[name]
        if pipe.busy or not pipe.queue:
            return
        instruction, dispatched, clock = pipe.queue[0]
        start = max(now, pipe.free_at, dispatched)
        if instruction.kind in LANDED:
            start = max(start, pipe.landed_at)
        if start > now:
            self.push(start, "pipe", core, name)
            return
        if self.start_instruction(core, name, instruction, now, clock):
            pipe.queue.popleft()

    def inherit(self, pipe: _Pipe, clock: Clock) -> None:
        """Take the scalar unit's clock at dispatch into the pipe's (step 2)."""
        if clock is pipe.merged or clock is pipe.clock:
            return
        merge(pipe.clock, clock)
        pipe.merged = clock

    def start_instruction(
        self, core: _Core, name: str, instruction: Instruction, now: float, clock: Clock
    ) -> bool:
        """Start ``instruction`` at ``now``; ``False`` when it must wait (it stays queued)."""
        pipe = core.pipes[name]
        kind = instruction.kind
        if kind in ("wait", "cross_wait", "barrier") and not self.may_pass(
            core, name, instruction, now
        ):
            if pipe.waiting_since is None:
                pipe.waiting_since = now
            return False
        if name == "S":
            pipe.clock = dict(pipe.clock)  # others hold the old one from their dispatch
        else:
            self.inherit(pipe, clock)
        self.passed(core, name, instruction, now)
        agent = (core.context.name, name)
        pipe.clock[agent] = pipe.clock.get(agent, 0) + 1
        if self.sanitize:
            self.check_hazards(instruction, agent, pipe.clock)
        if kind in ("set", "cross_set"):
            self.raise_flag(core, name, instruction, now)
        pipe.busy = True
        if kind == "dma" and instruction.uses_hbm:
            self.start_moving(core, name, instruction, now, now)
        elif kind == "dma":
            cycles = instruction.dma_bytes / instruction.dma_rate
            self.push(now + cycles, "finish", core, name, instruction, now)
        else:
            self.push(now + instruction.cycles, "finish", core, name, instruction, now)
        return True

    def finish(
        self, core: _Core, name: str, instruction: Instruction, started: float, now: float
    ) -> None:
        pipe = core.pipes[name]
        kind = {"set": "flag", "cross_set": "flag", "cross_wait": "wait", "barrier": "wait"}
        span_kind = kind.get(instruction.kind, instruction.kind)
        detail, landed = instruction.detail, None
        if instruction.kind == "dma":
            landed = now + instruction.cycles
            pipe.landed_at = max(pipe.landed_at, landed)
            self.last_landing = max(self.last_landing, landed)
            detail = f"{detail}; lands at cycle {landed:.0f}"
        if instruction.kind in ("set", "cross_set"):
            pass  # recorded when it fires (raise_flag)
        elif instruction.kind not in ("wait", "cross_wait", "barrier") or now > started:
            self.spans.append(
                Span(core.context.name, name, instruction.label, span_kind, started, now,
                     instruction.line, detail, landed)
            )  # fmt: skip
        pipe.busy = False
        pipe.free_at = now
        self.push(now, "pipe", core, name)
        stream = core.context.stream
        if name != "S" and core.position < len(stream) and stream[core.position].kind == "barrier":
            self.push(now, "pipe", core, "S")  # a barrier on S waits for every pipe

    # -- GM traffic ----------------------------------------------------------------------------
    def start_moving(
        self, core: _Core, name: str, instruction: Instruction, started: float, now: float
    ) -> None:
        key = id(instruction)
        self.moving[key] = (core, name, instruction, started)
        line = self.preset.gm_line_bytes
        missed = 0
        for access in instruction.accesses:
            if access.region[0] == "GM":
                lines = lines_of(access, line)
                missed += self.l2.touch(access.region[1], lines, access.write)
        moved = max(instruction.dma_bytes, 1)
        self.hbm_bytes += missed * line
        self.l2_bytes += instruction.dma_bytes
        fraction = missed * line / moved  # may pass 1: a short burst costs a whole line
        self.hbm.start(key, now, instruction.dma_bytes, instruction.dma_rate, fraction)
        self.replan_hbm()

    def replan_hbm(self) -> None:
        self.hbm_version += 1
        upcoming = self.hbm.next_finish()
        if upcoming is not None:
            self.push(upcoming[0], "hbm", self.hbm_version, upcoming[1])

    def hbm_done(self, now: float, predicted: int) -> None:
        self.hbm.advance(now)
        for key in dict.fromkeys([predicted, *self.hbm.done()]):
            core, name, instruction, started = self.moving.pop(key)
            self.hbm.finish(key)
            self.finish(core, name, instruction, started, now)
        self.replan_hbm()

    # -- flags ---------------------------------------------------------------------------------
    def may_pass(self, core: _Core, name: str, instruction: Instruction, now: float) -> bool:
        if instruction.kind == "barrier":
            if instruction.flag[0] != "ALL":
                return True
            others = [p for n, p in core.pipes.items() if n != "S"]
            if any(p.busy or p.queue for p in others):
                return False  # the pipe's finish wakes S again
            landed = max((p.landed_at for p in others), default=0.0)
            if landed > now:  # idle, but a DMA's bytes are still on their way
                self.push(landed, "pipe", core, name)
                return False
            return True
        ready, fires = self.board.ready(core.context.name, instruction, now, (core, name))
        if fires is not None:  # set already, but it fires when its pipe's DMAs have landed
            self.push(fires, "pipe", core, name)
        return ready

    def passed(self, core: _Core, name: str, instruction: Instruction, now: float) -> None:
        """A wait that may pass takes its flag and the setter's clock; its span shows how
        long the pipe stood."""
        pipe = core.pipes[name]
        since = pipe.waiting_since
        pipe.waiting_since = None
        if instruction.kind not in ("wait", "cross_wait", "barrier"):
            return
        if since is not None and now > since:
            self.spans.append(
                Span(core.context.name, name, instruction.label, "wait", since, now,
                     instruction.line, "blocked")
            )  # fmt: skip
        if instruction.kind == "barrier":
            for other_name, other in core.pipes.items():
                if other_name != name:
                    merge(pipe.clock, other.clock)
            return
        for clock in self.board.take(core.context.name, instruction):
            merge(pipe.clock, clock)

    def raise_flag(self, core: _Core, name: str, instruction: Instruction, now: float) -> None:
        """A set goes out at ``now`` and fires once the pipe's DMAs have landed."""
        pipe = core.pipes[name]
        me = core.context.name
        fire = max(now, pipe.landed_at)
        self.spans.append(
            Span(me, name, instruction.label, "flag", fire, fire, instruction.line,
                 "" if fire == now else f"issued at cycle {now:.0f}")
        )  # fmt: skip
        for waiter, pipe_name in self.board.post(me, instruction, fire, dict(pipe.clock)):
            self.push(fire, "pipe", waiter, pipe_name)

    # -- the sanitizer ------------------------------------------------------------------------
    def check_hazards(self, instruction: Instruction, agent: tuple[str, str], clock: Clock) -> None:
        tick = clock[agent]
        for access in instruction.accesses:
            kept = self.hazards.find(access, agent, clock)
            if kept is not None:
                stream = self.by_name[agent[0]].context.stream
                swapped = kept.agent[0] == agent[0] and stream.index(instruction) < stream.index(
                    kept.owner
                )  # started first, but later in the program: the flag goes the program's way
                raise hazard_error(
                    instruction, agent, kept.owner, kept.agent, access, swapped=swapped
                )
            self.hazards.keep(access, agent, tick, instruction)

    def check_finished(self) -> None:
        stuck = []
        for core in self.cores:
            stream = core.context.stream
            if core.position < len(stream):
                instruction = stream[core.position]
                stuck.append(f"  {core.context.name} pipe S: {describe(instruction)}")
            for name, pipe in core.pipes.items():
                if name != "S" and pipe.queue:
                    stuck.append(f"  {core.context.name} pipe {name}: {describe(pipe.queue[0][0])}")
        if stuck:
            raise NpuSanitizerError(
                "deadlock",
                "deadlock: these pipes wait for a flag that is never set (a wait_flag needs a "
                "set_flag of the same pipes and event id before it, on the other pipe):\n"
                + "\n".join(stuck)
                + f"\n{UNCHANGED}",
                line=first_stuck_line(self.cores),
                core=None,
            )


def describe(instruction: Instruction) -> str:
    """``wait_flag MTE2->V #0 ('npu.wait_flag' at line 12)``."""
    return f"{instruction.label} ({op_text(instruction.op)})"


def first_stuck_line(cores: list[_Core]) -> int | None:
    """The source line of the first stuck wait, for the error's ``line``."""
    for core in cores:
        for name, pipe in core.pipes.items():
            if name != "S" and pipe.queue:
                return pipe.queue[0][0].line
        if core.position < len(core.context.stream):
            return core.context.stream[core.position].line
    return None


def merge(clock: Clock, other: Clock) -> None:
    """``clock`` learns everything ``other`` knows."""
    for agent, tick in other.items():
        if tick > clock.get(agent, 0):
            clock[agent] = tick


def schedule(preset: NpuPreset, cores: list[CoreContext], *, sanitize: bool = True) -> Schedule:
    """Time the recorded instructions of ``cores`` (module docstring)."""
    return _Scheduler(preset, cores, sanitize).run()
