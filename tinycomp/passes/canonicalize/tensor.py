"""Canonicalization of ``tensor.extract_slice``: a slice of everything is the tensor.

``tensor.extract_slice %x[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> to tensor<2x3xf32>``
starts at offset 0 in every dimension, takes the whole extent with stride 1, and keeps
the type: it is ``%x`` itself. The pattern matches by op name and reads the static
``static_offsets``/``static_sizes``/``static_strides`` arrays (MLIR's storage), so it
needs no tensor op classes; a slice with any dynamic offset, size or stride (extra
operands) is left alone, since nothing is known about it.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> m = parse('''
... func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
...   %s = "tensor.extract_slice"(%x) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>,
...       static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 2, 3>,
...       static_strides = array<i64: 1, 1>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
...   return %s : tensor<2x3xf32>
... }''')
>>> _ = apply_patterns_greedily(m, [ExtractSliceOfWholeTensor()])
>>> print(m.body.first_op)
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}
"""

from __future__ import annotations

from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import RankedTensorType
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["ExtractSliceOfWholeTensor", "tensor_patterns"]


def _static(op: Operation, name: str) -> tuple[int, ...] | None:
    attr = op.attributes.get(name)
    return tuple(attr.values) if isinstance(attr, DenseArrayAttr) else None


class ExtractSliceOfWholeTensor(RewritePattern):
    """extract_slice(x)[0, ..][shape(x)][1, ..] -> x"""

    root = "tensor.extract_slice"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if len(op.operands) != 1 or len(op.results) != 1:
            return False  # dynamic offsets, sizes or strides: unknown extent
        source = op.operands[0]
        source_type = source.type
        if not isinstance(source_type, RankedTensorType) or source_type != op.results[0].type:
            return False
        rank = len(source_type.shape)
        offsets = _static(op, "static_offsets")
        sizes = _static(op, "static_sizes")
        strides = _static(op, "static_strides")
        if offsets != (0,) * rank or strides != (1,) * rank or sizes != source_type.shape:
            return False
        rewriter.replace_op(op, [source])
        return True


def tensor_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [ExtractSliceOfWholeTensor()]
