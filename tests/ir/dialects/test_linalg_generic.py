"""linalg.generic, linalg.yield and linalg.index: text, accessors, builders, verifier."""

from __future__ import annotations

import pytest

from tinycomp.affine import AffineMap, dim
from tinycomp.dialects import arith, func
from tinycomp.dialects.linalg import GenericOp, IndexOp, StructuredOp, YieldOp
from tinycomp.ir import (
    Builder,
    FunctionType,
    MemRefType,
    OpaqueAttr,
    ParseError,
    RankedTensorType,
    VerifyError,
    f32,
    index,
    ir_equal,
    parse,
    print_ir,
    verify,
)

MATMUL = """
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>)
    -> tensor<4x16xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
"""

# What mlir-opt-22 prints for a generic with every optional part (checked by hand).
MLIR_OPT_TEXT = """\
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
module {
  func.func @f(%arg0: tensor<4x8xf32>, %arg1: tensor<4xf32>, %arg2: memref<4xf32>) -> tensor<4xf32> {
    %0 = linalg.generic {doc = "sum rows", indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"], library_call = "foo"} ins(%arg0 : tensor<4x8xf32>) outs(%arg1 : tensor<4xf32>) attrs =  {hello = 1 : i32} {
    ^bb0(%in: f32, %out: f32):
      %1 = linalg.index 1 : index
      %2 = arith.addf %in, %out : f32
      linalg.yield %2 : f32
    } -> tensor<4xf32>
    linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg2 : memref<4xf32>) outs(%arg2 : memref<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return %0 : tensor<4xf32>
  }
}"""  # noqa: E501 (mlir-opt output)


def first_linalg_op(module) -> StructuredOp:
    """The first linalg op of a module."""
    return next(op for op in module.walk() if isinstance(op, StructuredOp))


def test_round_trip_is_stable_and_equal():
    module = parse(MATMUL)
    printed = print_ir(module)
    again = parse(printed)
    assert print_ir(again) == printed
    assert ir_equal(module, again)
    assert ir_equal(module, parse(print_ir(module, generic=True)))


def test_prints_what_mlir_opt_prints():
    assert print_ir(parse(MLIR_OPT_TEXT)) == MLIR_OPT_TEXT


def test_payload_arguments_are_named_in_and_out():
    """Names a printer made up become MLIR's ``%in``/``%out``; names a user chose stay."""
    made_up = MATMUL.replace("%x", "%arg5").replace("%y", "%arg6").replace("%acc", "%7")
    text = print_ir(parse(made_up))
    assert "^bb0(%in: f32, %in_0: f32, %out: f32):" in text
    assert "%p = arith.mulf %in, %in_0 : f32" in text
    assert "^bb0(%x: f32, %y: f32, %acc: f32):" in print_ir(parse(MATMUL))


def test_iterator_types_are_linalg_attributes_in_generic_form():
    op = first_linalg_op(parse(MATMUL))
    assert op.attributes["iterator_types"][2] == OpaqueAttr("#linalg.iterator_type<reduction>")
    generic = print_ir(parse(MATMUL), generic=True)
    assert "iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, " \
        "#linalg.iterator_type<reduction>]" in generic  # fmt: skip
    assert '"parallel"' not in generic
    assert "operandSegmentSizes = array<i32: 2, 1>" in generic


def test_accessors_of_a_matmul():
    op = first_linalg_op(parse(MATMUL))
    m, n, k = dim(0), dim(1), dim(2)
    assert op.indexing_maps() == [
        AffineMap(3, 0, (m, k)),
        AffineMap(3, 0, (k, n)),
        AffineMap(3, 0, (m, n)),
    ]
    assert op.iterator_types() == ["parallel", "parallel", "reduction"]
    assert (op.num_loops, op.parallel_dims(), op.reduction_dims()) == (3, [0, 1], [2])
    assert op.static_loop_sizes() == (4, 16, 8)
    assert op.loop_ranges() == [(0, 4), (0, 16), (0, 8)]
    assert op.loop_dim_sources() == [(0, 0), (1, 1), (0, 1)]
    assert [v.type for v in op.inputs] == [
        RankedTensorType((4, 8), f32),
        RankedTensorType((8, 16), f32),
    ]
    assert (op.num_inputs, op.num_outputs) == (2, 1)
    assert op.is_tensor_semantics and not op.is_buffer_semantics
    assert [a.type for a in op.body.arguments] == [f32, f32, f32]
    assert [op.payload_reads(i) for i in range(3)] == [True, True, True]
    assert op.result_for_output(0) is op.result


