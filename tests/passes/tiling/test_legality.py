"""The conservative fallback: what is not tiled stays exactly as it was, with the reason;
bad tile sizes are errors that name the op."""

from __future__ import annotations

import pytest

from tinycomp.ir import parse
from tinycomp.passes.errors import PassError
from tinycomp.passes.tiling import (
    TilePass,
    tile_and_fuse,
    tile_linalg_op,
    tile_reduction_with_partials,
)

ON_BUFFERS = """
func.func @main(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
"""


def generic(input_map: str, output_map: str, payload: str, shapes=("8", "8")) -> str:
    """A one-input, one-output parallel generic on 1-D tensors."""
    x, y = shapes
    return f"""
func.func @main(%x: tensor<{x}xf32>, %y: tensor<{y}xf32>) -> tensor<{y}xf32> {{
  %r = linalg.generic {{indexing_maps = [affine_map<{input_map}>, affine_map<{output_map}>],
                       iterator_types = ["parallel"]}}
      ins(%x : tensor<{x}xf32>) outs(%y : tensor<{y}xf32>) {{
  ^bb0(%in: f32, %out: f32):
    {payload}
  }} -> tensor<{y}xf32>
  return %r : tensor<{y}xf32>
}}"""


COPY = "linalg.yield %in : f32"
SIDE_EFFECT = '"test.print"(%in) : (f32) -> ()\n    linalg.yield %in : f32'

REFUSED = {
    "buffers": (
        ON_BUFFERS,
        "works on buffers (memrefs): it writes memory in place; tile on tensors, "
        "before bufferization",
    ),
    "side_effects": (
        generic("(d0) -> (d0)", "(d0) -> (d0)", SIDE_EFFECT),
        "its payload op 'test.print' has side effects",
    ),
    "floordiv": (
        generic("(d0) -> (d0 floordiv 2)", "(d0) -> (d0)", COPY, ("4", "8")),
        "operand #0 map (d0) -> (d0 floordiv 2): 'd0 floordiv 2' uses tiled loop d0 but is "
        "not a sum of loops with positive coefficients",
    ),
    "reversed": (
        generic("(d0) -> (-d0 + 7)", "(d0) -> (d0)", COPY),
        "operand #0 map (d0) -> (-d0 + 7): '-d0 + 7' uses tiled loop d0 but is not a sum of "
        "loops with positive coefficients",
    ),
}


def first_linalg(module):
    return next(op for op in module.walk() if op.name.startswith("linalg.") and op.regions)


@pytest.mark.parametrize("tile", [tile_linalg_op, tile_and_fuse, tile_reduction_with_partials])
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_ops_are_unchanged_with_the_reason(case, tile):
    text, reason = REFUSED[case]
    module = parse(text)
    before = str(module)
    result = tile(first_linalg(module), [4])
    assert not result.tiled
    assert result.reason == reason
    assert result.loops == [] and result.replacements == []
    assert str(module) == before


def test_output_map_that_is_not_a_projected_permutation():
    text = """
func.func @main(%x: tensor<4x4xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0 + d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%y : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}"""
    module = parse(text)
    before = str(module)
    result = tile_linalg_op(first_linalg(module), [2, 2])
    assert result.reason == (
        "output #0 map (d0, d1) -> (d0 + d1) is not a projected permutation: "
        "two tiles could write the same element"
    )
    assert str(module) == before


def test_floordiv_on_an_untiled_loop_is_fine():
    text = """
func.func @main(%x: tensor<4x3xf32>, %y: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 floordiv 2, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xf32>) outs(%y : tensor<8x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}"""
    module = parse(text)
    assert tile_linalg_op(first_linalg(module), [0, 2]).tiled
    assert not tile_linalg_op(first_linalg(parse(text)), [2, 0]).tiled


def test_non_linalg_op_has_no_indexing_maps():
    module = parse(
        "func.func @main(%a: f32) -> f32 { %b = arith.addf %a, %a : f32  return %b : f32 }"
    )
    add = module.body.first_op.entry_block.first_op
    result = tile_linalg_op(add, [4])
    assert (
        result.reason
        == "'arith.addf' is not a linalg op: it has no indexing maps to slice operands with"
    )


def test_all_zero_tile_sizes_do_nothing():
    module = parse(generic("(d0) -> (d0)", "(d0) -> (d0)", COPY))
    before = str(module)
    assert (
        tile_linalg_op(first_linalg(module), [0]).reason == "every tile size is 0: nothing to tile"
    )
    assert (
        tile_linalg_op(first_linalg(module), []).reason == "every tile size is 0: nothing to tile"
    )
    assert str(module) == before


@pytest.mark.parametrize(
    ("tiles", "message"),
    [
        ([-2], r"expected tile sizes >= 0 \(0 = not tiled\), got -2 for loop d0"),
        ([2, 2], r"expected at most 1 tile sizes \(one per loop d0\), got 2: \[2, 2\]"),
        ([2.5], r"expected an integer tile size for loop 0, got 2.5"),
    ],
)  # fmt: skip
def test_bad_tile_sizes_are_errors_naming_the_op(tiles, message):
    module = parse(generic("(d0) -> (d0)", "(d0) -> (d0)", COPY))
    before = str(module)
    with pytest.raises(PassError, match=r"^tiling 'linalg.generic' %r: " + message):
        tile_linalg_op(first_linalg(module), tiles)
    assert str(module) == before


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tile_sizes": [4, -1]}, r"linalg-tile: expected tile sizes >= 0"),
        ({"tile_sizes": [4], "bind": ["tpu"]}, r"linalg-tile: unknown hardware unit 'tpu'"),
        ({"tile_sizes": [4], "reduction": "tree"}, r"linalg-tile: expected reduction to be one of"),
    ],
)  # fmt: skip
def test_bad_pass_options_are_errors(options, message):
    with pytest.raises(PassError, match=message):
        TilePass(**options)


def test_pass_reports_every_refusal():
    module = parse(ON_BUFFERS)
    tiling = TilePass([2, 2])
    tiling.run(module)
    assert tiling.report.reasons() == {"'linalg.matmul'": REFUSED["buffers"][1]}
    assert dict(tiling.statistics) == {"ops not tiled": 1}
