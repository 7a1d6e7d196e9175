"""npu: ``npu.copy``, a DMA on one of the data paths (MTE2, MTE1, MTE3 or FixPipe).

A copy moves ``n_burst`` bursts of ``burst_len`` elements from ``src`` to ``dst``, as
Ascend C's ``DataCopy`` with ``DataCopyParams`` (``blockCount``, ``blockLen``, strides):
burst ``r`` reads ``src[src_offset + r * src_stride ...]`` and writes
``dst[dst_offset + r * dst_stride ...]``. Strides and offsets count elements; a stride
defaults to the burst (contiguous rows). Which pipe runs it is the data path's:

=============================  ========  ==========================================
path                           pipe      Ascend C
=============================  ========  ==========================================
GM -> L1 / L0A / L0B / UB      MTE2      ``DataCopy`` into a VECIN / A1 / B1 queue
L1 -> L0A / L0B                MTE1      ``LoadData``
UB -> GM                       MTE3      ``DataCopy`` out of a VECOUT queue
L0C -> GM / L1                 FIX       ``Fixpipe`` (may convert f32 to f16 / bf16)
=============================  ========  ==========================================

Attributes: ``n_burst`` (default 1), ``burst_len`` (elements), ``src_stride`` and
``dst_stride`` (elements between burst starts), ``pad`` (``DataCopyPad``: a burst whose
bytes are not a multiple of 32 is padded to one on the on-chip side, with zeros when it
is the destination; without ``pad`` such a burst is an error on the chip and in the
simulator), and ``layout``: ``"nd"`` (a plain copy), ``"nd2nz"`` (the bursts are the
rows of a row-major block that lands in the NZ fractal layout, ``Nd2NzParams``) or
``"nz2nd"`` (an NZ block of L0C leaves as row-major rows)::

    "npu.copy"(%x, %x_ub, %off, %c0) {burst_len = 2048 : i64}
        : (memref<8192xf16>, memref<2048xf16, "ub">, index, index) -> ()

>>> from tinycomp.dialects.npu.spaces import space
>>> from tinycomp.ir import Block, MemRefType, f16, index
>>> x, ub, o = Block([MemRefType((8192,), f16), MemRefType((2048,), f16,
...     memory_space=space("UB")), index]).arguments
>>> copy = CopyOp.build(x, ub, o, o, burst_len=2048)
>>> copy.execution_pipe(), copy.path
('MTE2', ('GM', 'UB'))
"""

from __future__ import annotations

from tinycomp.dialects.npu.base import NpuOp, bool_attr, check_index, int_attr, str_attr
from tinycomp.dialects.npu.spaces import DMA_PATHS, space_of
from tinycomp.ir.attributes import BoolAttr, IntegerAttr, StringAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.types import MemRefType, bf16, f16, f32, i64
from tinycomp.ir.values import Value

__all__ = ["LAYOUTS", "CopyOp"]

LAYOUTS = ("nd", "nd2nz", "nz2nd")
"""How a copy arranges what it moves (module docstring)."""


class CopyOp(NpuOp):
    """``"npu.copy"(%src, %dst, %src_offset, %dst_offset) {burst_len, ...}``."""

    name = "npu.copy"
    num_operands = 4
    num_results = 0
    effects = (reads(0), writes(1))

    @classmethod
    def build(
        cls,
        src: Value,
        dst: Value,
        src_offset: Value,
        dst_offset: Value,
        *,
        burst_len: int,
        n_burst: int = 1,
        src_stride: int | None = None,
        dst_stride: int | None = None,
        pad: bool = False,
        layout: str = "nd",
    ) -> CopyOp:
        """A copy of ``n_burst`` bursts of ``burst_len`` elements (module docstring)."""
        attributes = {"burst_len": IntegerAttr(burst_len, i64)}
        if n_burst != 1:
            attributes["n_burst"] = IntegerAttr(n_burst, i64)
        if src_stride is not None:
            attributes["src_stride"] = IntegerAttr(src_stride, i64)
        if dst_stride is not None:
            attributes["dst_stride"] = IntegerAttr(dst_stride, i64)
        if pad:
            attributes["pad"] = BoolAttr(True)
        if layout != "nd":
            attributes["layout"] = StringAttr(layout)
        return cls([src, dst, src_offset, dst_offset], [], attributes)

    @property
    def path(self) -> tuple[str, str]:
        """(source space, destination space)."""
        return (space_of(self.operands[0].type) or "?", space_of(self.operands[1].type) or "?")

    def execution_pipe(self) -> str:
        return DMA_PATHS.get(self.path, "MTE2")

    @property
    def burst_len(self) -> int:
        return int_attr(self, "burst_len")

    @property
    def n_burst(self) -> int:
        return int_attr(self, "n_burst", 1)

    @property
    def src_stride(self) -> int | None:
        """Elements between the starts of two source bursts (``None``: the default)."""
        return int_attr(self, "src_stride") if "src_stride" in self.attributes else None

    @property
    def dst_stride(self) -> int | None:
        """Elements between the starts of two destination bursts (``None``: the default)."""
        return int_attr(self, "dst_stride") if "dst_stride" in self.attributes else None

    @property
    def pad(self) -> bool:
        return bool_attr(self, "pad")

    @property
    def layout(self) -> str:
        return str_attr(self, "layout", "nd")

    def verify_op(self) -> None:
        src, dst = self.operands[0], self.operands[1]
        for value, what in ((src, "the source"), (dst, "the destination")):
            memref = value.type
            if not isinstance(memref, MemRefType) or len(memref.shape) != 1:
                raise self.error(f"expected {what} to be a 1-D memref, got {memref}")
        check_index(self, self.operands[2], "the source offset")
        check_index(self, self.operands[3], "the destination offset")
        if self.path not in DMA_PATHS:
            paths = ", ".join(f"{a}->{b}" for a, b in DMA_PATHS)
            raise self.error(
                f"no data path {self.path[0]}->{self.path[1]} on an AI core (the paths: {paths})"
            )
        if self.burst_len < 1 or self.n_burst < 1:
            raise self.error(
                f"expected burst_len and n_burst >= 1, got {self.burst_len} and {self.n_burst}"
            )
        if self.layout not in LAYOUTS:
            raise self.error(f"expected a layout among {', '.join(LAYOUTS)}, got {self.layout!r}")
        if self.layout == "nd2nz" and self.path[1] not in ("L1", "L0A", "L0B"):
            raise self.error(f"an nd2nz copy writes L1, L0A or L0B, not {self.path[1]}")
        if self.layout == "nz2nd" and self.path[0] != "L0C":
            raise self.error(f"an nz2nd copy reads L0C, not {self.path[0]}")
        source, target = src.type.element_type, dst.type.element_type
        converts = self.execution_pipe() == "FIX" and source == f32 and target in (f16, bf16)
        if source != target and not converts:
            raise self.error(
                f"expected the same element type on both sides, got {source} and {target} "
                "(only FixPipe converts, from f32 to f16 or bf16)"
            )
