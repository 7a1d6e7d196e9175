"""indexing_problem: examples, dicts of maps and linalg-style ops, with clear errors."""

import pytest

from tinycomp.affine import AffineMap, dim, parse_affine_map
from tinycomp.ir import parse
from tinycomp.viz.indexing_maps import (
    EXAMPLES,
    IndexingMapError,
    IndexingProblem,
    indexing_problem,
    rename_dims,
)

GENERIC_MATMUL = """
func.func @mm(%A: tensor<8x6xf32>, %B: tensor<6x4xf32>, %C: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = "linalg.generic"(%A, %B, %C) <{
      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                       affine_map<(d0, d1, d2) -> (d2, d1)>,
                       affine_map<(d0, d1, d2) -> (d0, d1)>],
      iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>,
                        #linalg.iterator_type<reduction>],
      operandSegmentSizes = array<i32: 2, 1>}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    "linalg.yield"(%s) : (f32) -> ()
  }) : (tensor<8x6xf32>, tensor<6x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
"""


def generic_op():
    module = parse(GENERIC_MATMUL)
    return next(op for op in module.walk() if op.name == "linalg.generic")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_are_consistent(name):
    problem = indexing_problem(name)
    assert isinstance(problem, IndexingProblem)
    assert len(problem.loop_names) == len(problem.loop_sizes) == len(problem.tile_sizes)
    for operand, indexing_map in problem.maps.items():
        shape = problem.operand_shapes[operand]
        reached = indexing_map.footprint([(0, size) for size in problem.loop_sizes])
        assert [hi for _, hi in reached] == list(shape)  # the maps reach the whole operand
        assert len(problem.planes[operand]) == 2


def test_example_shapes_and_labels():
    matmul = indexing_problem("matmul")
    assert matmul.operand_shapes == {"A": (8, 6), "B": (6, 8), "C": (8, 8)}
    assert matmul.describe_map("B") == "(m, n, k) -> (k, n)"
    conv = indexing_problem("conv2d_nhwc")
    assert conv.operand_shapes["input"] == (2, 8, 8, 3)
    assert conv.planes["input"] == (1, 2)  # the (h, w) plane
    assert conv.axis_labels("filter") == ("kh", "kw", "c", "f")
    assert indexing_problem("reduction").planes["out"] == (0, None)  # drawn as a column


def test_examples_resize():
    problem = indexing_problem("matmul", [16, 4, 2])
    assert problem.operand_shapes == {"A": (16, 2), "B": (2, 4), "C": (16, 4)}
    assert problem.tile_sizes == (4, 4, 2)  # the example's tile, cut to the loops


def test_dict_of_maps_infers_loop_sizes_from_shapes():
    maps = {"x": AffineMap(2, 0, (dim(0), dim(1))), "y": AffineMap(2, 0, (dim(1),))}
    problem = indexing_problem(maps, operand_shapes={"x": (3, 5), "y": (5,)})
    assert problem.loop_sizes == (3, 5)
    assert problem.loop_names == ("d0", "d1")
    assert problem.planes == {"x": (0, 1), "y": (None, 0)}


def test_rank_above_two_draws_the_two_largest_dimensions():
    problem = indexing_problem({"t": AffineMap.identity(4)}, [2, 9, 3, 7])
    assert problem.planes["t"] == (1, 3)


def test_linalg_style_op_names_operands_as_printed():
    problem = indexing_problem(generic_op())
    assert list(problem.maps) == ["%A", "%B", "%C"]
    assert problem.operand_shapes == {"%A": (8, 6), "%B": (6, 4), "%C": (8, 4)}
    assert problem.loop_sizes == (8, 4, 6)
    named = indexing_problem(generic_op(), loop_names=["m", "n", "k"])
    assert named.describe_map("%A") == "(m, n, k) -> (m, k)"


