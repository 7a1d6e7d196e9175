"""Named linalg ops: MLIR's syntax, their maps and loop sizes, builders, verifier."""

from __future__ import annotations

import pytest

from tinycomp.affine import AffineMap, dim
from tinycomp.dialects import arith, func
from tinycomp.dialects.linalg import (
    BroadcastOp,
    Conv2DNhwcHwcfOp,
    FillOp,
    MapOp,
    MatmulOp,
    ReduceOp,
    StructuredOp,
    TransposeOp,
    conv_output_size,
)
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.ir import (
    Builder,
    DenseArrayAttr,
    FunctionType,
    MemRefType,
    RankedTensorType,
    VerifyError,
    f16,
    f32,
    i8,
    i32,
    ir_equal,
    parse,
    print_ir,
    verify,
)

# One line per op, as mlir-opt-22 prints it (the body of a function with arguments
# named by FUNCTION below); each must round-trip byte for byte.
OP_LINES = {
    "fill": "%0 = linalg.fill ins(%x : f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
    "fill memref": "linalg.fill ins(%x : f32) outs(%m : memref<4x16xf32>)",
    "matmul": "%0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) "
    "outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
    "matmul attrs": "%0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>, tag} "
    "ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) "
    "-> tensor<4x16xf32>",
    "matmul memref": "linalg.matmul ins(%am, %bm : memref<4x8xf32>, memref<8x16xf32>) "
    "outs(%m : memref<4x16xf32>)",
    "batch_matmul": "%0 = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x8xf32>, "
    "tensor<2x8x16xf32>) outs(%bc : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>",
    "conv": "%0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
    "strides = dense<2> : tensor<2xi64>} ins(%i, %w : tensor<1x9x9x3xf32>, "
    "tensor<3x3x3x8xf32>) outs(%o : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>",
    "conv no attrs": "%0 = linalg.conv_2d_nhwc_hwcf ins(%i, %w : tensor<1x9x9x3xf32>, "
    "tensor<3x3x3x8xf32>) outs(%o7 : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>",
    "transpose": "%transposed = linalg.transpose ins(%a : tensor<4x8xf32>) "
    "outs(%t : tensor<8x4xf32>) permutation = [1, 0] ",
    "transpose attrs": "%transposed = linalg.transpose ins(%a : tensor<4x8xf32>) "
    "outs(%t : tensor<8x4xf32>) permutation = [1, 0]  {tag}",
    "broadcast": "%broadcasted = linalg.broadcast ins(%v : tensor<4xf32>) "
    "outs(%c : tensor<4x16xf32>) dimensions = [1] ",
    "reduce short": "%reduced = linalg.reduce { arith.addf } ins(%c : tensor<4x16xf32>) "
    "outs(%v : tensor<4xf32>) dimensions = [1] ",
    "reduce short attrs": "%reduced = linalg.reduce { arith.maximumf {fastmath = "
    "#arith.fastmath<fast>} } ins(%c : tensor<4x16xf32>) outs(%v : tensor<4xf32>) "
    "dimensions = [1]  {tag}",
    "reduce long": "%reduced = linalg.reduce ins(%c : tensor<4x16xf32>) outs(%v : tensor<4xf32>) "
    "dimensions = [1] \n      (%in: f32, %init: f32) {\n        %0 = arith.mulf %in, %in : f32\n"
    "        %1 = arith.addf %init, %0 : f32\n        linalg.yield %1 : f32\n      }",
    "map short": "%mapped = linalg.map { arith.subf } ins(%c, %c : tensor<4x16xf32>, "
    "tensor<4x16xf32>) outs(%c : tensor<4x16xf32>)",
    "map short integer": "%mapped = linalg.map { arith.addi {overflowFlags = "
    "#arith.overflow<none>} } ins(%n, %n : tensor<8xi32>, tensor<8xi32>) "
    "outs(%n : tensor<8xi32>) {tag}",
    "map long": "%mapped = linalg.map ins(%c : tensor<4x16xf32>) outs(%c : tensor<4x16xf32>)\n"
    "      (%in: f32, %init: f32) {\n        %0 = arith.addf %in, %init : f32\n"
    "        linalg.yield %0 : f32\n      }",
}

