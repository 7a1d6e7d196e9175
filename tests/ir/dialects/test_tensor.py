"""The tensor dialect: MLIR's syntax, builders, accessors and verifier messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.dialects import arith, func
from tinycomp.dialects.tensor import (
    CastOp,
    CollapseShapeOp,
    DimOp,
    EmptyOp,
    ExpandShapeOp,
    ExtractOp,
    ExtractSliceOp,
    GenerateOp,
    InsertOp,
    InsertSliceOp,
    PadOp,
)
from tinycomp.dialects.tensor.indices import DYNAMIC_INDEX, is_rank_reduction
from tinycomp.ir import (
    DYNAMIC,
    Builder,
    FunctionType,
    RankedTensorType,
    VerifyError,
    f32,
    i32,
    index,
    ir_equal,
    parse,
    print_ir,
    verify,
)

from ..mlir_opt import requires_mlir_opt, run_mlir_opt

# Lines as mlir-opt-22 prints them, inside FUNCTION; each round-trips byte for byte.
OP_LINES = {
    "empty": "%0 = tensor.empty() : tensor<4x8xf32>",
    "empty dynamic": "%0 = tensor.empty(%i, %j) {tag} : tensor<?x?xf32>",
    "extract_slice": "%extracted_slice = tensor.extract_slice %t[%i, 0] [4, 8] [1, 1] "
    ": tensor<8x16xf32> to tensor<4x8xf32>",
    "extract_slice rank-reducing": "%extracted_slice = tensor.extract_slice %t[2, 0] [1, 16] "
    "[1, 1] : tensor<8x16xf32> to tensor<16xf32>",
    "extract_slice dynamic": "%extracted_slice = tensor.extract_slice %t[0, %i] [%j, 4] [2, %j] "
    "{tag} : tensor<8x16xf32> to tensor<?x4xf32>",
    "insert_slice": "%inserted_slice = tensor.insert_slice %s into %t[%i, 8] [4, 8] [1, 1] "
    ": tensor<4x8xf32> into tensor<8x16xf32>",
    "extract": "%extracted = tensor.extract %t[%i, %j] : tensor<8x16xf32>",
    "extract rank 0": "%extracted = tensor.extract %z[] {tag} : tensor<f32>",
    "insert": "%inserted = tensor.insert %x into %t[%i, %j] : tensor<8x16xf32>",
    "dim": "%dim = tensor.dim %d, %i : tensor<?x16xf32>",
    "dim attrs": "%dim = tensor.dim {tag} %d, %i : tensor<?x16xf32>",
    "cast": "%cast = tensor.cast %d : tensor<?x16xf32> to tensor<8x16xf32>",
    "collapse_shape": "%collapsed = tensor.collapse_shape %t [[0, 1]] "
    ": tensor<8x16xf32> into tensor<128xf32>",
    "collapse_shape to rank 0": "%collapsed = tensor.collapse_shape %u [] "
    ": tensor<1x1xf32> into tensor<f32>",
    "expand_shape": "%expanded = tensor.expand_shape %d [[0, 1], [2]] output_shape [%i, 2, 16] "
    ": tensor<?x16xf32> into tensor<?x2x16xf32>",
    "pad": "%padded = tensor.pad %t low[1, 2] high[1, %i] {\n"
    "    ^bb0(%arg0: index, %arg1: index):\n      tensor.yield %x : f32\n"
    "    } : tensor<8x16xf32> to tensor<10x?xf32>",
    "pad nofold": "%padded = tensor.pad %t nofold low[0, 0] high[2, 2] {\n"
    "    ^bb0(%arg0: index, %arg1: index):\n      tensor.yield %x : f32\n"
    "    } {tag} : tensor<8x16xf32> to tensor<10x18xf32>",
    "generate": "%generated = tensor.generate %i {\n    ^bb0(%arg0: index, %arg1: index):\n"
    "      tensor.yield %x : f32\n    } : tensor<?x3xf32>",
}

FUNCTION = """module {
  func.func @f(%t: tensor<8x16xf32>, %i: index, %j: index, %d: tensor<?x16xf32>, %x: f32, \
%s: tensor<4x8xf32>, %z: tensor<f32>, %u: tensor<1x1xf32>) {
    LINE
    return
  }
}"""


@pytest.mark.parametrize("case", sorted(OP_LINES))
def test_round_trip_byte_for_byte(case):
    text = FUNCTION.replace("LINE", OP_LINES[case])
    module = parse(text)
    assert print_ir(module) == text
    assert ir_equal(module, parse(print_ir(module, generic=True)))


def test_generic_form_matches_mlir():
    module = parse(FUNCTION.replace("LINE", OP_LINES["extract_slice dynamic"]))
    generic = print_ir(module, generic=True)
    assert (
        '"tensor.extract_slice"(%t, %i, %j, %j) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>, '
        "static_offsets = array<i64: 0, -9223372036854775808>, static_sizes = array<i64: "
        "-9223372036854775808, 4>, static_strides = array<i64: 2, -9223372036854775808>}> {tag}"
    ) in generic


def test_slice_accessors():
    module = parse(FUNCTION.replace("LINE", OP_LINES["extract_slice dynamic"]))
    op = next(o for o in module.walk() if isinstance(o, ExtractSliceOp))
    i, j = op.operands[1], op.operands[2]
    assert op.offsets == [0, i] and op.sizes == [j, 4] and op.strides == [2, j]
    assert op.static_sizes == (DYNAMIC, 4)
    assert op.attributes["static_offsets"].values == (0, DYNAMIC_INDEX)


def build_function(result_types=()):
    """A function with a few arguments and a builder at its end."""
    types = [RankedTensorType((8, 16), f32), index, f32, RankedTensorType((DYNAMIC, 16), f32)]
    function = func.FuncOp.build("f", FunctionType(types, list(result_types)))
    return function, Builder.at_end(function.entry_block), function.arguments


def test_builders():
    function, b, (t, i, x, d) = build_function()
    tile = b.insert(ExtractSliceOp.build(t, [i, 0], [4, 8])).result
    row = b.insert(ExtractSliceOp.build(t, [2, 0], [1, 16], result_shape=(16,))).result
    put = b.insert(InsertSliceOp.build(tile, t, [0, 8], [4, 8], [1, 1])).result
    put = b.insert(InsertSliceOp.build(row, put, [i, 0], [1, 16])).result
    element = b.insert(ExtractOp.build(put, [i, i])).result
    b.insert(InsertOp.build(element, t, [i, i]))
    zero = b.insert(arith.ConstantOp.build(0, index)).result
    rows = b.insert(DimOp.build(d, zero)).result
    empty = b.insert(EmptyOp.build((DYNAMIC, 16), f32, [rows]))
    assert empty.mixed_sizes() == [rows, 16]
    b.insert(CastOp.build(d, RankedTensorType((8, 16), f32)))
    flat = b.insert(CollapseShapeOp.build(t, [[0, 1]])).result
    assert flat.type == RankedTensorType((128,), f32)
    back = b.insert(ExpandShapeOp.build(d, [[0, 1], [2]], [rows, 1, 16]))
    assert back.output_shape == [rows, 1, 16]
    assert back.result.type == RankedTensorType((DYNAMIC, 1, 16), f32)
    split = b.insert(ExpandShapeOp.build(flat, [[0, 1, 2]], [2, 1, 64])).result
    assert split.type == RankedTensorType((2, 1, 64), f32)
    padded = b.insert(PadOp.build(t, [1, i], [1, 0], x))
    assert padded.result.type == RankedTensorType((10, DYNAMIC), f32)
    assert padded.low == [1, i] and padded.high == [1, 0]

    def iota(builder, indices):
        return builder.insert(arith.IndexCastOp.build(indices[0], i32)).result

    b.insert(GenerateOp.build(RankedTensorType((DYNAMIC,), i32), iota, [rows]))
    b.insert(func.ReturnOp.build([]))
    verify(function)
    assert ir_equal(function, parse(print_ir(function)).body.first_op)


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_built_ops():
    function, b, (t, i, x, _) = build_function()
    tile = b.insert(ExtractSliceOp.build(t, [i, 0], [1, 8], result_shape=(8,))).result
    b.insert(InsertSliceOp.build(tile, t, [0, i], [1, 8]))
    b.insert(PadOp.build(t, [0, i], [2, 0], x, nofold=True))
    b.insert(func.ReturnOp.build([]))
    text = print_ir(function)
    assert print_ir(parse(run_mlir_opt(text, "--verify-each")).body.first_op) == text


def verify_error(line: str) -> str:
    """The verifier's message for FUNCTION holding ``line``."""
    module = parse(FUNCTION.replace("LINE", line), verify=False)
    with pytest.raises(VerifyError) as caught:
        verify(module)
    return caught.value.message


