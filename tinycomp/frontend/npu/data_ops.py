"""The DSL's data movement: ``data_copy`` (GM <-> UB / L1), ``data_copy_pad``,
``load_data`` (L1 -> L0A / L0B), the ND-to-NZ copy into L1, ``fixpipe`` (L0C -> GM),
and the cube's ``mmad``. Each records one ``npu.copy`` (or ``npu.mmad``) on the pipe of
its data path.

Counts, strides and offsets are in elements. ``data_copy(dst, src, count)`` copies
``count`` contiguous elements; with ``n_burst`` it copies ``n_burst`` rows of
``count`` elements, the rows ``src_stride`` / ``dst_stride`` elements apart (a tile
of a wider matrix).
"""

from __future__ import annotations

from typing import Any

from tinycomp.dialects.npu import CopyOp, MmadOp
from tinycomp.frontend.npu.scalar import as_value
from tinycomp.frontend.npu.tensors import GlobalTensor, GlobalView, LocalTensor
from tinycomp.frontend.npu.trace import current_trace

__all__ = ["data_copy", "data_copy_nd2nz", "data_copy_pad", "fixpipe", "load_data", "mmad"]

Side = LocalTensor | GlobalView | GlobalTensor


def _where(side: Any, what: str) -> tuple[Any, Any]:
    """The buffer value and element offset of one side of a copy."""
    if isinstance(side, GlobalTensor):
        return side.value, 0
    if isinstance(side, (GlobalView, LocalTensor)):
        return (side.value if isinstance(side, GlobalView) else side.buffer), side.offset
    raise current_trace().error(
        f"expected {what} to be a local tensor or a GM tensor (x or x[offset]), got "
        f"{type(side).__name__}"
    )


def _copy(dst: Side, src: Side, count: int, **attributes: Any) -> None:
    trace = current_trace()
    if not isinstance(count, int) or count < 1:
        raise trace.error(f"expected a positive element count known while tracing, got {count!r}")
    dst_value, dst_offset = _where(dst, "the destination")
    src_value, src_offset = _where(src, "the source")
    op = CopyOp.build(src_value, dst_value, as_value(src_offset), as_value(dst_offset),
                      burst_len=count, **attributes)  # fmt: skip
    try:
        op.verify_op()
    except Exception as error:  # noqa: BLE001 - the verifier's words, at the kernel's line
        raise trace.error(str(error).split(": ", 1)[-1]) from None
    trace.emit(op)


def data_copy(
    dst: Side, src: Side, count: int, *, n_burst: int = 1, src_stride: int | None = None,
    dst_stride: int | None = None,
) -> None:  # fmt: skip
    """Copy ``count`` elements (``n_burst`` rows of them): GM -> UB on MTE2, UB -> GM
    on MTE3, GM -> L1 on MTE2. The bytes of a row must be a multiple of 32."""
    _copy(dst, src, count, n_burst=n_burst, src_stride=src_stride, dst_stride=dst_stride)


def data_copy_pad(
    dst: Side, src: Side, count: int, *, n_burst: int = 1, src_stride: int | None = None,
    dst_stride: int | None = None,
) -> None:  # fmt: skip
    """``data_copy`` for rows of any length: each on-chip row is padded to 32 bytes
    (with zeros when copying in), Ascend C's ``DataCopyPad``."""
    _copy(dst, src, count, n_burst=n_burst, src_stride=src_stride, dst_stride=dst_stride,
          pad=True)  # fmt: skip


def data_copy_nd2nz(dst: LocalTensor, src: Side, rows: int, cols: int, src_stride: int) -> None:
    """Copy a ``rows x cols`` row-major block of GM (rows ``src_stride`` apart) into L1
    in the NZ fractal layout the cube reads (Ascend C's ``Nd2NzParams``)."""
    _copy(dst, src, cols, n_burst=rows, src_stride=src_stride, layout="nd2nz")


def load_data(
    dst: LocalTensor, src: LocalTensor, count: int, *, n_burst: int = 1,
    src_stride: int | None = None, dst_stride: int | None = None,
) -> None:  # fmt: skip
    """Copy ``count`` elements (``n_burst`` runs of them) L1 -> L0A or L0B on MTE1;
    fractals stay NZ, so a run of whole fractals is a block of the matrix."""
    _copy(dst, src, count, n_burst=n_burst, src_stride=src_stride, dst_stride=dst_stride)


def fixpipe(dst: Side, src: LocalTensor, rows: int, cols: int, dst_stride: int) -> None:
    """Move a ``rows x cols`` result from L0C (NZ, f32) to GM as row-major rows
    ``dst_stride`` apart, converting to the destination's type, on FixPipe."""
    _copy(dst, src, cols, n_burst=rows, dst_stride=dst_stride, layout="nz2nd")


def mmad(
    c: LocalTensor, a: LocalTensor, b: LocalTensor, m: int, k: int, n: int, *,
    accumulate: bool = False,
) -> None:  # fmt: skip
    """``c (+)= a @ b`` on the cube: ``a`` (m x k) in L0A, ``b`` (k x n) in L0B, both NZ,
    ``c`` (m x n, f32) in L0C."""
    trace = current_trace()
    offsets = [as_value(t.offset) for t in (c, a, b)]
    op = MmadOp.build(c.buffer, a.buffer, b.buffer, offsets, m=m, k=k, n=n, accumulate=accumulate)
    try:
        op.verify_op()
    except Exception as error:  # noqa: BLE001 - the verifier's words, at the kernel's line
        raise trace.error(str(error).split(": ", 1)[-1]) from None
    trace.emit(op)