FUNCTION = """func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>, \
%x: f32, %m: memref<4x16xf32>, %am: memref<4x8xf32>, %bm: memref<8x16xf32>, \
%ba: tensor<2x4x8xf32>, %bb: tensor<2x8x16xf32>, %bc: tensor<2x4x16xf32>, \
%i: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %o: tensor<1x4x4x8xf32>, \
%o7: tensor<1x7x7x8xf32>, %t: tensor<8x4xf32>, %v: tensor<4xf32>, %n: tensor<8xi32>, \
%w5: tensor<3x3x5x8xf32>) {
    LINE
    return
  }"""


def module_text(line: str) -> str:
    """The module mlir-opt would print around ``line``."""
    body = FUNCTION.replace("LINE", line)
    return "module {\n  " + body + "\n}"


def first_linalg_op(module) -> StructuredOp:
    """The first linalg op of a module."""
    return next(op for op in module.walk() if isinstance(op, StructuredOp))


@pytest.mark.parametrize("case", sorted(OP_LINES))
def test_round_trip_byte_for_byte(case):
    text = module_text(OP_LINES[case])
    module = parse(text)
    assert print_ir(module) == text
    assert ir_equal(module, parse(print_ir(module, generic=True)))


@pytest.mark.parametrize("case", sorted(OP_LINES))
def test_every_op_carries_its_payload(case):
    op = first_linalg_op(parse(module_text(OP_LINES[case])))
    assert op.body.last_op.name == "linalg.yield"
    assert len(op.body.arguments) == len(op.operands)


def test_generic_form_shows_the_implicit_region():
    generic = print_ir(parse(module_text(OP_LINES["matmul"])), generic=True)
    assert '"linalg.matmul"(%a, %b, %c) <{operandSegmentSizes = array<i32: 2, 1>}> ({' in generic
    assert "^bb0(%in: f32, %in_0: f32, %out: f32):" in generic


def test_memoized_maps_from_mlir_opt_are_dropped():
    text = """
func.func @f(%i: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %o: tensor<1x7x7x8xf32>) {
  %0 = "linalg.conv_2d_nhwc_hwcf"(%i, %w, %o) <{operandSegmentSizes = array<i32: 2, 1>}> ({
  ^bb0(%x: f32, %y: f32, %z: f32):
    %1 = "arith.mulf"(%x, %y) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %2 = "arith.addf"(%z, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    "linalg.yield"(%2) : (f32) -> ()
  }) {linalg.memoized_indexing_maps = [affine_map<(d0) -> (d0)>]}
    : (tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>, tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  return
}"""
    op = first_linalg_op(parse(text))
    assert op.attributes == {"operandSegmentSizes": DenseArrayAttr(i32, [2, 1])}
    assert "linalg.conv_2d_nhwc_hwcf ins(%i, %w" in print_ir(op.parent_op())