TENSOR_ERRORS = {
    "empty sizes": (
        "%0 = tensor.empty(%i) : tensor<4x8xf32>",
        "'tensor.empty' at line 3: expected 0 dynamic size operands (one per '?' in "
        "tensor<4x8xf32>), got 1",
    ),
    "slice type": (
        "%0 = tensor.extract_slice %t[0, 0] [4, 8] [1, 1] : tensor<8x16xf32> to tensor<4x9xf32>",
        "expected the result type to be tensor<4x8xf32> or a rank-reduced version (unit "
        "dimensions dropped), got tensor<4x9xf32>",
    ),
    "slice drops a non-unit dimension": (
        "%0 = tensor.extract_slice %t[0, 0] [4, 8] [1, 1] : tensor<8x16xf32> to tensor<8xf32>",
        "expected the result type to be tensor<4x8xf32> or a rank-reduced version",
    ),
    "slice out of bounds": (
        "%0 = tensor.extract_slice %t[6, 0] [4, 8] [1, 1] : tensor<8x16xf32> to tensor<4x8xf32>",
        "slice along dimension 0 runs out-of-bounds: 9 >= 8",
    ),
    "strided slice out of bounds": (
        "%0 = tensor.extract_slice %t[0, 2] [4, 8] [1, 2] : tensor<8x16xf32> to tensor<4x8xf32>",
        "slice along dimension 1 runs out-of-bounds: 16 >= 16",
    ),
    "slice rank": (
        "%0 = tensor.extract_slice %t[0] [4] [1] : tensor<8x16xf32> to tensor<4xf32>",
        "expected 2 offsets (one per dimension), got 1",
    ),
    "insert_slice source": (
        "%0 = tensor.insert_slice %s into %t[0, 0] [8, 4] [1, 1] : tensor<4x8xf32> into "
        "tensor<8x16xf32>",
        "expected the source type to be tensor<8x4xf32> or a rank-reduced version",
    ),
    "extract indices": (
        "%0 = tensor.extract %t[%i] : tensor<8x16xf32>",
        "expected 2 indices (the rank of tensor<8x16xf32>), got 1",
    ),
    "cast": (
        "%0 = tensor.cast %d : tensor<?x16xf32> to tensor<8x8xf32>",
        "expected cast-compatible types, got tensor<?x16xf32> and tensor<8x8xf32>",
    ),
    "collapse groups": (
        "%0 = tensor.collapse_shape %t [[1, 0]] : tensor<8x16xf32> into tensor<128xf32>",
        "reassociation indices must be contiguous",
    ),
    "collapse product": (
        "%0 = tensor.collapse_shape %t [[0, 1]] : tensor<8x16xf32> into tensor<64xf32>",
        "collapsed dim size (64) must equal reassociation group size (128)",
    ),
    "expand output_shape": (
        "%0 = tensor.expand_shape %d [[0, 1], [2]] output_shape [%i, 4, 16] : tensor<?x16xf32> "
        "into tensor<?x2x16xf32>",
        "expected output size 2 at position 1 (from tensor<?x2x16xf32>), got 4",
    ),
    "pad result": (
        "%0 = tensor.pad %t low[1, 1] high[1, 1] {\n^bb0(%a: index, %b: index):\n"
        "  tensor.yield %x : f32\n} : tensor<8x16xf32> to tensor<10x19xf32>",
        "expected result dimension 1 to be 16 + 1 + 1 = 18, got 19",
    ),
    "pad region": (
        "%0 = tensor.pad %t low[1, 1] high[1, 1] {\n^bb0(%a: index):\n"
        "  tensor.yield %x : f32\n} : tensor<8x16xf32> to tensor<10x18xf32>",
        "expected 2 index block arguments (one per dimension), got (index)",
    ),
    "generate yield": (
        "%0 = tensor.generate %i {\n^bb0(%a: index):\n  tensor.yield %a : index\n} : tensor<?xf32>",
        "expected the region to end with 'tensor.yield' of f32, got a yield of index",
    ),
}