def test_footprint_of_a_tile_through_the_maps():
    op = first_linalg_op(parse(MATMUL))
    rhs = op.indexing_maps()[1]
    assert rhs.tile_footprint(offsets=[0, 8, 0], sizes=[4, 8, 8]) == ((0, 8), (8, 8))
    assert rhs.footprint(op.loop_ranges()) == ((0, 8), (0, 16))


def test_dynamic_loop_sizes():
    module = parse("""
    #id = affine_map<(i, j) -> (i, j)>
    #col = affine_map<(i, j) -> (j)>
    func.func @f(%x: tensor<?x?xf32>, %b: tensor<8xf32>, %o: tensor<?x?xf32>) -> tensor<?x?xf32> {
      %r = linalg.generic {indexing_maps = [#id, #col, #id],
                           iterator_types = ["parallel", "parallel"]}
          ins(%x, %b : tensor<?x?xf32>, tensor<8xf32>) outs(%o : tensor<?x?xf32>) {
      ^bb0(%v: f32, %w: f32, %u: f32):
        %s = arith.addf %v, %w : f32
        linalg.yield %s : f32
      } -> tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }""")
    op = first_linalg_op(module)
    assert op.static_loop_sizes() == (None, 8)  # the bias gives the second size
    assert op.loop_sizes_from_shapes([(5, 8), (8,), (5, 8)]) == (5, 8)
    assert op.payload_reads(2) is False
    with pytest.raises(VerifyError, match="expected a static size for loop d0"):
        op.loop_ranges()


def test_build_a_generic_on_buffers():
    buffer = MemRefType((4, 8), f32)
    function = func.FuncOp.build("scale", FunctionType([buffer, f32], []))
    x, alpha = function.arguments
    builder = Builder.at_end(function.entry_block)
    scalar_map = AffineMap(2, 0, ())
    op = builder.insert(
        GenericOp.build(
            [alpha],
            [x],
            [scalar_map, AffineMap.identity(2)],
            ["parallel", "parallel"],
            lambda b, args: [b.insert(arith.MulFOp.build(args[0], args[1])).result],
            doc="x *= alpha",
        )
    )
    builder.insert(func.ReturnOp.build([]))
    verify(function)
    assert op.is_buffer_semantics and op.results == ()
    assert op.static_loop_sizes() == (4, 8)
    assert print_ir(function).splitlines()[1] == (
        '  linalg.generic {doc = "x *= alpha", indexing_maps = [affine_map<(d0, d1) -> ()>, '
        'affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} '
        "ins(%arg1 : f32) outs(%arg0 : memref<4x8xf32>) {"
    )


def test_build_with_an_empty_body_to_fill_later():
    tensor = RankedTensorType((3,), f32)
    function = func.FuncOp.build("copy", FunctionType([tensor, tensor], [tensor]))
    x, y = function.arguments
    builder = Builder.at_end(function.entry_block)
    op = builder.insert(GenericOp.build([x], [y], [AffineMap.identity(1)] * 2, ["parallel"]))
    Builder.at_end(op.body).insert(YieldOp.build([op.body.arguments[0]]))
    builder.insert(func.ReturnOp.build([op.result]))
    verify(function)
    assert ir_equal(function, parse(print_ir(function)).body.first_op)


def test_index_op():
    op = first_linalg_op(parse(MLIR_OPT_TEXT))
    index_op = op.body.first_op
    assert isinstance(index_op, IndexOp) and index_op.dim == 1
    assert IndexOp.build(0).result.type == index


def test_generalize_of_a_generic_is_a_copy():
    op = first_linalg_op(parse(MATMUL))
    copy = op.generalize()
    assert copy is not op and copy.indexing_maps() == op.indexing_maps()
    assert [o.name for o in copy.body] == ["arith.mulf", "arith.addf", "linalg.yield"]


def verify_error(text: str) -> str:
    """Parse ``text`` without verifying, verify, return the error message."""
    module = parse(text, verify=False)
    with pytest.raises(VerifyError) as caught:
        verify(module)
    return caught.value.message


