"""Interpreter rules for the npu ops that place and move data: ``npu.alloc``, the ids,
``get_value`` / ``set_value`` and ``npu.copy``.

A copy runs in five steps:

1. check the path exists on this core (MTE2 into UB on a vector core, into L1 / L0A /
   L0B on a cube core; MTE3 out of UB; MTE1 and FixPipe on the cube core);
2. work out the element positions of every burst on both sides (the strides default
   to the burst, padded to 32 bytes on the on-chip side of a padded copy);
3. check them: a burst whose bytes are not a multiple of 32 without ``pad``, an
   on-chip start or stride off a 32-byte boundary (``"misaligned"``), a burst past a
   buffer (``"out-of-bounds"``), on-chip bytes never written (``"uninitialized"``);
4. move the data on numpy, arranging it for ``nd2nz`` / ``nz2nd`` and converting f32 to
   f16 / bf16 on FixPipe;
5. record the instruction: its pipe, the bytes it moves over its path (each burst in
   whole 32-byte blocks), the path's rate and latency, and the bytes it read and wrote
   (from which the schedule finds the GM lines it touches in the L2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.dialects.npu import AllocOp, CopyOp
from tinycomp.interp.memory import MemRefValue
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.targets.npu_sim.core_context import CoreContext, element_access
from tinycomp.targets.npu_sim.core_memory import OnChipBuffer
from tinycomp.targets.npu_sim.errors import sanitizer_error
from tinycomp.targets.npu_sim.nz_layout import from_nz, nz_shape, to_nz

__all__ = ["DATA_RULES", "check_positions", "mark_and_check"]

BLOCK = 32
L0C_COLUMNS = 16


def run_alloc(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.alloc``: a window of the core's space (capacity and alignment checked)."""
    assert isinstance(op, AllocOp)
    memref = op.result.type
    dtype = to_numpy_dtype(memref.element_type)
    return [interp.core.memory.place(op, op.space, op.offset, dtype, memref.shape[0])]


