"""Tile and fuse: producers computed tile by tile inside the consumer's loops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from passes.tiling.programs import PROGRAMS, build, check_numbers, top_level_ops
from tinycomp.frontend import TensorSpec, exp, gelu, negative, tanh, trace
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes import FusionPass, GeneralizePass
from tinycomp.passes.errors import PassError
from tinycomp.passes.tiling import TileAndFusePass, tile_and_fuse

OUTSIDE_ALLOWED = {"arith.constant", "tensor.empty", "scf.for", "func.return"}
"""What may stay outside the loop nest once a whole chain is fused."""

MATMUL_WITH_FILL = """
func.func @main(%a: tensor<6x5xf32>, %b: tensor<5x7xf32>) -> tensor<6x7xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<6x7xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<6x7xf32>) -> tensor<6x7xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<6x5xf32>, tensor<5x7xf32>)
                      outs(%acc : tensor<6x7xf32>) -> tensor<6x7xf32>
  return %mm : tensor<6x7xf32>
}
"""

SHARED_PRODUCER = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %e = tensor.empty() : tensor<4x6xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x6xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x6xf32>
  return %p, %c : tensor<4x6xf32>, tensor<4x6xf32>
}
"""


def matmul_inputs(seed: int):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in [(6, 5), (5, 7)]]


@pytest.mark.parametrize("tiles", [[2, 3], [2, 0], [1, 1], [8, 8], [3, 2, 2, 2]])
@pytest.mark.parametrize(
    "name", ["elementwise_chain", "broadcast_add", "softmax", "layernorm", "transpose"]
)
def test_fusable_chains_leave_no_producer_outside(name, tiles):
    module, inputs = build(name, seed=20)
    fusion = TileAndFusePass(tiles)
    fusion.run(module)
    module.verify()
    assert set(top_level_ops(module)) <= OUTSIDE_ALLOWED, top_level_ops(module)
    [result] = fusion.report.results
    assert result.tiled
    assert [note for note in result.notes if "not fused" in note] == []
    check_numbers(name, module, inputs)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_program_fused_computes_the_same(name):
    module, inputs = build(name, seed=21)
    TileAndFusePass([2, 3, 2, 2]).run(module)
    module.verify()
    check_numbers(name, module, inputs)


