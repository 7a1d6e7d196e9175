"""The flags of one launch, in time: which waits may pass, and what each one learns.

The schedule (``schedule.py``) asks this board three things, as its pipes reach flag
instructions:

1. ``ready``: may this wait pass now? An in-core ``wait_flag`` passes once its
   ``set_flag`` (same core, pipes and event id) has *fired*; a cross-core wait once
   enough sets have fired for it: one pending set of its flag for mode 2 (a counting
   semaphore per receiving core), or, for modes 0 and 1 (barriers over the cores a set
   reaches), every core of the scope having set as often as this core has waited plus
   one. A wait that may not pass leaves a token, handed back when a set it may need
   arrives, and the time a set already posted will fire, if there is one;
2. ``take``: the wait passes, and takes its set(s): the setters' clocks, which the
   waiting pipe merges (the happens-before edges of the sanitizer);
3. ``post``: a set goes out with its pipe's clock and the time it fires; an in-core flag
   set again before a wait took it is an ``"event"`` error (the chip holds one set).
   The tokens of the waits it may release are handed back.

>>> board = FlagBoard(scopes={}, sanitize=True)
>>> from tinycomp.ir import Operation
>>> from tinycomp.targets.npu_sim.instruction import Instruction
>>> op = Operation.create("npu.set_flag")
>>> wait = Instruction(op, "AIV 0.0", "V", "wait", "wait", flag=("MTE2", "V", 0))
>>> board.ready("AIV 0.0", wait, 0.0, token="V")
(False, None)
>>> set_ = Instruction(op, "AIV 0.0", "MTE2", "set", "set", flag=("MTE2", "V", 0))
>>> board.post("AIV 0.0", set_, 600.0, {("AIV 0.0", "MTE2"): 1})
['V']
>>> board.ready("AIV 0.0", wait, 100.0, token="V"), board.ready("AIV 0.0", wait, 600.0, "V")
((False, 600.0), (True, None))
>>> board.take("AIV 0.0", wait)
[{('AIV 0.0', 'MTE2'): 1}]
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tinycomp.targets.npu_sim.errors import op_text, sanitizer_error
from tinycomp.targets.npu_sim.instruction import Instruction

__all__ = ["FlagBoard"]

Clock = dict[tuple[str, str], int]


class FlagBoard:
    """The in-core flags and cross-core semaphores of a launch (module docstring)."""

    def __init__(self, scopes: dict[tuple[int, str], list[str]], sanitize: bool) -> None:
        self.scopes = scopes
        """``(mode, core) ->`` the cores a cross-core set of ``core`` in ``mode`` reaches."""
        self.sanitize = sanitize
        self.flags: dict[tuple, tuple[float, Clock, Instruction]] = {}
        self.waiters: dict[tuple, Any] = {}
        self.cross_counts: dict[tuple, list[tuple[float, Clock]]] = defaultdict(list)
        self.cross_sets: dict[tuple, list[tuple[float, Clock]]] = defaultdict(list)
        self.cross_waits: dict[tuple, int] = defaultdict(int)
        self.cross_waiters: dict[tuple, Any] = {}

    def ready(
        self, core: str, instruction: Instruction, now: float, token: Any
    ) -> tuple[bool, float | None]:
        """Step 1: whether the wait passes at ``now``; if not, when a set already posted
        for it fires (``None``: none yet; ``token`` comes back from ``post``)."""
        if instruction.kind == "wait":
            key = (core, *instruction.flag)
            posted = self.flags.get(key)
            if posted is not None and posted[0] <= now:
                return True, None
            self.waiters[key] = token
            return False, None if posted is None else posted[0]
        flag, mode = instruction.flag
        if mode == 2:
            sets, needed = self.cross_counts[(core, flag)], 1
        else:
            scope = self.scopes[(mode, core)]
            needed = (self.cross_waits[(core, flag, mode)] + 1) * len(scope)
            sets = self.cross_sets[(mode, tuple(scope), flag)]
        fired = sorted(fire for fire, _ in sets)
        if len(fired) >= needed and fired[needed - 1] <= now:
            return True, None
        self.cross_waiters[(core, flag)] = token
        return False, fired[needed - 1] if len(fired) >= needed else None

    def take(self, core: str, instruction: Instruction) -> list[Clock]:
        """Step 2: the clocks of the sets a passing wait takes."""
        if instruction.kind == "wait":
            return [self.flags.pop((core, *instruction.flag))[1]]
        flag, mode = instruction.flag
        if mode == 2:
            return [self.cross_counts[(core, flag)].pop(0)[1]]
        self.cross_waits[(core, flag, mode)] += 1
        scope = tuple(self.scopes[(mode, core)])
        return [clock for _, clock in self.cross_sets[(mode, scope, flag)]]

    def post(self, core: str, instruction: Instruction, fire: float, clock: Clock) -> list[Any]:
        """Step 3: a set that fires at ``fire``; the tokens of the waits it may release."""
        if instruction.kind == "set":
            key = (core, *instruction.flag)
            if key in self.flags and self.sanitize:
                earlier = self.flags[key][2]
                src, dst, event = instruction.flag
                raise sanitizer_error(
                    "event", instruction.op, core,
                    f"set_flag {src}->{dst} event {event} is set again before a wait_flag "
                    f"took the set of {op_text(earlier.op)}: each set needs its wait first",
                )  # fmt: skip
            self.flags[key] = (fire, clock, instruction)
            waiter = self.waiters.pop(key, None)
            return [] if waiter is None else [waiter]
        flag, mode = instruction.flag
        targets = self.scopes[(mode, core)]
        if mode == 2:
            for target in targets:
                self.cross_counts[(target, flag)].append((fire, clock))
        else:
            self.cross_sets[(mode, tuple(targets), flag)].append((fire, clock))
        released = (self.cross_waiters.pop((target, flag), None) for target in targets)
        return [waiter for waiter in released if waiter is not None]