# -- maps and loop sizes, derived by hand -------------------------------------------------
d0, d1, d2, d3, d4, d5, d6 = (dim(i) for i in range(7))
EXPECTED_MAPS = {
    "fill": ([AffineMap(2, 0, ()), AffineMap(2, 0, (d0, d1))], ["parallel"] * 2, (4, 16)),
    "matmul": (
        [AffineMap(3, 0, (d0, d2)), AffineMap(3, 0, (d2, d1)), AffineMap(3, 0, (d0, d1))],
        ["parallel", "parallel", "reduction"],
        (4, 16, 8),
    ),
    "batch_matmul": (
        [AffineMap(4, 0, (d0, d1, d3)), AffineMap(4, 0, (d0, d3, d2)),
         AffineMap(4, 0, (d0, d1, d2))],
        ["parallel"] * 3 + ["reduction"],
        (2, 4, 16, 8),
    ),
    "conv": (
        [AffineMap(7, 0, (d0, d1 * 2 + d4, d2 * 2 + d5, d6)), AffineMap(7, 0, (d4, d5, d6, d3)),
         AffineMap(7, 0, (d0, d1, d2, d3))],
        ["parallel"] * 4 + ["reduction"] * 3,
        (1, 4, 4, 8, 3, 3, 3),
    ),
    "transpose": (
        [AffineMap(2, 0, (d1, d0)), AffineMap(2, 0, (d0, d1))], ["parallel"] * 2, (8, 4),
    ),
    "broadcast": (
        [AffineMap(2, 0, (d0,)), AffineMap(2, 0, (d0, d1))], ["parallel"] * 2, (4, 16),
    ),
    "reduce short": (
        [AffineMap(2, 0, (d0, d1)), AffineMap(2, 0, (d0,))], ["parallel", "reduction"], (4, 16),
    ),
    "map short": ([AffineMap(2, 0, (d0, d1))] * 3, ["parallel"] * 2, (4, 16)),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(EXPECTED_MAPS))
def test_maps_and_loop_sizes(case):
    maps, iterators, sizes = EXPECTED_MAPS[case]
    op = first_linalg_op(parse(module_text(OP_LINES[case])))
    assert op.indexing_maps() == maps
    assert op.iterator_types() == iterators
    assert op.static_loop_sizes() == sizes
    assert op.num_loops == len(sizes)


def test_transposed_matmul_maps():
    text = """func.func @f(%at: tensor<8x4xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
      affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%at, %b : tensor<8x4xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>)
      -> tensor<4x16xf32>
  return
}"""
    op = first_linalg_op(parse(text))
    assert op.indexing_maps()[0] == AffineMap(3, 0, (d2, d0))
    assert op.static_loop_sizes() == (4, 16, 8)
    assert "linalg.matmul indexing_maps = [#map, #map1, #map2] ins(" in print_ir(parse(text))


def test_permutation_of_rank_three():
    x = RankedTensorType((2, 3, 4), f32)
    function = func.FuncOp.build("t", FunctionType([x, RankedTensorType((4, 2, 3), f32)], []))
    op = TransposeOp.build(*function.arguments, [2, 0, 1])
    assert op.indexing_maps()[0] == AffineMap(3, 0, (d1, d2, d0))
    assert op.static_loop_sizes() == (4, 2, 3)


# -- builders -------------------------------------------------------------------------------
def test_builders_make_valid_ops():
    a, b = RankedTensorType((4, 8), f32), RankedTensorType((8, 16), f32)
    image, kernel = RankedTensorType((1, 10, 10, 3), f16), RankedTensorType((3, 3, 3, 8), f16)
    function = func.FuncOp.build("net", FunctionType([a, b, image, kernel], []))
    x, y, img, ker = function.arguments
    builder = Builder.at_end(function.entry_block)
    zero = builder.insert(arith.ConstantOp.build(0.0, f32)).result
    empty = builder.insert(EmptyOp.build((4, 16), f32)).result
    filled = builder.insert(FillOp.build(zero, empty)).result
    product = builder.insert(MatmulOp.build(x, y, filled)).result
    rows = builder.insert(EmptyOp.build((4,), f32)).result
    sums = builder.insert(
        ReduceOp.build(
            [product],
            [rows],
            [1],
            # accumulator first, as MLIR's short form `{ arith.addf }` stands for
            lambda b, args: [b.insert(arith.AddFOp.build(args[1], args[0])).result],
        )
    ).result
    spread = builder.insert(BroadcastOp.build(sums, filled, [1])).result
    centred = builder.insert(
        MapOp.build(
            [product, spread],
            filled,
            lambda b, args: [b.insert(arith.SubFOp.build(args[0], args[1])).result],
        )
    ).result
    flipped = builder.insert(EmptyOp.build((16, 4), f32)).result
    builder.insert(TransposeOp.build(centred, flipped, [1, 0]))
    size = conv_output_size(10, 3, stride=2, dilation=2)
    out = builder.insert(EmptyOp.build((1, size, size, 8), f32)).result
    conv = builder.insert(Conv2DNhwcHwcfOp.build(img, ker, out, strides=(2, 2), dilations=(2, 2)))
    builder.insert(func.ReturnOp.build([]))
    verify(function)
    assert conv.strides == (2, 2) and conv.dilations == (2, 2) and size == 3
    assert [o.name for o in conv.body] == [
        "arith.extf", "arith.extf", "arith.mulf", "arith.addf", "linalg.yield",
    ]  # fmt: skip
    text = print_ir(function)
    assert "%reduced = linalg.reduce { arith.addf } ins(%2 : tensor<4x16xf32>)" in text
    assert "%mapped = linalg.map { arith.subf } ins(%2, %broadcasted" in text
    assert ir_equal(function, parse(text).body.first_op)