def _position_rule(attribute: str):
    def rule(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
        return [np.int64(getattr(interp.core, attribute))]

    rule.__doc__ = f"``npu.{attribute}``: the core's ``{attribute}``."
    return rule


def check_positions(
    op: Operation, core: CoreContext, memref: MemRefValue, positions: np.ndarray, what: str
) -> None:
    """An ``"out-of-bounds"`` error unless every position is inside ``memref``."""
    size = memref.sizes[0]
    if positions.size and (positions.min() < 0 or positions.max() >= size):
        bad = int(positions.max()) if positions.max() >= size else int(positions.min())
        raise sanitizer_error(
            "out-of-bounds", op, core.name,
            f"{what} reaches element {bad} of a buffer of {size} elements "
            f"({memref.buffer.origin})",
        )  # fmt: skip


def mark_and_check(
    op: Operation, core: CoreContext, memref: MemRefValue, positions: np.ndarray, write: bool,
    what: str,
) -> None:  # fmt: skip
    """Track which on-chip bytes hold data: mark a write, check a read."""
    buffer = memref.buffer
    if not isinstance(buffer, OnChipBuffer):
        return
    size = memref.dtype.itemsize
    written = core.memory.written[buffer.space]
    flat = positions.reshape(-1)
    low, high = int(flat.min()), int(flat.max())
    # one solid run (not repeats of a block with gaps between): a slice, not a gather
    if high - low + 1 == flat.size and bool((np.diff(flat) == 1).all()):
        window = written[buffer.byte_offset + low * size : buffer.byte_offset + (high + 1) * size]
        if write:
            window[:] = True
            return
        if window.all():
            return
        element = low + int(np.argmax(~window)) // size
    else:
        first = buffer.byte_offset + flat.astype(np.int64) * size
        if write:
            for byte in range(size):
                written[first + byte] = True
            return
        missing = ~written[first]
        if not missing.any():
            return
        element = int(flat[int(np.argmax(missing))])
    raise sanitizer_error(
        "uninitialized", op, core.name,
        f"{what} reads element {element} of {buffer.origin}, which nothing wrote "
        "(a copy in, or a vector op, must fill it first)",
    )  # fmt: skip


def _bursts(offset: int, count: int, stride: int, length: int) -> np.ndarray:
    return offset + np.arange(count, dtype=np.int64)[:, None] * stride + np.arange(length)


def run_copy(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.copy``: the module docstring's five steps."""
    assert isinstance(op, CopyOp)
    core: CoreContext = interp.core
    src, dst = operands[0], operands[1]
    src_offset, dst_offset = int(operands[2]), int(operands[3])
    source, target = op.path
    pipe = op.execution_pipe()
    on_cube = pipe in ("MTE1", "FIX") or target in ("L1", "L0A", "L0B")
    if on_cube != (core.kind == "aic"):
        where = "the cube core" if on_cube else "a vector core"
        raise sanitizer_error(
            "wrong-core", op, core.name,
            f"a copy {source}->{target} runs on {where}'s {pipe}, not on {core.name}",
        )  # fmt: skip
    rows, length = op.n_burst, op.burst_len
    esize = src.dtype.itemsize
    per_block = BLOCK // esize
    padded = -(-length // per_block) * per_block
    if op.layout == "nd2nz":
        src_pos = _bursts(src_offset, rows, op.src_stride or length, length)
        count = int(np.prod(nz_shape((rows, length), src.dtype)))
        dst_pos = (dst_offset + np.arange(count)).reshape(1, -1)
    elif op.layout == "nz2nd":
        count = int(np.prod(nz_shape((rows, length), src.dtype, L0C_COLUMNS)))
        src_pos = (src_offset + np.arange(count)).reshape(1, -1)
        dst_pos = _bursts(dst_offset, rows, op.dst_stride or length, length)
    else:
        on_chip_len = padded if op.pad else length
        src_default = on_chip_len if source != "GM" else length
        dst_default = on_chip_len if target != "GM" else length
        src_pos = _bursts(src_offset, rows, op.src_stride or src_default, length)
        dst_pos = _bursts(dst_offset, rows, op.dst_stride or dst_default, length)
        if (length * esize) % BLOCK and not op.pad:
            raise sanitizer_error(
                "misaligned", op, core.name,
                f"a burst of {length} x {src.dtype} is {length * esize} bytes, not a multiple "
                f"of {BLOCK}; use a padded copy (pad = true, Ascend C's DataCopyPad)",
            )  # fmt: skip
    for memref, positions, what, side in ((src, src_pos, "the source", source),
                                          (dst, dst_pos, "the destination", target)):  # fmt: skip
        check_positions(op, core, memref, positions, f"{what} ({side})")
        if isinstance(memref.buffer, OnChipBuffer):
            item = memref.dtype.itemsize
            start = memref.buffer.byte_offset + int(positions[0, 0]) * item
            step = int(positions[1, 0] - positions[0, 0]) * item if len(positions) > 1 else 0
            if start % BLOCK or step % BLOCK:
                raise sanitizer_error(
                    "misaligned", op, core.name,
                    f"{what} in {side} starts at byte {start}"
                    + (f" with bursts {step} bytes apart" if step else "")
                    + f": on-chip addresses must be {BLOCK}-byte aligned",
                )  # fmt: skip
    mark_and_check(op, core, src, src_pos, False, "the copy")
    values = src.buffer.data[src_pos]
    if op.layout == "nd2nz":
        values = to_nz(values).reshape(1, -1)
    elif op.layout == "nz2nd":
        block = values.reshape(nz_shape((rows, length), src.dtype, L0C_COLUMNS))
        values = from_nz(block, (rows, length), L0C_COLUMNS)
    dst.buffer.data[dst_pos] = values.astype(dst.dtype)
    mark_and_check(op, core, dst, dst_pos, True, "the copy")
    if op.pad and target != "GM" and op.layout == "nd" and padded > length:
        tail = _bursts(dst_offset + length, rows, op.dst_stride or padded, padded - length)
        check_positions(op, core, dst, tail, "the padding")
        dst.buffer.data[tail] = 0
        mark_and_check(op, core, dst, tail, True, "the padding")
    _record_copy(op, core, src, dst, src_pos, dst_pos)
    return []


def _record_copy(
    op: CopyOp, core: CoreContext, src: MemRefValue, dst: MemRefValue, src_pos: np.ndarray,
    dst_pos: np.ndarray,
) -> None:  # fmt: skip
    source, target = op.path
    preset = core.preset
    gm = "GM" in (source, target)
    chip, chip_pos = (src, src_pos) if target == "GM" else (dst, dst_pos)
    if op.layout == "nz2nd" or source == "L0C":
        chip, chip_pos = src, src_pos
    block = preset.alignment_bytes
    burst = chip_pos.shape[1] * chip.dtype.itemsize
    moved = chip_pos.shape[0] * -(-burst // block) * block
    latency = preset.dma_latency_cycles if gm else preset.onchip_dma_latency_cycles
    accesses = (
        element_access(core, src, src_pos, False, len(src_pos)),
        element_access(core, dst, dst_pos, True, len(dst_pos)),
    )
    nbytes = int(src_pos.size) * src.dtype.itemsize
    core.record(
        op, "dma", f"copy {source}->{target}", cycles=float(latency), dma_bytes=moved,
        dma_rate=float(preset.path_bytes_per_cycle(source, target)),
        uses_hbm="GM" in (source, target), accesses=accesses,
        detail=f"{nbytes} B" + (f" ({moved} B in 32-byte blocks)" if moved != nbytes else ""),
    )  # fmt: skip


def run_get_value(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.get_value``: the scalar unit reads one element (on pipe S)."""
    core: CoreContext = interp.core
    memref, position = operands[0], int(operands[1])
    positions = np.array([[position]])
    check_positions(op, core, memref, positions, "the read")
    mark_and_check(op, core, memref, positions, False, "the scalar unit")
    core.record(op, "scalar", "get_value", cycles=float(core.preset.scalar_cycles_per_op),
                accesses=(element_access(core, memref, positions, False, 1),))  # fmt: skip
    return [memref.buffer.data[position].copy()]


def run_set_value(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.set_value``: the scalar unit writes one element (on pipe S)."""
    core: CoreContext = interp.core
    memref, position = operands[0], int(operands[1])
    positions = np.array([[position]])
    check_positions(op, core, memref, positions, "the write")
    memref.buffer.data[position] = operands[2]
    mark_and_check(op, core, memref, positions, True, "the scalar unit")
    core.record(op, "scalar", "set_value", cycles=float(core.preset.scalar_cycles_per_op),
                accesses=(element_access(core, memref, positions, True, 1),))  # fmt: skip
    return []


DATA_RULES = {
    "npu.alloc": run_alloc,
    "npu.block_idx": _position_rule("block_idx"),
    "npu.block_num": _position_rule("block_num"),
    "npu.sub_block_idx": _position_rule("sub_block_idx"),
    "npu.sub_block_num": _position_rule("sub_block_num"),
    "npu.get_value": run_get_value,
    "npu.set_value": run_set_value,
    "npu.copy": run_copy,
}
"""Op name -> rule."""
