"""The shared window ``[offsets] [sizes] [strides]`` and mixed index lists: one
implementation for memref.subview / reinterpret_cast and tensor.extract_slice /
insert_slice, checked against mlir-opt on the edge cases where the two used to differ."""

from __future__ import annotations

import pytest

from tinycomp.dialects.common.mixed_indices import (
    DYNAMIC_INDEX,
    MixedIndex,
    join_mixed,
    split_mixed,
    static_shape,
)
from tinycomp.dialects.common.offsets_sizes_strides import OffsetsSizesStridesOp
from tinycomp.dialects.memref import ReinterpretCastOp, SubViewOp
from tinycomp.dialects.memref import index_list as memref_index_list
from tinycomp.dialects.tensor import ExtractSliceOp, InsertSliceOp
from tinycomp.dialects.tensor import indices as tensor_indices
from tinycomp.ir import Block, RankedTensorType, VerifyError, f32, index, parse, verify

from ..mlir_opt import MlirOptError, requires_mlir_opt, run_mlir_opt

# Ops whose verdicts tinycomp and mlir-opt must share, with the message both give.
WINDOW_ERRORS = {
    "empty slice at the end": (
        "%s = tensor.extract_slice %t[8] [0] [1] : tensor<8xf32> to tensor<0xf32>",
        "offset 0 is out-of-bounds: 8 >= 8",
    ),
    "negative tensor offset": (
        "%s = tensor.extract_slice %t[-1] [2] [1] : tensor<8xf32> to tensor<2xf32>",
        "expected offsets to be non-negative, but got -1",
    ),
    "negative tensor size": (
        "%s = tensor.extract_slice %t[0] [-2] [1] : tensor<8xf32> to tensor<?xf32>",
        "expected sizes to be non-negative, but got -2",
    ),
    "negative memref offset": (
        "%s = memref.subview %m[-1] [2] [1] "
        ": memref<8xf32> to memref<2xf32, strided<[1], offset: -1>>",
        "expected offsets to be non-negative, but got -1",
    ),
    "negative memref size": (
        "%s = memref.subview %m[0] [-2] [1] : memref<8xf32> to memref<?xf32, strided<[1]>>",
        "expected sizes to be non-negative, but got -2",
    ),
    "memref window out of bounds": (
        "%s = memref.subview %m[6] [2] [2] "
        ": memref<8xf32> to memref<2xf32, strided<[2], offset: 6>>",
        "slice along dimension 0 runs out-of-bounds: 8 >= 8",
    ),
    "tensor window out of bounds": (
        "%s = tensor.insert_slice %u into %t[6] [2] [2] : tensor<2xf32> into tensor<8xf32>",
        "slice along dimension 0 runs out-of-bounds: 8 >= 8",
    ),
}

FUNCTION = """func.func @f(%t: tensor<8xf32>, %m: memref<8xf32>, %u: tensor<2xf32>) {
  LINE
  return
}"""


def tinycomp_message(text: str) -> str:
    module = parse(text, verify=False)
    with pytest.raises(VerifyError) as caught:
        verify(module)
    return caught.value.message


@pytest.mark.parametrize("case", sorted(WINDOW_ERRORS))
def test_window_errors(case):
    line, message = WINDOW_ERRORS[case]
    assert message in tinycomp_message(FUNCTION.replace("LINE", line))


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("case", sorted(WINDOW_ERRORS))
def test_mlir_opt_gives_the_same_verdict(case):
    line, message = WINDOW_ERRORS[case]
    with pytest.raises(MlirOptError) as caught:
        run_mlir_opt(FUNCTION.replace("LINE", line), "--verify-each")
    assert message in str(caught.value)


def test_one_base_class_for_views_and_slices():
    for op_class in (SubViewOp, ReinterpretCastOp, ExtractSliceOp, InsertSliceOp):
        assert issubclass(op_class, OffsetsSizesStridesOp)
    t, i = Block([RankedTensorType((8, 16), f32), index]).arguments
    s = Block([RankedTensorType((4, 8), f32)]).arguments[0]
    insert = InsertSliceOp.build(s, t, [i, 0], [4, 8], [1, 2])
    assert insert.offsets == [i, 0] and insert.sizes == [4, 8] and insert.strides == [1, 2]
    assert list(insert.attributes["operandSegmentSizes"].values) == [1, 1, 1, 0, 0]


def test_mixed_lists_round_trip():
    i, j = Block([index, index]).arguments
    entries: list[MixedIndex] = [3, i, 0, j]
    static, dynamic = split_mixed(entries)
    assert list(static.values) == [3, DYNAMIC_INDEX, 0, DYNAMIC_INDEX]
    assert dynamic == [i, j]
    assert join_mixed(static, dynamic) == entries
    assert static_shape(entries) == (3, None, 0, None)


@pytest.mark.parametrize("count", [1, 3])
def test_join_mixed_rejects_a_count_mismatch(count):
    i = Block([index]).arguments[0]
    static, _ = split_mixed([i, 2, i])  # two dynamic entries
    with pytest.raises(ValueError):
        join_mixed(static, [i] * count)


def test_old_import_paths_still_work():
    assert memref_index_list.DYNAMIC_INDEX == tensor_indices.DYNAMIC_INDEX == DYNAMIC_INDEX
    assert memref_index_list.split_mixed is tensor_indices.split_mixed is split_mixed
    assert tensor_indices.Mixed is MixedIndex
