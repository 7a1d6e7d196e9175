"""The on-chip memory of one core: its spaces as bytes, and the buffers ``npu.alloc``
places in them.

A vector core has one space, UB; a cube core has L1, L0A, L0B, L0C, BT and FB. Each
space is a zeroed byte array of the preset's size, made on first use; a buffer is a
typed numpy view of its bytes, so two buffers that overlap share memory as they do on
the chip. Alongside the bytes, each space keeps which bytes were ever written, so a
read of never-written memory is reported (kind ``"uninitialized"``).

``place`` checks what the chip requires of a buffer: it fits in its space (kind
``"overflow"``, naming the space's size and how far past it the buffer reaches) and it
starts on a 32-byte boundary (kind ``"misaligned"``).

>>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
>>> memory = CoreMemory(lookup_npu_preset("910b2"), "AIV 0.0", ("UB",))
>>> from tinycomp.ir import Operation
>>> buffer = memory.place(Operation.create("npu.alloc"), "UB", 64, np.dtype(np.float16), 128)
>>> buffer.buffer.data.shape, buffer.buffer.byte_offset
((128,), 64)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinycomp.interp.memory import Buffer, MemRefValue
from tinycomp.ir.operation import Operation
from tinycomp.targets.npu_sim.errors import sanitizer_error
from tinycomp.targets.npu_sim.preset import NpuPreset

__all__ = ["AIC_SPACES", "AIV_SPACES", "CoreMemory", "OnChipBuffer"]

AIC_SPACES = ("L1", "L0A", "L0B", "L0C", "BT", "FB")
AIV_SPACES = ("UB",)


@dataclass(eq=False)
class OnChipBuffer(Buffer):
    """A ``Buffer`` that is a window of an on-chip space."""

    space: str = "UB"
    byte_offset: int = 0
    core: str = ""


class CoreMemory:
    """The spaces of one core (module docstring)."""

    def __init__(self, preset: NpuPreset, core: str, spaces: tuple[str, ...]) -> None:
        self.preset = preset
        self.core = core
        self.spaces = spaces
        self.bytes: dict[str, np.ndarray] = {}
        """Space -> its bytes (made on first use)."""
        self.written: dict[str, np.ndarray] = {}
        """Space -> which of its bytes were ever written."""

    def space_bytes(self, space: str) -> np.ndarray:
        """The bytes of ``space``, zeroed on first use."""
        if space not in self.bytes:
            size = self.preset.buffer_bytes(space)
            self.bytes[space] = np.zeros(size, np.uint8)
            self.written[space] = np.zeros(size, bool)
        return self.bytes[space]

    def place(
        self, op: Operation, space: str, offset: int, dtype: np.dtype, length: int
    ) -> MemRefValue:
        """A buffer of ``length`` elements of ``dtype`` at byte ``offset`` of ``space``."""
        if space not in self.spaces:
            kind = "a vector core" if "AIV" in self.core else "a cube core"
            raise sanitizer_error(
                "wrong-core", op, self.core,
                f"{kind} has no {space} (it has {', '.join(self.spaces)})",
            )  # fmt: skip
        size = self.preset.buffer_bytes(space)
        nbytes = length * dtype.itemsize
        if offset + nbytes > size:
            raise sanitizer_error(
                "overflow", op, self.core,
                f"a buffer of {nbytes} bytes at byte {offset} of {space} ends at byte "
                f"{offset + nbytes}, past the {size} bytes ({size // 1024} KiB) {space} has "
                f"on {self.preset.name} ({offset + nbytes - size} bytes too many)",
            )  # fmt: skip
        alignment = self.preset.alignment_bytes
        if offset % alignment:
            raise sanitizer_error(
                "misaligned", op, self.core,
                f"a buffer in {space} must start on a {alignment}-byte boundary, got byte "
                f"{offset} ({offset % alignment} past one)",
            )  # fmt: skip
        raw = self.space_bytes(space)[offset : offset + nbytes]
        data = raw.view(dtype)
        origin = f"{space} of {self.core} at byte {offset}"
        buffer = OnChipBuffer(
            data, np.ones(length, bool), origin, space=space, byte_offset=offset, core=self.core
        )
        return MemRefValue(buffer, 0, (length,), (1,))

    def mark_written(self, space: str, low: int, high: int) -> None:
        """Bytes ``[low, high)`` of ``space`` now hold data."""
        self.written[space][low:high] = True

    def first_unwritten(self, space: str, low: int, high: int) -> int | None:
        """The first byte of ``[low, high)`` never written, or ``None``."""
        missing = ~self.written[space][low:high]
        if not missing.any():
            return None
        return low + int(np.argmax(missing))