NAMED_OPS = """
func.func @mm(%A: tensor<8x6xf32>, %B: tensor<6x4xf32>, %C: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<8x6xf32>, tensor<6x4xf32>)
                     outs(%C : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
func.func @conv(%I: tensor<1x9x9x3xf32>, %F: tensor<3x3x3x4xf32>, %O: tensor<1x4x4x4xf32>)
    -> tensor<1x4x4x4xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<2> : tensor<2xi64>}
     ins(%I, %F : tensor<1x9x9x3xf32>, tensor<3x3x3x4xf32>)
     outs(%O : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}
"""


def test_named_linalg_ops_give_loop_names_and_conv_planes():
    module = parse(NAMED_OPS)
    matmul, conv = (
        op for op in module.walk() if op.name in ("linalg.matmul", "linalg.conv_2d_nhwc_hwcf")
    )
    problem = indexing_problem(matmul)
    assert problem.loop_names == ("m", "n", "k") and problem.loop_sizes == (8, 4, 6)
    assert problem.describe_map("%B") == "(m, n, k) -> (k, n)"
    problem = indexing_problem(conv)
    assert problem.loop_sizes == (1, 4, 4, 4, 3, 3, 3)
    assert problem.planes == {"%I": (1, 2), "%F": (0, 1), "%O": (1, 2)}
    assert problem.axis_labels("%I")[1] == "oh * 2 + kh"


def test_rename_dims_leaves_other_names_alone():
    assert rename_dims("(d0, d1) -> (d10 + d1)", [f"x{i}" for i in range(11)]) == (
        "(x0, x1) -> (x10 + x1)"
    )


def test_errors_name_the_operand_and_what_was_expected():
    transpose = {"in": parse_affine_map("(d0, d1) -> (d0, d1)")}
    with pytest.raises(IndexingMapError, match=r"in: index 1 \(d1\) reaches 0..7 .* 0..4"):
        indexing_problem(transpose, [2, 8], {"in": (2, 5)})
    with pytest.raises(IndexingMapError, match="expected an example from"):
        indexing_problem("matmull")
    with pytest.raises(IndexingMapError, match="same loops"):
        indexing_problem({"a": AffineMap.identity(2), "b": AffineMap.identity(3)})
    with pytest.raises(IndexingMapError, match="the size of d0, d1 is unknown"):
        indexing_problem({"a": parse_affine_map("(d0, d1) -> (d0 + d1)")}, None, {"a": (4,)})
    with pytest.raises(IndexingMapError, match="expected 2 positive loop sizes"):
        indexing_problem(transpose, [2, 0])
    with pytest.raises(IndexingMapError, match="without symbols"):
        indexing_problem({"a": parse_affine_map("(d0)[s0] -> (d0 + s0)")}, [2])
    with pytest.raises(IndexingMapError, match=r"shapes for operands in \['in'\], got \['out'\]"):
        indexing_problem(transpose, [2, 2], {"out": (2, 2)})
    with pytest.raises(IndexingMapError, match="expected operand in to have rank 2"):
        indexing_problem(transpose, [2, 2], {"in": (2,)})
    with pytest.raises(IndexingMapError, match="plane of in"):
        indexing_problem(transpose, [2, 2], planes={"in": (1, 1)})
    with pytest.raises(IndexingMapError, match="no loop sizes"):
        indexing_problem(indexing_problem("matmul"), [4, 4, 4])


def test_op_without_indexing_maps_is_rejected():
    module = parse("func.func @f(%x: f32) -> f32 { return %x : f32 }")
    function = next(iter(module.body))
    with pytest.raises(IndexingMapError, match="expected a linalg op, .* got 'func.func'"):
        indexing_problem(function)


def test_dynamic_sizes_are_filled_in_from_the_loops():
    maps = {"x": AffineMap.identity(2)}
    problem = indexing_problem(maps, [3, 5], {"x": (None, 5)})  # tensor<?x5xf32>
    assert problem.operand_shapes == {"x": (3, 5)}
