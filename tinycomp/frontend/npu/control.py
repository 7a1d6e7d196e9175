"""The DSL's control, ids and sync: ``npu.range`` and ``npu.if_``, where a core is,
which kind of core it is, and flags written by hand.

``for i in npu.range(n)`` records an ``scf.for`` (its body traced once, with ``i`` a
recorded index); every queue's allocation count is carried through the loop, so its
buffers still alternate. A plain Python ``range`` runs at trace time: its body is
recorded once per iteration (an unrolled loop). ``with npu.if_(cond):`` records an
``scf.if``; a queue may not be allocated under it (its turn would depend on the
branch).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tinycomp.dialects.npu import (
    BlockIdxOp,
    BlockNumOp,
    CrossCoreSetOp,
    CrossCoreWaitOp,
    PipeBarrierOp,
    SubBlockIdxOp,
    SubBlockNumOp,
)
from tinycomp.dialects.scf import ForOp, IfOp, YieldOp
from tinycomp.frontend.npu.queues import record_flag
from tinycomp.frontend.npu.scalar import Scalar, as_value
from tinycomp.frontend.npu.trace import current_trace
from tinycomp.ir import Builder, i1
from tinycomp.ir.attributes import IntegerAttr, StringAttr
from tinycomp.ir.types import i64

__all__ = [
    "block_idx", "block_num", "cross_core_set_flag", "cross_core_wait_flag", "if_", "is_aic",
    "is_aiv", "pipe_barrier", "range", "set_flag", "sub_block_idx", "sub_block_num",
    "wait_flag",
]  # fmt: skip


def _position(op_class: type) -> Scalar:
    return Scalar(current_trace().emit(op_class.build()).result)


def block_idx() -> Scalar:
    """This block's index, 0 .. block_num - 1 (``GetBlockIdx``)."""
    return _position(BlockIdxOp)


def block_num() -> Scalar:
    """The blocks of the launch (``GetBlockNum``)."""
    return _position(BlockNumOp)


def sub_block_idx() -> Scalar:
    """Which vector core of its AI core: 0 or 1 in a MIX 1:2 kernel (``GetSubBlockIdx``)."""
    return _position(SubBlockIdxOp)


def sub_block_num() -> Scalar:
    """Vector cores per AI core in this kernel: 2 for MIX 1:2 (``GetTaskRatio``)."""
    return _position(SubBlockNumOp)


def is_aic() -> bool:
    """True while the cube half of the kernel is traced (Ascend C's ``ASCEND_IS_AIC``)."""
    return current_trace().kind == "aic"


def is_aiv() -> bool:
    """True while the vector half is traced (``ASCEND_IS_AIV``)."""
    return current_trace().kind == "aiv"


def set_flag(src: str, dst: str, event: Any) -> None:
    """``SetFlag<HardEvent::SRC_DST>(event)``: on ``src``, after what it has queued."""
    record_flag("npu.set_flag", src, dst, event)


def wait_flag(src: str, dst: str, event: Any) -> None:
    """``WaitFlag<HardEvent::SRC_DST>(event)``: holds ``dst`` until the flag is set."""
    record_flag("npu.wait_flag", src, dst, event)


def pipe_barrier(pipe: str) -> None:
    """``PipeBarrier<PIPE_X>()``; ``"ALL"`` holds the scalar unit until every pipe idles."""
    current_trace().emit(PipeBarrierOp([], [], {"pipe": StringAttr(pipe)}))


def cross_core_set_flag(flag: int, mode: int = 2, pipe: str = "S") -> None:
    """``CrossCoreSetFlag<mode, pipe>(flag)`` (see ``tinycomp.dialects.npu.sync``)."""
    current_trace().emit(CrossCoreSetOp.build(flag, mode, pipe))


def cross_core_wait_flag(flag: int, mode: int = 2, pipe: str = "S") -> None:
    """``CrossCoreWaitFlag(flag)`` on ``pipe``; ``mode`` as the matching set's."""
    op = CrossCoreWaitOp.build(flag, pipe)
    if mode != 2:
        op.attributes["mode"] = IntegerAttr(mode, i64)
    current_trace().emit(op)


def range(start: Any, stop: Any = None, step: Any = 1) -> Iterator[Scalar]:  # noqa: A001
    """A loop recorded as ``scf.for`` (module docstring)."""
    if stop is None:
        start, stop = 0, start
    trace = current_trace()
    queues = list(trace.carried)
    carried = [value for queue in queues for value in queue.carried()]
    queued = [len(queue.queued) for queue in queues]
    loop = ForOp.build(as_value(start), as_value(stop), as_value(step),
                       [as_value(v) for v in carried])  # fmt: skip
    trace.emit(loop)
    body = loop.regions[0].blocks[0]
    outer = trace.builder
    trace.builder = Builder.at_end(body) if carried else Builder.before(body.last_op)
    _distribute(queues, [Scalar(a) for a in body.arguments[1:]])
    yield Scalar(body.arguments[0])
    if [len(queue.queued) for queue in queues] != queued:
        raise trace.error(
            "a tensor enqueued in an npu.range iteration must be dequeued in the same "
            "iteration (the loop body is traced once)"
        )
    if carried:
        ends = [value for queue in queues for value in queue.carried()]
        trace.builder.insert(YieldOp.build([as_value(v) for v in ends]))
    trace.builder = outer
    _distribute(queues, [Scalar(r) for r in loop.results])


def _distribute(queues: list[Any], values: list[Scalar]) -> None:
    position = 0
    for queue in queues:
        width = len(queue.carried())
        queue.set_carried(values[position : position + width])
        position += width


@contextmanager
def if_(condition: Scalar) -> Iterator[None]:
    """Record the body under ``scf.if condition``."""
    trace = current_trace()
    if not isinstance(condition, Scalar) or condition.type != i1:
        raise trace.error("npu.if_ takes a comparison of kernel scalars (block_idx() < n ...)")
    before = [[id(v) for v in queue.carried()] for queue in trace.carried]
    op = IfOp.build(condition.value)
    trace.emit(op)
    outer = trace.builder
    trace.builder = Builder.before(op.regions[0].blocks[0].last_op)
    try:
        yield
    finally:
        trace.builder = outer
    if [[id(v) for v in queue.carried()] for queue in trace.carried] != before:
        raise trace.error(
            "a queue's alloc_tensor under npu.if_ is not supported (its turn "
            "would depend on the branch); allocate before the if"
        )