def test_fill_fuses_into_the_matmul_tile_when_k_is_not_tiled():
    module = parse(MATMUL_WITH_FILL)
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    result = tile_and_fuse(matmul, [4, 4])
    assert [op.name for op in result.tiled_ops] == ["linalg.generic"] * 2 + ["tensor.empty"]
    assert [name for name in top_level_ops(module) if name != "arith.constant"] == [
        "tensor.empty", "scf.for", "func.return",
    ]  # fmt: skip
    # the loop now starts from the fill's tensor.empty, as in MLIR
    assert result.loops[0].init_args[0].defining_op().name == "tensor.empty"
    a, b = matmul_inputs(22)
    np.testing.assert_allclose(interpret(module, a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_fill_stays_outside_when_k_is_tiled():
    module = parse(MATMUL_WITH_FILL)
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    result = tile_and_fuse(matmul, [4, 4, 2])
    assert "linalg.fill" in top_level_ops(module)
    assert len(result.notes) == 1
    assert result.notes[0].startswith(
        "'linalg.fill' %acc not fused: it initializes the result of a tiled reduction loop"
    )
    a, b = matmul_inputs(23)
    np.testing.assert_allclose(interpret(module, a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_producer_with_another_user_is_recomputed_and_kept():
    module = parse(SHARED_PRODUCER)
    fusion = TileAndFusePass([2, 4])
    fusion.run(module)
    module.verify()
    # %c is the only root; %p is fused into its loop and also kept for the return.
    assert [r.op for r in fusion.report.results] == ["'linalg.generic' %c"]
    assert top_level_ops(module).count("linalg.generic") == 1
    assert sum(op.name == "linalg.generic" for op in module.walk()) == 3
    x = np.random.default_rng(24).standard_normal((4, 6)).astype(np.float32)
    p, c = interpret(module, x)
    np.testing.assert_allclose(p, np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(c, np.exp(x) ** 2, rtol=1e-5)


def test_softmax_fused_report_lists_the_fused_producers():
    module, inputs = build("softmax", seed=25)
    fusion = TileAndFusePass([2, 0])
    fusion.run(module)
    text = str(fusion.report)
    assert text.splitlines()[0] == "linalg-tile-and-fuse: 1 of 1 ops tiled"
    # the division and the row sum read the same 2x7 window of exp: it is computed once
    assert "    fused: %exp, %sum, %sub, linalg.generic (x2), %max" in text
    assert fusion.statistics["producers fused"] == len(fusion.report.results[0].tiled_ops) - 1
    check_numbers("softmax", module, inputs)


def test_softmax_tiled_along_the_row_recomputes_exp_for_the_whole_row():
    module, inputs = build("softmax", seed=26)
    fusion = TileAndFusePass([2, 3])
    fusion.run(module)
    fused = str(fusion.report).splitlines()[-1]
    # the division reads a 2x3 tile of exp, the row sum the whole 2-row window: two tiles
    assert fused.startswith("    fused: %exp (x2)"), fused
    check_numbers("softmax", module, inputs)


def test_a_residual_chain_computes_each_tile_once():
    def residual(x, w):
        for _ in range(6):
            x = gelu(x @ w) + x
        return x

    module = trace(residual, TensorSpec((8, 16)), TensorSpec((16, 16)))
    GeneralizePass().run(module)
    FusionPass().run(module)
    before = sum(1 for _ in module.walk())
    TileAndFusePass([4, 4]).run(module)
    after = sum(1 for _ in module.walk())
    # each layer's x is needed through two windows (a 4x16 row block for the matmul, the
    # 4x4 tile for the residual add): linear growth, not 2**6 copies of the first layer
    assert after < 3 * before, (before, after)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = (rng.standard_normal((16, 16)) / 4).astype(np.float32)
    expected = x.astype(np.float64)
    for _ in range(6):
        h = expected @ w
        expected = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3))) + expected
    np.testing.assert_allclose(interpret(module, x, w), expected, rtol=1e-4, atol=1e-4)


def test_bad_tile_sizes_raise_before_the_ir_changes():
    module = parse(MATMUL_WITH_FILL)
    fill = next(op for op in module.walk() if op.name == "linalg.fill")
    before = str(module)
    with pytest.raises(PassError, match="tiling 'linalg.fill' %acc: expected at most 2 tile sizes"):
        tile_and_fuse(fill, [1, 2, 3])
    assert str(module) == before


UNARY = {"tanh": tanh, "neg": negative, "exp": exp}


@settings(max_examples=20, deadline=None)
@given(
    steps=st.lists(
        st.sampled_from(["tanh", "neg", "exp", "add_y", "mul_y"]), min_size=1, max_size=4
    ),
    tiles=st.lists(st.integers(0, 6), min_size=1, max_size=2),
)
def test_any_elementwise_chain_fuses_completely(steps, tiles):
    rng = np.random.default_rng(26)
    x = (rng.standard_normal((5, 6)) * 0.5).astype(np.float32)
    y = (rng.standard_normal((5, 6)) * 0.5).astype(np.float32)

    def chain(a, b):
        for step in steps:
            if step == "add_y":
                a = a + b
            elif step == "mul_y":
                a = a * b
            else:
                a = UNARY[step](a)
        return a

    module = trace(chain, x, y)
    expected = interpret(module, x, y)
    fusion = TileAndFusePass(tiles)
    fusion.run(module)
    module.verify()
    if any(tiles):
        assert set(top_level_ops(module)) <= OUTSIDE_ALLOWED
    np.testing.assert_allclose(interpret(module, x, y), expected, rtol=1e-6, atol=1e-6)
