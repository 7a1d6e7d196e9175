"""The DSL's vector instructions, in Ascend C's two forms.

* **count form** (level 2): ``add(dst, a, b, count)`` works on ``count`` contiguous
  elements. The DSL writes the level-0 instructions it takes: repeats of 256 bytes,
  at most 255 to an instruction, and a last repeat with a mask for the tail.
* **repeat form** (level 0): ``add(dst, a, b, mask=64, repeat=4, dst_rep_stride=16)``
  is one instruction exactly as written (strides in 32-byte blocks, see
  ``tinycomp.dialects.npu.vector``).

Reductions: ``reduce_sum(dst, src, work, count)`` leaves the sum of ``count``
elements in ``dst[0]``: one value per repeat into ``work``, then the partial values
again, until one is left (the high-level ``ReduceSum``'s two levels).

>>> # inside a kernel: npu.add(z, x, y, 3000) -> 23 repeats of 128 halves, and a
>>> # 24th repeat of 56 (mask 56)
>>> plan(3000, 128)
[(0, 23, 128), (2944, 1, 56)]
"""

from __future__ import annotations

import builtins
from typing import Any

from tinycomp.dialects.npu import VectorOp
from tinycomp.frontend.npu.scalar import as_value, binary
from tinycomp.frontend.npu.tensors import LocalTensor
from tinycomp.frontend.npu.trace import current_trace
from tinycomp.frontend.simt.signature import element_type_of

__all__ = [
    "abs", "add", "adds", "cast", "div", "duplicate", "exp", "ln", "max", "maxs", "min",
    "mins", "mul", "muls", "plan", "reciprocal", "reduce_max", "reduce_min", "reduce_sum",
    "relu", "sqrt", "sub",
]  # fmt: skip

MAX_REPEAT = 255
STRIDES = ("dst_blk_stride", "dst_rep_stride", "src0_blk_stride", "src0_rep_stride",
           "src1_blk_stride", "src1_rep_stride")  # fmt: skip


def plan(count: int, per_repeat: int) -> list[tuple[int, int, int]]:
    """``(first element, repeats, mask)`` of each instruction for ``count`` elements."""
    steps = []
    full, tail = divmod(count, per_repeat)
    start = 0
    while full:
        repeats = builtins.min(full, MAX_REPEAT)
        steps.append((start, repeats, per_repeat))
        start += repeats * per_repeat
        full -= repeats
    if tail:
        steps.append((start, 1, tail))
    return steps


def _emit(name: str, tensors: list[LocalTensor], scalar: Any, *, repeat: int, mask: int,
          strides: dict[str, int], starts: list[Any], kind: str | None = None) -> None:  # fmt: skip
    trace = current_trace()
    scalar_value = None
    if scalar is not None:
        scalar_value = as_value(scalar, element_type_of(tensors[0].dtype))
    offsets = [as_value(binary("+", t.offset, s)) for t, s in zip(tensors, starts, strict=True)]
    op = VectorOp.build(name, [t.buffer for t in tensors], offsets, scalar_value, repeat=repeat,
                        mask=mask, strides=strides, kind=kind)  # fmt: skip
    try:
        op.verify_op()
    except Exception as error:  # noqa: BLE001 - the verifier's words, at the kernel's line
        raise trace.error(str(error).split(": ", 1)[-1]) from None
    trace.emit(op)


def _vector(name: str, tensors: list[LocalTensor], scalar: Any, count: int | None,
            repeat: int | None, mask: int | None, strides: dict[str, int]) -> None:  # fmt: skip
    trace = current_trace()
    for tensor in tensors:
        if not isinstance(tensor, LocalTensor) or tensor.space != "UB":
            raise trace.error(f"npu.{name[5:]}: expected local tensors in UB, got {tensor!r:.60}")
    widest = builtins.max(t.dtype.itemsize for t in tensors)
    per_repeat = 256 // widest
    if repeat is not None:
        _emit(name, tensors, scalar, repeat=repeat, mask=mask or per_repeat, strides=strides,
              starts=[0] * len(tensors))  # fmt: skip
        return
    if not isinstance(count, int) or count < 1:
        raise trace.error(
            f"npu.{name[5:]}: expected a positive count (or repeat=...), got {count!r}"
        )
    for tensor in tensors:
        if tensor.length < count:
            raise trace.error(
                f"npu.{name[5:]}: {count} elements do not fit a local tensor of {tensor.length}"
            )
    for start, repeats, lanes in plan(count, per_repeat):
        _emit(name, tensors, scalar, repeat=repeats, mask=lanes, strides={},
              starts=[start] * len(tensors))  # fmt: skip