@pytest.mark.parametrize("case", sorted(TENSOR_ERRORS))
def test_verifier_messages(case):
    line, message = TENSOR_ERRORS[case]
    assert message in verify_error(line)


def test_rank_reduction():
    assert is_rank_reduction((1, 8, 1), (8,))
    assert is_rank_reduction((1, 1), ())
    assert is_rank_reduction((4, DYNAMIC), (4, DYNAMIC))
    assert not is_rank_reduction((4, 8), (8, 4))
    assert not is_rank_reduction((DYNAMIC, 8), (8,))  # a dynamic size is not known to be 1


@st.composite
def slices(draw):
    """Random in-bounds slices of a 2-D tensor, each entry static or dynamic."""
    shape = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    offsets, sizes, strides = [], [], []
    for extent in shape:
        stride = draw(st.integers(1, 3))
        size = draw(st.integers(1, (extent - 1) // stride + 1))
        offset = draw(st.integers(0, extent - 1 - (size - 1) * stride))
        offsets.append(offset)
        sizes.append(size)
        strides.append(stride)
    dynamic = draw(st.lists(st.booleans(), min_size=6, max_size=6))
    return shape, offsets, sizes, strides, dynamic


@settings(max_examples=30, deadline=None)
@given(slices())
def test_random_slices_round_trip(slice_parts):
    shape, offsets, sizes, strides, dynamic = slice_parts
    source = RankedTensorType(shape, f32)
    function = func.FuncOp.build("f", FunctionType([source, index], []))
    t, n = function.arguments
    b = Builder.at_end(function.entry_block)
    mixed = [n if dynamic[k] else v for k, v in enumerate([*offsets, *sizes, *strides])]
    tile = b.insert(ExtractSliceOp.build(t, mixed[0:2], mixed[2:4], mixed[4:6])).result
    b.insert(InsertSliceOp.build(tile, t, mixed[0:2], mixed[2:4], mixed[4:6]))
    b.insert(func.ReturnOp.build([]))
    verify(function)
    text = print_ir(function)
    again = parse(text).body.first_op
    assert print_ir(again) == text and ir_equal(function, again)