def test_integer_and_unsigned_payloads():
    types = [RankedTensorType((4, 8), i8), RankedTensorType((8, 2), i8), MemRefType((4, 2), i32)]
    a, b, c = func.FuncOp.build("q", FunctionType(types, [])).arguments
    plain = MatmulOp.build(a, b, c)
    unsigned = MatmulOp.build(a, b, c, unsigned=True)
    assert [o.name for o in plain.body] == [
        "arith.extsi", "arith.extsi", "arith.muli", "arith.addi", "linalg.yield",
    ]  # fmt: skip
    assert [o.name for o in unsigned.body][:2] == ["arith.extui", "arith.extui"]
    assert str(unsigned.attributes["cast"]) == "#linalg.type_fn<cast_unsigned>"
    assert plain.is_buffer_semantics and plain.results == ()


def test_conv_output_size():
    assert [conv_output_size(10, 3, s, d) for s, d in ((1, 1), (2, 1), (1, 2), (2, 2))] == [
        8, 4, 6, 3,
    ]  # fmt: skip


# -- verifier -------------------------------------------------------------------------------
def verify_error(line: str) -> str:
    """The verifier's message for a function holding ``line``."""
    module = parse(module_text(line), verify=False)
    with pytest.raises(VerifyError) as caught:
        verify(module)
    return caught.value.message


