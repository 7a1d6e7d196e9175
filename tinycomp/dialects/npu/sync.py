"""npu: synchronisation between pipes, and between cores.

**In a core.** Each pipe runs its instructions in order, but the pipes run at the same
time, so an instruction that needs another pipe's result must wait for it. A flag
carries that: ``set_flag`` runs on the ``src`` pipe when everything before it there has
finished; ``wait_flag`` holds the ``dst`` pipe until the flag is set, then clears it.
Event ids 0-7 name independent flags of one (src, dst) pair. The event id is an operand
(Ascend C's ``SetFlag<HardEvent::MTE2_V>(eventId)`` takes it at run time), the pipes
are attributes::

    "npu.set_flag"(%c0) {src = "MTE2", dst = "V"} : (index) -> ()
    "npu.wait_flag"(%c0) {src = "MTE2", dst = "V"} : (index) -> ()
    "npu.pipe_barrier"() {pipe = "ALL"} : () -> ()

``pipe_barrier`` on one pipe orders that pipe's instructions; on ``ALL`` it holds the
scalar unit until every pipe is idle.

**Between cores.** ``cross_core_set`` / ``cross_core_wait`` are counting semaphores on
flags 0-10 (at most 16 pending sets on one): a set adds one to the flag's counter of the
cores it reaches, a wait takes one, holding its pipe until the counter is positive.
``mode`` says which cores a set reaches (Ascend C's ``CrossCoreSetFlag<mode, pipe>``):
0, every core of the same kind in the launch, each waiting until all of them have set
(a barrier); 1, the two vector cores of one AI core, likewise; 2, between a cube core
and its vector cores (a set on the cube reaches each of its vector cores, a set on a
vector core reaches its cube core)::

    "npu.cross_core_set"() {flag = 3 : i64, mode = 2 : i64, pipe = "FIX"} : () -> ()
    "npu.cross_core_wait"() {flag = 3 : i64, pipe = "MTE2"} : () -> ()

>>> from tinycomp.ir import Block, index
>>> (event,) = Block([index]).arguments
>>> flag = FlagOp.build("npu.wait_flag", "MTE2", "V", event)
>>> flag.execution_pipe(), flag.src, flag.dst
('V', 'MTE2', 'V')
"""

from __future__ import annotations

from tinycomp.dialects.npu.base import NpuOp, check_index, int_attr, str_attr
from tinycomp.dialects.npu.spaces import PIPES, SYNC_PIPES
from tinycomp.ir.attributes import IntegerAttr, StringAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import i64
from tinycomp.ir.values import Value

__all__ = [
    "CROSS_CORE_MODES", "CrossCoreSetOp", "CrossCoreWaitOp", "FlagOp", "PipeBarrierOp",
    "SetFlagOp", "WaitFlagOp",
]  # fmt: skip

CROSS_CORE_MODES = (0, 1, 2)
FLAGS = "npu.flags"
CROSS_CORE = "npu.cross_core_flags"


class FlagOp(NpuOp):
    """Base of ``set_flag`` and ``wait_flag``: ``(%event) {src, dst}``."""

    num_operands = 1
    num_results = 0

    @classmethod
    def build(cls, name: str, src: str, dst: str, event: Value) -> FlagOp:
        """``name`` is ``"npu.set_flag"`` or ``"npu.wait_flag"``."""
        op = Operation.create(name, [event], [], {"src": StringAttr(src), "dst": StringAttr(dst)})
        assert isinstance(op, FlagOp)
        return op

    @property
    def src(self) -> str:
        return str_attr(self, "src")

    @property
    def dst(self) -> str:
        return str_attr(self, "dst")

    def verify_op(self) -> None:
        for pipe in (self.src, self.dst):
            if pipe not in PIPES:
                raise self.error(f"expected a pipe among {', '.join(PIPES)}, got {pipe!r}")
        if self.src == self.dst:
            raise self.error(
                f"a flag goes between two pipes, got {self.src} to itself (use pipe_barrier)"
            )
        check_index(self, self.operands[0], "the event id")


class SetFlagOp(FlagOp):
    """``"npu.set_flag"(%event) {src, dst}``: runs on ``src``."""

    name = "npu.set_flag"
    effects = (writes(resource=FLAGS),)

    def execution_pipe(self) -> str:
        return self.src


class WaitFlagOp(FlagOp):
    """``"npu.wait_flag"(%event) {src, dst}``: holds ``dst``."""

    name = "npu.wait_flag"
    effects = (reads(resource=FLAGS), writes(resource=FLAGS))

    def execution_pipe(self) -> str:
        return self.dst


class PipeBarrierOp(NpuOp):
    """``"npu.pipe_barrier"() {pipe}``."""

    name = "npu.pipe_barrier"
    num_operands = 0
    num_results = 0
    is_barrier = True

    @property
    def barrier_pipe(self) -> str:
        return str_attr(self, "pipe")

    def execution_pipe(self) -> str:
        return "S" if self.barrier_pipe == "ALL" else self.barrier_pipe

    def verify_op(self) -> None:
        if self.barrier_pipe not in SYNC_PIPES:
            raise self.error(
                f"expected a pipe among {', '.join(SYNC_PIPES)}, got {self.barrier_pipe!r}"
            )


class _CrossCoreOp(NpuOp):
    num_operands = 0
    num_results = 0

    @property
    def flag(self) -> int:
        return int_attr(self, "flag")

    def execution_pipe(self) -> str:
        return str_attr(self, "pipe", "S")

    def verify_op(self) -> None:
        if self.execution_pipe() not in PIPES:
            raise self.error(
                f"expected a pipe among {', '.join(PIPES)}, got {self.execution_pipe()!r}"
            )


class CrossCoreSetOp(_CrossCoreOp):
    """``"npu.cross_core_set"() {flag, mode, pipe}``."""

    name = "npu.cross_core_set"
    effects = (writes(resource=CROSS_CORE),)

    @classmethod
    def build(cls, flag: int, mode: int, pipe: str = "S") -> CrossCoreSetOp:
        """Add one to flag ``flag`` of the cores ``mode`` reaches, from ``pipe``."""
        attributes = {"flag": IntegerAttr(flag, i64), "mode": IntegerAttr(mode, i64)}
        return cls([], [], {**attributes, "pipe": StringAttr(pipe)})

    @property
    def mode(self) -> int:
        return int_attr(self, "mode")

    def verify_op(self) -> None:
        super().verify_op()
        if self.mode not in CROSS_CORE_MODES:
            raise self.error(f"expected mode 0, 1 or 2, got {self.mode}")


class CrossCoreWaitOp(_CrossCoreOp):
    """``"npu.cross_core_wait"() {flag, pipe}``."""

    name = "npu.cross_core_wait"
    effects = (reads(resource=CROSS_CORE), writes(resource=CROSS_CORE))

    @classmethod
    def build(cls, flag: int, pipe: str = "S") -> CrossCoreWaitOp:
        """Wait on flag ``flag`` on ``pipe``."""
        return cls([], [], {"flag": IntegerAttr(flag, i64), "pipe": StringAttr(pipe)})
