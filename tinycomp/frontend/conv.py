"""``conv2d`` on traced tensors: ``linalg.conv_2d_nhwc_hwcf``, with ``tensor.pad`` first.

The input ``x`` is NHWC (batch, height, width, channels), the filter ``w`` is HWCF
(kernel height, kernel width, input channels, output channels), the output is NHWF.
Output pixel ``(oh, ow)`` of filter ``f`` is the dot product of the window of ``x``
starting at ``(oh * stride_h, ow * stride_w)`` with filter ``f``::

    out[n, oh, ow, f] = sum over kh, kw, c of
                        x_padded[n, oh*sh + kh, ow*sw + kw, c] * w[kh, kw, c, f]

``conv2d(x, w, stride=2, padding=1)`` on ``x: 1x8x8x3``, ``w: 3x3x3x4`` records::

    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg0: index, %arg1: index, %arg2: index, %arg3: index):
      tensor.yield %cst : f32
    } : tensor<1x8x8x3xf32> to tensor<1x10x10x3xf32>
    %0 = tensor.empty() : tensor<1x4x4x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                      strides = dense<2> : tensor<2xi64>}
        ins(%padded, %w : ...) outs(%1 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>

Steps of ``conv2d``:

1. Check the operands: two rank-4 tensors of one element type whose channel counts
   agree (``x.shape[3] == w.shape[2]``).
2. Read ``stride`` and ``padding`` as ``(h, w)`` pairs (an int means the same for both):
   strides at least 1, paddings at least 0.
3. Padding adds ``padding`` zeros on *both* sides of each spatial axis, so the padded
   input is ``H + 2 ph`` high; the filter must fit inside it.
4. Each output axis has ``(padded - kernel) // stride + 1`` positions: the last window
   that fits (rows left over at the bottom are never read, as in PyTorch).
5. Emit ``tensor.pad`` (only when some padding is non-zero), the zero-filled output
   (``linalg.fill`` of a ``tensor.empty``) and the convolution, which *accumulates*
   into that output.

tinycomp simplifies: dilations are always 1 and padding is symmetric per axis
(MLIR's op and ``tensor.pad`` allow both, and the tracing would only need other numbers).

>>> conv_output_shape((1, 8, 8, 3), (3, 3, 3, 4), stride=(2, 2), padding=(1, 1))
(1, 4, 4, 4)
"""

from __future__ import annotations

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.linalg.named import Conv2DNhwcHwcfOp, FillOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.dialects.tensor.pad import PadOp
from tinycomp.frontend.tensor import Tensor, trace_error
from tinycomp.ir.type_helpers import is_float

Pair = tuple[int, int]
"""A ``(height, width)`` pair of strides or paddings."""


def as_pair(value: int | tuple[int, int], what: str, smallest: int) -> Pair:
    """``value`` as a ``(h, w)`` pair of ints ``>= smallest``; ``TraceError`` otherwise.

    >>> as_pair(2, "stride", 1), as_pair((1, 0), "padding", 0)
    ((2, 2), (1, 0))
    """
    if isinstance(value, int):
        pair = (value, value)
    elif isinstance(value, (tuple, list)):
        pair = tuple(value)
    else:
        pair = ()  # not an int nor a pair: reported below
    valid = len(pair) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in pair)
    if not valid or min(pair) < smallest:
        raise trace_error(
            "conv2d",
            f"expected {what} to be an int >= {smallest} or a pair (h, w) of them, got {value!r}",
        )
    return pair


def conv_output_shape(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: Pair, padding: Pair
) -> tuple[int, int, int, int]:
    """The NHWF shape of the convolution (steps 3-4); ``TraceError`` when the filter
    does not fit in the padded input.

    >>> conv_output_shape((2, 5, 7, 3), (3, 3, 3, 8), stride=(1, 2), padding=(0, 0))
    (2, 3, 3, 8)
    """
    batch, height, width, _ = x_shape
    kernel_h, kernel_w, _, filters = w_shape
    padded_h, padded_w = height + 2 * padding[0], width + 2 * padding[1]
    if kernel_h > padded_h or kernel_w > padded_w:
        raise trace_error(
            "conv2d",
            f"expected a filter no larger than the padded input, got a {kernel_h}x{kernel_w} "
            f"filter for a {padded_h}x{padded_w} padded input "
            f"(x {tuple(x_shape)}, w {tuple(w_shape)}, padding {padding})",
        )
    out_h = (padded_h - kernel_h) // stride[0] + 1
    out_w = (padded_w - kernel_w) // stride[1] + 1
    return batch, out_h, out_w, filters


def _check_operands(x: object, w: object) -> None:
    """Step 1: rank-4 tensors of one element type with matching channels."""
    for operand in (x, w):
        if not isinstance(operand, Tensor):
            raise trace_error("conv2d", f"expected Tensor operands, got {type(operand).__name__}")
    if x.ndim != 4 or w.ndim != 4:
        raise trace_error(
            "conv2d",
            f"expected x of rank 4 (NHWC) and w of rank 4 (HWCF), "
            f"got shapes {x.shape} and {w.shape}",
        )
    if x.dtype != w.dtype:
        raise trace_error(
            "conv2d", f"expected operands of one element type, got {x.dtype} and {w.dtype}"
        )
    if x.shape[3] != w.shape[2]:
        raise trace_error(
            "conv2d",
            f"expected the input channels of x (NHWC, {x.shape[3]}) to equal those of w "
            f"(HWCF, {w.shape[2]}), got shapes {x.shape} and {w.shape}",
        )


def conv2d(x: Tensor, w: Tensor, stride: int | Pair = 1, padding: int | Pair = 0) -> Tensor:
    """2-D convolution of ``x`` (NHWC) with ``w`` (HWCF): see the steps above.

    >>> import numpy as np
    >>> from tinycomp.frontend import TensorSpec, trace
    >>> from tinycomp.interp import interpret
    >>> m = trace(lambda x, w: conv2d(x, w, padding=1), TensorSpec((1, 4, 4, 1)),
    ...           TensorSpec((3, 3, 1, 1)))
    >>> print(m.body.first_op.function_type)
    (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
    >>> ones = np.ones((1, 4, 4, 1), np.float32)
    >>> interpret(m, ones, np.ones((3, 3, 1, 1), np.float32))[0, :, :, 0]  # 3x3 box sums
    array([[4., 6., 6., 4.],
           [6., 9., 9., 6.],
           [6., 9., 9., 6.],
           [4., 6., 6., 4.]], dtype=float32)
    """
    _check_operands(x, w)
    strides = as_pair(stride, "stride", 1)
    paddings = as_pair(padding, "padding", 0)
    out_shape = conv_output_shape(x.shape, w.shape, strides, paddings)
    context = x.context
    zero_value = 0.0 if is_float(x.dtype) else 0
    zero = context.insert(ConstantOp.build(zero_value, x.dtype)).result
    source = x.value
    if paddings != (0, 0):
        pad_sizes = [0, paddings[0], paddings[1], 0]
        source = context.insert(PadOp.build(source, pad_sizes, pad_sizes, zero)).result
    empty = context.insert(EmptyOp.build(out_shape, x.dtype)).result
    init = context.insert(FillOp.build(zero, empty)).result
    conv = context.insert(Conv2DNhwcHwcfOp.build(source, w.value, init, strides=strides))
    return context.wrap(conv.result, "conv")


__all__ = ["Pair", "as_pair", "conv2d", "conv_output_shape"]