NAMED_ERRORS = {
    "matmul K": (
        "%0 = linalg.matmul ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) "
        "outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
        "loop k has size 8 from operand #0 dimension 1, but operand #1 dimension 0 is 4",
    ),
    "matmul N": (
        "%0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) "
        "outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>",
        "loop n has size 16 from operand #1 dimension 1, but operand #2 dimension 1 is 8",
    ),
    "matmul inputs": (
        "%0 = linalg.matmul ins(%a : tensor<4x8xf32>) outs(%c : tensor<4x16xf32>) "
        "-> tensor<4x16xf32>",
        "expected 2 inputs and 1 output, got 1 and 1",
    ),
    "matmul cast": (
        "%0 = linalg.matmul {cast = #linalg.type_fn<cast_weird>} ins(%a, %b : tensor<4x8xf32>, "
        "tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
        "expected 'cast' to be #linalg.type_fn<cast_signed> or #linalg.type_fn<cast_unsigned>",
    ),
    "batch size": (
        "%0 = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x8xf32>, tensor<2x8x16xf32>) "
        "outs(%i : tensor<1x9x9x3xf32>) -> tensor<1x9x9x3xf32>",
        "expected indexing map #2 to have 4 results (the rank of operand #2, "
        "tensor<1x9x9x3xf32>), got 3",
    ),
    "conv output too large": (
        "%0 = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>} ins(%i, %w : "
        "tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%o7 : tensor<1x7x7x8xf32>) "
        "-> tensor<1x7x7x8xf32>",
        "expected input height >= (output height - 1) * stride + (filter height - 1) * "
        "dilation + 1 = (7 - 1) * 2 + (3 - 1) * 1 + 1 = 15, got 9",
    ),
    "conv channels": (
        "%0 = linalg.conv_2d_nhwc_hwcf ins(%i, %w5 : tensor<1x9x9x3xf32>, tensor<3x3x5x8xf32>) "
        "outs(%o7 : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>",
        "loop c has size 3 from operand #0 dimension 3, but operand #1 dimension 2 is 5",
    ),
    "conv strides": (
        "%0 = linalg.conv_2d_nhwc_hwcf {strides = dense<0> : tensor<2xi64>} ins(%i, %w : "
        "tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%o7 : tensor<1x7x7x8xf32>) "
        "-> tensor<1x7x7x8xf32>",
        "expected positive strides, got [0, 0]",
    ),
    "fill type": (
        "%0 = linalg.fill ins(%x : f32) outs(%n : tensor<8xi32>) -> tensor<8xi32>",
        "expected the fill value to have the output element type i32, got f32",
    ),
    "transpose permutation": (
        "%transposed = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%t : tensor<8x4xf32>) "
        "permutation = [1, 1]",
        "expected a permutation of 0..1 (the input's rank is 2), got [1, 1]",
    ),
    "transpose shape": (
        "%transposed = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) "
        "permutation = [1, 0]",
        "expected the output shape [8, 4] (the input's permuted), got tensor<4x8xf32>",
    ),
    "broadcast dimensions": (
        "%broadcasted = linalg.broadcast ins(%v : tensor<4xf32>) outs(%c : tensor<4x16xf32>) "
        "dimensions = [2]",
        "expected distinct dimensions in [0, 2) (the output's dimensions), got [2]",
    ),
    "broadcast shape": (
        "%broadcasted = linalg.broadcast ins(%v : tensor<4xf32>) outs(%c : tensor<4x16xf32>) "
        "dimensions = [0]",
        "expected the input shape [16] (the output's without dimensions [0]), got tensor<4xf32>",
    ),
    "broadcast rank": (
        "%broadcasted = linalg.broadcast ins(%v : tensor<4xf32>) outs(%bc : tensor<2x4x16xf32>) "
        "dimensions = [0]",
        "expected the input rank (1) plus the added dimensions (1) to be the output rank (3)",
    ),
    "reduce dimensions": (
        "%reduced = linalg.reduce { arith.addf } ins(%c : tensor<4x16xf32>) "
        "outs(%v : tensor<4xf32>) dimensions = [1, 1]",
        "expected distinct dimensions in [0, 2) (the input's dimensions), got [1, 1]",
    ),
    "reduce init": (
        "%reduced = linalg.reduce { arith.addf } ins(%c : tensor<4x16xf32>) "
        "outs(%v : tensor<4xf32>) dimensions = [0]",
        "expected init #0 to have the input shape without dimensions [0] ([16]), got tensor<4xf32>",
    ),
    "map shapes": (
        "%mapped = linalg.map { arith.addf } ins(%c, %a : tensor<4x16xf32>, tensor<4x8xf32>) "
        "outs(%c : tensor<4x16xf32>)",
        "expected input #1 to have the output's shape, got tensor<4x8xf32> and tensor<4x16xf32>",
    ),
    "reduce payload": (
        "%reduced = linalg.reduce ins(%c : tensor<4x16xf32>) outs(%v : tensor<4xf32>) "
        "dimensions = [1] (%in: f32, %init: f32) { linalg.yield %in, %in : f32, f32 }",
        "expected 'linalg.yield' of (f32) (the output element types), got (f32, f32)",
    ),
}


@pytest.mark.parametrize("case", sorted(NAMED_ERRORS))
def test_verifier_messages(case):
    line, message = NAMED_ERRORS[case]
    assert message in verify_error(line)


def test_an_invalid_op_prints_in_generic_form():
    line, _ = NAMED_ERRORS["matmul K"]
    module = parse(module_text(line), verify=False)
    assert '"linalg.matmul"(%a, %a, %c) <{operandSegmentSizes' in print_ir(module)
