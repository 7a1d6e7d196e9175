"""What chapter 02 says about MLIR, checked against ``mlir-opt-22``.

The chapter's claims, one test each:

1. the right-hand column of its simplification table is what ``mlir-opt`` prints for the
   left-hand one, and tinycomp's ``simplify()`` prints the same;
2. a product of two dimensions is not affine (``mlir-opt`` refuses it);
3. a negative constant divisor parses in MLIR, but ``-lower-affine`` refuses it; tinycomp
   refuses it at once;
4. a loop that no map names bare has no size: MLIR's verifier rejects the maps, as
   tinycomp's does;
5. elementwise fusion takes a producer whose output map is a permutation, and leaves one
   whose output map is not;
6. MLIR's tiling cuts the tile of the loop at the edge (``affine.min``) and computes each
   operand's slice from the cut tile;
7. every IR text in the chapter is accepted by ``mlir-opt``.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest
from ir.mlir_opt import MLIR_OPT, MlirOptError, requires_mlir_opt, run_mlir_opt

from tinycomp.affine import AffineParseError, parse_affine_map
from tinycomp.ir import VerifyError, ir_equal, parse

pytestmark = [pytest.mark.mlir, requires_mlir_opt]

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "02_affine_maps.ipynb"


def printed_map(text: str) -> str:
    """The map ``mlir-opt`` prints for ``affine_map<text>`` (inside the brackets)."""
    module = f"func.func @f() attributes {{m = affine_map<{text}>}} {{ return }}"
    printed = run_mlir_opt(module)
    return re.search(r"affine_map<(.*)>", printed).group(1)


SIMPLIFICATIONS = [  # the chapter's table: what is written, what mlir-opt prints
    ("(d0, d1) -> (d0 * 1 + d1 * 0 + 3 - 3)", "(d0, d1) -> (d0)"),
    ("(d0, d1) -> (d0 - d0 + d1, 2 * d0 + d0)", "(d0, d1) -> (d1, d0 * 3)"),
    ("(d0, d1) -> ((d0 * 4 + d1) floordiv 4)", "(d0, d1) -> (d0 + d1 floordiv 4)"),
    ("(d0, d1) -> (d0 - (d0 floordiv 8) * 8)", "(d0, d1) -> (d0 mod 8)"),
]


@pytest.mark.parametrize("written, simplified", SIMPLIFICATIONS)
def test_mlir_prints_the_simplified_form(written, simplified):
    assert printed_map(written) == simplified
    assert str(parse_affine_map(written).simplify()) == simplified


def test_a_product_of_two_dimensions_is_not_affine():
    with pytest.raises(MlirOptError, match="non-affine expression"):
        printed_map("(d0, d1) -> (d0 * d1)")
    with pytest.raises(AffineParseError, match="expected a constant or symbolic operand"):
        parse_affine_map("(d0, d1) -> (d0 * d1)")


NEGATIVE_DIVISOR = """
func.func @f(%i: index) -> index {
  %0 = affine.apply affine_map<(d0) -> (d0 floordiv -2)>(%i)
  return %0 : index
}"""


def test_a_negative_divisor_parses_in_mlir_but_does_not_lower():
    assert printed_map("(d0) -> (d0 floordiv -2)") == "(d0) -> (d0 floordiv -2)"
    lowered = subprocess.run(
        [MLIR_OPT, "-lower-affine"], input=NEGATIVE_DIVISOR, capture_output=True, text=True
    )  # the pattern reports the error and leaves the op; mlir-opt still exits with 0
    assert "division by non-positive value is not supported" in lowered.stderr
    assert "affine.apply" in lowered.stdout
    with pytest.raises(AffineParseError, match="expected a positive divisor"):
        parse_affine_map("(d0) -> (d0 floordiv -2)")


NO_BARE_LOOP = """
func.func @f(%a: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8xf32>) outs(%c : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}"""


def test_a_loop_that_no_map_names_bare_is_rejected():
    with pytest.raises(MlirOptError, match="invalid indexing maps are non-invertible"):
        run_mlir_opt(NO_BARE_LOOP)
    with pytest.raises(VerifyError, match="plain dimension of some operand's indexing map"):
        parse(NO_BARE_LOOP)


PERMUTED_PRODUCER = """
func.func @g(%x: tensor<4x8xf32>, %e: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x4xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}"""
"""The producer writes its result transposed: its output map is a permutation."""

UNIT_DIM_PRODUCER = """
func.func @f(%x: tensor<4xf32>, %e: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, 0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x1xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x1xf32>) outs(%e : tensor<4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4x1xf32>
  return %c : tensor<4x1xf32>
}"""
"""The same pair, but the producer's output map ``(d0) -> (d0, 0)`` is no permutation."""


def test_elementwise_fusion_needs_a_producer_output_map_that_is_a_permutation():
    assert parse_affine_map("(d0, d1) -> (d1, d0)").is_permutation()
    assert not parse_affine_map("(d0) -> (d0, 0)").is_permutation()
    fused = run_mlir_opt(PERMUTED_PRODUCER, "--linalg-fuse-elementwise-ops")
    assert fused.count("linalg.generic") == 1, fused
    left = run_mlir_opt(UNIT_DIM_PRODUCER, "--linalg-fuse-elementwise-ops")
    assert left.count("linalg.generic") == 2, left


EDGE_TILE = """
func.func @conv(%in: tensor<1x13x13x3xf32>, %w: tensor<3x3x3x4xf32>,
                %out: tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x13x13x3xf32>, tensor<3x3x3x4xf32>)
      outs(%out : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %conv = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %conv tile_sizes [0, 4, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}"""


def test_mlir_tiling_cuts_the_tile_and_takes_the_slice_of_the_cut_tile():
    tiled = run_mlir_opt(EDGE_TILE, "--transform-interpreter")
    maps = dict(re.findall(r"^(#map\d*) = affine_map<(.*)>$", tiled, re.MULTILINE))
    cut = re.search(r"%(\w+) = affine\.min (#map\d*)\(%(\w+)\)", tiled)
    assert cut, tiled
    assert maps[cut.group(2)] == "(d0) -> (-d0 + 6, 4)"  # min(4, 6 - oh): the cut tile
    size = re.search(
        r"%(\w+) = affine\.apply (#map\d*)\(%" + cut.group(1) + r"\)(?=[\s\S]*?"
        r"tensor\.extract_slice %arg0\[0, %\w+, 0, 0\] \[1, %\1, 13, 3\])",
        tiled,
    )
    assert size, tiled  # the input slice's size is a function of the cut tile...
    assert maps[size.group(2)] == "(d0) -> (d0 * 2 + 1)"  # ...(t - 1) * 2 + 3 rows
    assert "affine.min" not in tiled.replace(cut.group(0), "")  # and nothing else is cut


def chapter_ir_texts() -> list[str]:
    """Every string literal in the chapter's code cells that holds a function."""
    texts = []
    for cell in json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:  # a shell command (!tinycomp grade ...)
            continue
        pieces = {  # the literal parts of f-strings are templates, not IR
            id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
            for part in node.values
        }  # fmt: skip
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if "func.func @" in node.value and id(node) not in pieces:
                    texts.append(node.value)
    return texts


@pytest.mark.parametrize("text", chapter_ir_texts())
def test_mlir_opt_accepts_the_chapter_text(text):
    printed = run_mlir_opt(text, allow_unregistered=False)
    assert ir_equal(parse(printed), parse(text))
