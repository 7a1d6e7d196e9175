"""One core of a launch: who it is, its memory, and the instructions it has issued.

The simulator runs every core's program with the reference interpreter
(``tinycomp.interp``): plain ops (``arith``, ``scf``...) are the scalar unit's work and
run as they always do; npu ops run by the rules of ``rules_*.py``, which do the work on
numpy at once (in program order) and record an ``Instruction`` for the timeline. The
interpreter of a core carries its ``CoreContext`` as ``interpreter.core``.

>>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
>>> core = CoreContext.make(lookup_npu_preset("small"), "aiv", group=1, sub=0,
...                         block_num=2, sub_block_num=1)
>>> core.name, core.block_idx, core.memory.spaces
('AIV 1.0', 1, ('UB',))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tinycomp.interp.interpreter import Interpreter
from tinycomp.interp.memory import Buffer, MemRefValue
from tinycomp.ir.operation import Operation
from tinycomp.targets.npu_sim.core_memory import AIC_SPACES, AIV_SPACES, CoreMemory, OnChipBuffer
from tinycomp.targets.npu_sim.instruction import Access, Instruction
from tinycomp.targets.npu_sim.preset import NpuPreset

__all__ = ["CoreContext", "CoreInterpreter", "element_access", "region_of"]


@dataclass(eq=False)
class CoreContext:
    """One AIC or AIV of a launch."""

    name: str
    kind: str
    """``"aic"`` or ``"aiv"``."""
    group: int
    """The AI core (block) it belongs to."""
    sub: int
    """Which vector core of its AI core (0 for a cube core)."""
    block_idx: int
    block_num: int
    sub_block_idx: int
    sub_block_num: int
    preset: NpuPreset
    memory: CoreMemory
    stream: list[Instruction] = field(default_factory=list)
    """Instructions in program order."""
    scalar_ops: int = 0
    """Scalar ops since the last recorded instruction."""
    gm_names: dict[int, str] = field(default_factory=dict)
    """``id(buffer)`` of each GM array -> its argument's name."""
    cross_core: Any = None
    """The launch's cross-core flags (``cross_core.py``), shared by all cores."""
    pending_sets: dict[tuple, Operation] = field(default_factory=dict)
    """In program order: the in-core flags set and not yet waited on."""

    @classmethod
    def make(
        cls, preset: NpuPreset, kind: str, *, group: int, sub: int, block_num: int,
        sub_block_num: int,
    ) -> CoreContext:  # fmt: skip
        """The core ``kind`` of AI core ``group`` (vector core ``sub``)."""
        name = f"AIC {group}" if kind == "aic" else f"AIV {group}.{sub}"
        spaces = AIC_SPACES if kind == "aic" else AIV_SPACES
        return cls(
            name=name, kind=kind, group=group, sub=sub, block_idx=group, block_num=block_num,
            sub_block_idx=sub if kind == "aiv" else 0, sub_block_num=sub_block_num,
            preset=preset, memory=CoreMemory(preset, name, spaces),
        )  # fmt: skip

    def record(self, op: Operation, kind: str, label: str, **fields: Any) -> Instruction:
        """Append the instruction ``op`` issues (the scalar work before it included)."""
        instruction = Instruction(
            op=op, core=self.name, pipe=fields.pop("pipe", None) or op.execution_pipe(),
            kind=kind, label=label, scalar_ops=self.scalar_ops, **fields,
        )  # fmt: skip
        self.scalar_ops = 0
        self.stream.append(instruction)
        return instruction


def region_of(core: CoreContext, buffer: Buffer) -> tuple[str, ...]:
    """The region an access to ``buffer`` is in: ``(core, space)`` or ``("GM", name)``."""
    if isinstance(buffer, OnChipBuffer):
        return (buffer.core, buffer.space)
    return ("GM", core.gm_names.get(id(buffer), buffer.origin))


def element_access(
    core: CoreContext, memref: MemRefValue, positions: np.ndarray, write: bool, runs: int
) -> Access:
    """The bytes ``positions`` (elements of ``memref``'s buffer, shaped ``[runs, ...]``)
    touch, as ``runs`` equal runs; the byte offset of an on-chip buffer included."""
    size = memref.dtype.itemsize
    base = memref.buffer.byte_offset if isinstance(memref.buffer, OnChipBuffer) else 0
    flat = positions.reshape(runs, -1)
    first = flat[0]
    start = base + int(first.min()) * size
    length = (int(first.max()) - int(first.min()) + 1) * size
    stride = (int(flat[1].min()) - int(first.min())) * size if runs > 1 else length
    if stride < 0:  # runs that go backwards: one hull
        low, high = int(flat.min()), int(flat.max())
        return Access(region_of(core, memref.buffer), base + low * size,
                      (high - low + 1) * size, 1, 0, write)  # fmt: skip
    return Access(region_of(core, memref.buffer), start, length, runs, stride, write)


class CoreInterpreter(Interpreter):
    """The reference interpreter, counting the scalar ops a core runs between its npu
    instructions."""

    def __init__(self, module: Operation, rules: dict, core: CoreContext) -> None:
        super().__init__(module, rules)
        self.core = core

    def run_op(self, op: Operation):  # type: ignore[override]
        if not op.name.startswith("npu."):
            self.core.scalar_ops += 1
        return super().run_op(op)