def generic_op(maps: str, iterators: str, ins: str, outs: str, body: str, result: str) -> str:
    """A function holding one generic op built from pieces."""
    return f"""func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>,
             %v: tensor<4xf32>, %m: memref<4x16xf32>) {{
  %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}}
      ins({ins}) outs({outs}) {{
{body}
  }}{result}
  return
}}"""


LHS = "affine_map<(m, n, k) -> (m, k)>"
RHS = "affine_map<(m, n, k) -> (k, n)>"
OUT = "affine_map<(m, n, k) -> (m, n)>"
MATMUL_BODY = """  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32"""
ITERATORS = '"parallel", "parallel", "reduction"'
INS = "%a, %b : tensor<4x8xf32>, tensor<8x16xf32>"
OUTS = "%c : tensor<4x16xf32>"
ARROW = " -> tensor<4x16xf32>"

VERIFIER_CASES = {
    "one map per operand": (
        generic_op(f"{LHS}, {RHS}", ITERATORS, INS, OUTS, MATMUL_BODY, ARROW),
        "expected one indexing map per operand (3), got 2",
    ),
    "map dims = loops": (
        generic_op(f"{LHS}, {RHS}, {OUT}", '"parallel", "parallel"', INS, OUTS, MATMUL_BODY, ARROW),
        "expected indexing map #0 to have 2 dimensions (one per loop), got 3",
    ),
    "map results = rank": (
        generic_op(f"{LHS}, {RHS}, affine_map<(m, n, k) -> (m)>", ITERATORS, INS, OUTS,
                   MATMUL_BODY, ARROW),
        "expected indexing map #2 to have 2 results (the rank of operand #2, "
        "tensor<4x16xf32>), got 1",
    ),
    "no symbols": (
        generic_op(f"affine_map<(m, n, k)[s0] -> (m, k + s0)>, {RHS}, {OUT}", ITERATORS, INS,
                   OUTS, MATMUL_BODY, ARROW),
        "expected indexing map #0 to have no symbols",
    ),
    "loop sizes agree": (
        generic_op(f"{LHS}, {RHS}, {OUT}", ITERATORS, "%c, %b : tensor<4x16xf32>, "
                   "tensor<8x16xf32>", OUTS, MATMUL_BODY, ARROW),
        "loop d2 has size 16 from operand #0 dimension 1, but operand #1 dimension 0 is 8",
    ),
    "every loop readable from a shape": (
        generic_op(f"affine_map<(m, n, k) -> (m, k + n)>, {RHS}, {OUT}", ITERATORS, INS, OUTS,
                   MATMUL_BODY, ARROW).replace("(k, n)>", "(k + 1, n)>"),
        "expected every loop to be a plain dimension of some operand's indexing map, "
        "got none for loop d2",
    ),
    "expression index in bounds": (
        generic_op(f"affine_map<(m, n, k) -> (m, k + 1)>, {RHS}, {OUT}", ITERATORS, INS, OUTS,
                   MATMUL_BODY, ARROW),
        "expected operand #0 dimension 1 (indexed by d2 + 1) to have at least 9 elements, got 8",
    ),
    "one block argument per operand": (
        generic_op(f"{LHS}, {RHS}, {OUT}", ITERATORS, INS, OUTS,
                   MATMUL_BODY.replace(", %z: f32", "").replace("%z, %p", "%p, %p"), ARROW),
        "expected 3 payload block arguments (one per operand), got 2",
    ),
    "block argument types": (
        generic_op(f"{LHS}, {RHS}, {OUT}", ITERATORS, INS, OUTS,
                   "  ^bb0(%x: f32, %y: f32, %z: f16):\n    linalg.yield %x : f32", ARROW),
        "expected payload argument #2 to have type f32 (the element type of operand #2), got f16",
    ),
    "yield types": (
        generic_op(f"{LHS}, {RHS}, {OUT}", ITERATORS, INS, OUTS,
                   "  ^bb0(%x: f32, %y: f32, %z: f32):\n    %i = linalg.index 0 : index\n"
                   "    linalg.yield %i : index", ARROW),
        "expected 'linalg.yield' of (f32) (the output element types), got (index)",
    ),
    "result types": (
        generic_op(f"{LHS}, {RHS}, {OUT}", ITERATORS, INS, OUTS, MATMUL_BODY,
                   " -> tensor<4x8xf32>"),
        "expected result types (tensor<4x16xf32>) to match the tensor outputs, "
        "got (tensor<4x8xf32>)",
    ),
    "pure tensor or buffer semantics": (
        generic_op(f"{LHS}, {RHS}, {OUT}", ITERATORS, INS, "%m : memref<4x16xf32>", MATMUL_BODY,
                   "").replace("%r = ", ""),
        "expected pure tensor or buffer semantics (operands all tensors or all memrefs, besides "
        "scalars), got tensor<4x8xf32> and memref<4x16xf32>",
    ),
    "memref outputs give no results": (
        generic_op(f"{OUT}, {OUT}", '"parallel", "parallel"', "%m : memref<4x16xf32>",
                   "%m : memref<4x16xf32>", "  ^bb0(%x: f32, %y: f32):\n    linalg.yield %x : f32",
                   ARROW).replace("(m, n, k)", "(m, n)"),
        "expected result types () to match the tensor outputs, got (tensor<4x16xf32>)",
    ),
    "index within the loops": (
        generic_op(f"{LHS}, {RHS}, {OUT}", ITERATORS, INS, OUTS,
                   "  ^bb0(%x: f32, %y: f32, %z: f32):\n    %i = linalg.index 3 : index\n"
                   "    linalg.yield %x : f32", ARROW),
        "'linalg.index' at line 6: expected a loop number in [0, 3) (the loops of "
        "'linalg.generic'), got 3",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(VERIFIER_CASES))
def test_verifier_messages(case):
    text, message = VERIFIER_CASES[case]
    assert message in verify_error(text)


def test_messages_name_the_op_and_line():
    text, _ = VERIFIER_CASES["loop sizes agree"]
    assert verify_error(text).startswith("'linalg.generic' at line 3: loop d2 has size 16")


def test_yield_outside_a_linalg_op():
    text = "func.func @f(%x: f32) {\n  linalg.yield %x : f32\n}"
    message = verify_error(text)
    assert "'linalg.yield' at line 2: expected to be inside a linalg op, got 'func.func'" in message


def test_segment_sizes_must_add_up():
    text = """func.func @f(%m: memref<4xf32>) {
  "linalg.generic"(%m) <{indexing_maps = [affine_map<(d0) -> (d0)>],
      iterator_types = [#linalg.iterator_type<parallel>],
      operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32):
    "linalg.yield"(%x) : (f32) -> ()
  }) : (memref<4xf32>) -> ()
  return
}"""
    assert "expected 'operandSegmentSizes' to be array<i32: #ins, #outs> adding up to 1 " \
        "operands, got array<i32: 1, 1>" in verify_error(text)  # fmt: skip


def test_bad_iterator_type_is_a_parse_error():
    text = generic_op(f"{LHS}, {RHS}, {OUT}", '"parallel", "parallel", "window"', INS, OUTS,
                      MATMUL_BODY, ARROW)  # fmt: skip
    with pytest.raises(ParseError, match='expected iterator types "parallel" or "reduction"'):
        parse(text)


def test_missing_maps_attribute_in_generic_form():
    text = """func.func @f(%m: memref<4xf32>) {
  "linalg.generic"(%m) <{iterator_types = [#linalg.iterator_type<parallel>],
      operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0(%x: f32):
    "linalg.yield"(%x) : (f32) -> ()
  }) : (memref<4xf32>) -> ()
  return
}"""
    assert "expected 'indexing_maps' to be an array of affine maps, got None" in verify_error(text)


def test_strings_are_not_iterator_types_in_generic_form():
    """mlir-opt rejects ``iterator_types = ["parallel"]`` in the generic form; so do we."""
    text = """func.func @f(%m: memref<4xf32>) {
  "linalg.generic"(%m) <{indexing_maps = [affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"], operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0(%x: f32):
    "linalg.yield"(%x) : (f32) -> ()
  }) : (memref<4xf32>) -> ()
  return
}"""
    assert "expected 'iterator_types' to be an array of #linalg.iterator_type<parallel> or " \
        '<reduction>, got ["parallel"]' in verify_error(text)  # fmt: skip