def _strides(options: dict[str, Any]) -> dict[str, int]:
    unknown = set(options) - set(STRIDES)
    if unknown:
        raise current_trace().error(
            f"unknown vector options {sorted(unknown)}; the strides are {', '.join(STRIDES)}"
        )
    return {key: int(value) for key, value in options.items()}


def _binary(short: str):
    def op(dst: LocalTensor, a: LocalTensor, b: LocalTensor, count: int | None = None, *,
           repeat: int | None = None, mask: int | None = None, **strides: int) -> None:  # fmt: skip
        _vector(f"npu.{short}", [dst, a, b], None, count, repeat, mask, _strides(strides))

    op.__doc__ = f"``dst = a {short[1:]} b`` elementwise (``npu.{short}``)."
    op.__name__ = short[1:]
    return op


def _unary(short: str):
    def op(dst: LocalTensor, src: LocalTensor, count: int | None = None, *,
           repeat: int | None = None, mask: int | None = None, **strides: int) -> None:  # fmt: skip
        _vector(f"npu.{short}", [dst, src], None, count, repeat, mask, _strides(strides))

    op.__doc__ = f"``dst = {short[1:]}(src)`` elementwise (``npu.{short}``)."
    op.__name__ = short[1:]
    return op


def _with_scalar(short: str):
    def op(dst: LocalTensor, src: LocalTensor, scalar: Any, count: int | None = None, *,
           repeat: int | None = None, mask: int | None = None, **strides: int) -> None:  # fmt: skip
        _vector(f"npu.{short}", [dst, src], scalar, count, repeat, mask, _strides(strides))

    op.__doc__ = f"``dst = src {short[1:-1]} scalar`` elementwise (``npu.{short}``)."
    op.__name__ = short[1:]
    return op


add, sub, mul, div = (_binary(s) for s in ("vadd", "vsub", "vmul", "vdiv"))
max, min = _binary("vmax"), _binary("vmin")  # noqa: A001 - Ascend C's names
exp, ln, abs, relu = (_unary(s) for s in ("vexp", "vln", "vabs", "vrelu"))  # noqa: A001
sqrt, reciprocal = _unary("vsqrt"), _unary("vrec")
adds, muls, maxs, mins = (_with_scalar(s) for s in ("vadds", "vmuls", "vmaxs", "vmins"))


def duplicate(dst: LocalTensor, scalar: Any, count: int) -> None:
    """``dst[:count] = scalar`` (``npu.vdup``)."""
    _vector("npu.vdup", [dst], scalar, count, None, None, {})


def cast(dst: LocalTensor, src: LocalTensor, count: int) -> None:
    """``dst = src`` converted to ``dst``'s element type (``npu.vconv``)."""
    _vector("npu.vconv", [dst, src], None, count, None, None, {})


def _reduce(kind: str, dst: LocalTensor, src: LocalTensor, work: LocalTensor, count: int) -> None:
    trace = current_trace()
    per_repeat = 256 // src.dtype.itemsize
    level, level_count = src, count
    while True:
        steps = plan(level_count, per_repeat)
        partials = sum(repeats for _, repeats, _ in steps)
        target = dst if partials == 1 else work
        written = 0
        for start, repeats, lanes in steps:
            _emit("npu.vreduce", [target, level], None, repeat=repeats, mask=lanes,
                  strides={}, starts=[written, start], kind=kind)  # fmt: skip
            written += repeats
        if partials == 1:
            return
        if work.length < partials:
            raise trace.error(f"reduce_{kind}: the work tensor needs {partials} elements")
        level, level_count = work, partials


def reduce_sum(dst: LocalTensor, src: LocalTensor, work: LocalTensor, count: int) -> None:
    """``dst[0] = sum(src[:count])``, using ``work`` for the partial sums."""
    _reduce("sum", dst, src, work, count)


def reduce_max(dst: LocalTensor, src: LocalTensor, work: LocalTensor, count: int) -> None:
    """``dst[0] = max(src[:count])``."""
    _reduce("max", dst, src, work, count)


def reduce_min(dst: LocalTensor, src: LocalTensor, work: LocalTensor, count: int) -> None:
    """``dst[0] = min(src[:count])``."""
    _reduce("min", dst, src, work, count)
