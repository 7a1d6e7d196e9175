"""Interpreter rules for the sync ops: flags between the pipes of a core, pipe barriers,
and cross-core flags.

In-core flags only order the timeline (the functional run is in program order), so
their rules check the event id (0 to the preset's ``event_ids - 1``) and record the
instruction; the scheduler pairs sets with waits. Cross-core flags also order the
functional run: a core that waits on a flag another core sets must let that core run
first (``cross_core.py``).
"""

from __future__ import annotations

from typing import Any

from tinycomp.dialects.npu import CrossCoreSetOp, CrossCoreWaitOp, FlagOp, PipeBarrierOp
from tinycomp.dialects.npu.base import int_attr
from tinycomp.ir.operation import Operation
from tinycomp.targets.npu_sim.core_context import CoreContext
from tinycomp.targets.npu_sim.errors import op_text, sanitizer_error

__all__ = ["SYNC_RULES"]

AIC_PIPES = ("S", "MTE1", "MTE2", "M", "FIX")
AIV_PIPES = ("S", "MTE2", "V", "MTE3")


def pipes_of(kind: str) -> tuple[str, ...]:
    """The pipes a cube (``"aic"``) or vector (``"aiv"``) core has."""
    return AIC_PIPES if kind == "aic" else AIV_PIPES


def _check_pipes(op: Operation, core: CoreContext, pipes: tuple[str, ...]) -> None:
    own = pipes_of(core.kind)
    for pipe in pipes:
        if pipe not in own:
            raise sanitizer_error(
                "wrong-core", op, core.name,
                f"{core.name} has no pipe {pipe} (its pipes: {', '.join(own)})",
            )  # fmt: skip


def run_flag(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.set_flag`` / ``npu.wait_flag``: check the event id, record the instruction."""
    assert isinstance(op, FlagOp)
    core: CoreContext = interp.core
    _check_pipes(op, core, (op.src, op.dst))
    event = int(operands[0])
    if not 0 <= event < core.preset.event_ids:
        raise sanitizer_error(
            "event", op, core.name,
            f"event id {event} is out of range: each pair of pipes has event ids 0-"
            f"{core.preset.event_ids - 1}",
        )  # fmt: skip
    verb = "set_flag" if op.name == "npu.set_flag" else "wait_flag"
    kind = "set" if verb == "set_flag" else "wait"
    key = (op.src, op.dst, event)
    if kind == "wait":
        core.pending_sets.pop(key, None)
    elif key in core.pending_sets:  # in program order: the schedule checks it in time too
        raise sanitizer_error(
            "event", op, core.name,
            f"set_flag {op.src}->{op.dst} event {event} is set again before a wait_flag took "
            f"the set of {op_text(core.pending_sets[key])}: each set needs its wait first",
        )  # fmt: skip
    else:
        core.pending_sets[key] = op
    core.record(op, kind, f"{verb} {op.src}->{op.dst} #{event}", flag=key)
    return []


def run_pipe_barrier(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.pipe_barrier``: record it (ALL holds the scalar unit until every pipe idles)."""
    assert isinstance(op, PipeBarrierOp)
    core: CoreContext = interp.core
    if op.barrier_pipe != "ALL":
        _check_pipes(op, core, (op.barrier_pipe,))
    core.record(op, "barrier", f"pipe_barrier {op.barrier_pipe}", flag=(op.barrier_pipe,))
    return []


def _check_flag(op: Operation, core: CoreContext, flag: int, mode: int) -> None:
    limit = core.preset.cross_core_flags
    if not 0 <= flag < limit:
        raise sanitizer_error(
            "event", op, core.name, f"cross-core flag {flag} is out of range (0-{limit - 1})"
        )
    if mode not in (0, 1, 2):
        raise sanitizer_error("event", op, core.name, f"expected mode 0, 1 or 2, got {mode}")
    if mode == 1 and core.kind != "aiv":
        raise sanitizer_error(
            "event", op, core.name, "mode 1 syncs the two vector cores of an AI core"
        )


def run_cross_core_set(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.cross_core_set``: add to the flag of the cores the mode reaches."""
    assert isinstance(op, CrossCoreSetOp)
    core: CoreContext = interp.core
    _check_pipes(op, core, (op.execution_pipe(),))
    _check_flag(op, core, op.flag, op.mode)
    problem = core.cross_core.set(core.name, op.flag, op.mode)
    if problem is not None:
        raise sanitizer_error("event", op, core.name, problem)
    label = f"cross_core_set #{op.flag} (mode {op.mode})"
    core.record(op, "cross_set", label, flag=(op.flag, op.mode))
    return []


def run_cross_core_wait(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.cross_core_wait``: hold this core until the flag allows it."""
    assert isinstance(op, CrossCoreWaitOp)
    core: CoreContext = interp.core
    mode = int_attr(op, "mode", 2)
    _check_pipes(op, core, (op.execution_pipe(),))
    _check_flag(op, core, op.flag, mode)
    core.cross_core.wait(core.name, op.flag, mode, op_text(op), op.location and op.location.line)
    label = f"cross_core_wait #{op.flag} (mode {mode})"
    core.record(op, "cross_wait", label, flag=(op.flag, mode))
    return []


SYNC_RULES = {
    "npu.set_flag": run_flag,
    "npu.wait_flag": run_flag,
    "npu.pipe_barrier": run_pipe_barrier,
    "npu.cross_core_set": run_cross_core_set,
    "npu.cross_core_wait": run_cross_core_wait,
}
"""Op name -> rule."""
