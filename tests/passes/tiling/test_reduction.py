"""Reductions under tiling: sequential loops carry the output; partials equal them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from passes.tiling.programs import build, check_numbers, linalg_ops
from tinycomp.frontend import sum as reduce_sum
from tinycomp.frontend import trace
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes.tiling import (
    REDUCTION_IDENTITIES,
    TilePass,
    bind_loops,
    tile_linalg_op,
    tile_reduction_with_partials,
)


def row_reduction(combiner: str, init_value: str = "") -> str:
    """Reduce rows of a 4x10 input with ``combiner`` into a given init."""
    return f"""
func.func @main(%x: tensor<4x10xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {{
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<4x10xf32>) outs(%init : tensor<4xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %0 = {combiner} %in, %out : f32
    linalg.yield %0 : f32
  }} -> tensor<4xf32>
  return %r : tensor<4xf32>
}}"""


NUMPY_REDUCTIONS = {
    "arith.addf": lambda x, init: init + x.sum(axis=1),
    "arith.mulf": lambda x, init: init * x.prod(axis=1),
    "arith.maximumf": lambda x, init: np.maximum(init, x.max(axis=1)),
    "arith.maxnumf": lambda x, init: np.maximum(init, x.max(axis=1)),
    "arith.minimumf": lambda x, init: np.minimum(init, x.min(axis=1)),
    "arith.minnumf": lambda x, init: np.minimum(init, x.min(axis=1)),
}


def row_inputs(seed: int):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 1.5, (4, 10)).astype(np.float32)  # products stay moderate
    return x, rng.standard_normal(4).astype(np.float32)


def first_generic(module):
    return next(op for op in module.walk() if op.name == "linalg.generic")


@pytest.mark.parametrize("combiner", sorted(NUMPY_REDUCTIONS))
@pytest.mark.parametrize("tiles", [[0, 3], [2, 4], [0, 1], [3, 16]])
def test_partials_equal_sequential_for_every_combiner(combiner, tiles):
    text = row_reduction(combiner)
    x, init = row_inputs(10)
    sequential, partials = parse(text), parse(text)
    assert tile_linalg_op(first_generic(sequential), tiles).tiled
    result = tile_reduction_with_partials(first_generic(partials), tiles)
    assert result.tiled, result.reason
    partials.verify()
    expected = NUMPY_REDUCTIONS[combiner](x.astype(np.float64), init)
    got_sequential, got_partials = interpret(sequential, x, init), interpret(partials, x, init)
    np.testing.assert_allclose(got_sequential, expected, rtol=1e-5)
    np.testing.assert_allclose(got_partials, got_sequential, rtol=1e-5)
    if combiner not in ("arith.addf", "arith.mulf"):  # max/min do not round
        np.testing.assert_array_equal(got_partials, got_sequential)


@pytest.mark.parametrize(
    ("combiner", "identity"),
    [("arith.addf", "0.000000e+00"), ("arith.mulf", "1.000000e+00"),
     ("arith.maximumf", "0xFF800000"), ("arith.minnumf", "0x7F800000")],
)  # fmt: skip
def test_partials_start_at_the_combiner_identity(combiner, identity):
    module = parse(row_reduction(combiner))
    result = tile_reduction_with_partials(first_generic(module), [0, 4])
    fill = next(op for op in module.walk() if op.name == "linalg.fill")
    constant = fill.operands[0].defining_op()
    assert str(constant.attributes["value"]).startswith(identity)
    assert str(fill.results[0].type) == "tensor<4x4xf32>"  # 4 rows x 4 partial slots
    assert result.merge_op.iterator_types() == ["parallel", "reduction"]
    assert result.loop_kinds == ["reduction"]
    assert result.tiled_ops[0].iterator_types() == ["parallel", "parallel"]


def test_identity_table_matches_the_brief():
    assert REDUCTION_IDENTITIES["arith.addf"] == 0.0
    assert REDUCTION_IDENTITIES["arith.mulf"] == 1.0
    assert REDUCTION_IDENTITIES["arith.maximumf"] == -math.inf
    assert REDUCTION_IDENTITIES["arith.maxnumf"] == -math.inf


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("%0 = arith.subf %out, %in : f32", "combiner 'arith.subf' has no known identity"),
        ("%0 = arith.divf %in, %out : f32", "combiner 'arith.divf' has no known identity"),
        ("%s = arith.addf %in, %out : f32\n    %0 = arith.mulf %s, %out : f32",
         "reads the accumulator 2 times"),
    ],
)  # fmt: skip
def test_unknown_combiners_are_refused_and_ir_unchanged(payload, reason):
    text = row_reduction("arith.addf").replace("%0 = arith.addf %in, %out : f32", payload)
    module = parse(text)
    before = str(module)
    result = tile_reduction_with_partials(first_generic(module), [0, 4])
    assert not result.tiled and reason in result.reason
    assert str(module) == before


def test_partials_need_a_tiled_reduction_loop():
    module = parse(row_reduction("arith.addf"))
    result = tile_reduction_with_partials(first_generic(module), [2, 0])
    assert result.reason == "no reduction loop is tiled (there is nothing to split into partials)"


def test_matmul_k_partials_accumulate_into_the_real_init():
    rng = np.random.default_rng(11)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in [(5, 7), (7, 3), (5, 3)])
    text = """
func.func @main(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}"""
    module = parse(text)
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    result = tile_reduction_with_partials(matmul, [2, 0, 3])
    assert result.tiled and result.loop_kinds == ["parallel", "reduction"]
    np.testing.assert_allclose(interpret(module, a, b, c), c + a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["row_sum", "row_max", "softmax", "layernorm", "matmul"])
def test_pass_with_partials_on_whole_programs(name):
    module, inputs = build(name, seed=12)
    tiling = TilePass([2, 3, 2], reduction="partials")
    tiling.run(module)
    module.verify()
    merges = [r for r in tiling.report.results if r.merge_op is not None]
    assert merges, "at least one reduction went through partials"
    check_numbers(name, module, inputs)


def test_binding_a_reduction_loop_is_refused():
    module = parse(row_reduction("arith.addf"))
    result = tile_linalg_op(first_generic(module), [2, 5])
    refused = bind_loops(result.loops, ["gpu.block.x", "gpu.thread.x"])
    assert refused == [
        "loop %d1 not bound to gpu.thread.x: it carries a reduction: every iteration writes "
        "the same window (the tensor.insert_slice offsets do not depend on %d1)"
    ]
    assert str(result.loops[0].attributes["tinycomp.bind"]) == '"gpu.block.x"'
    assert "tinycomp.bind" not in result.loops[1].attributes


def test_binding_the_partial_reduction_loop_is_refused_too():
    module = parse(row_reduction("arith.maximumf"))
    result = tile_reduction_with_partials(first_generic(module), [2, 5])
    refused = bind_loops(result.loops, ["npu.aicore", "npu.vector_subblock"])
    assert len(refused) == 1 and "not bound to npu.vector_subblock" in refused[0]
    x, init = row_inputs(13)
    np.testing.assert_array_equal(interpret(module, x, init), np.maximum(init, x.max(axis=1)))


@settings(max_examples=20, deadline=None)
@given(
    rows=st.integers(1, 5),
    cols=st.integers(1, 12),
    row_tile=st.integers(0, 6),
    col_tile=st.integers(1, 14),
)
def test_row_sum_partials_match_sequential(rows, cols, row_tile, col_tile):
    x = np.random.default_rng(14).standard_normal((rows, cols)).astype(np.float32)
    sequential = trace(lambda a: reduce_sum(a, axis=-1), x)
    partials = trace(lambda a: reduce_sum(a, axis=-1), x)
    reduction = [op for op in linalg_ops(sequential) if op.name == "linalg.generic"][0]
    assert tile_linalg_op(reduction, [row_tile, col_tile]).tiled
    reduction = [op for op in linalg_ops(partials) if op.name == "linalg.generic"][0]
    assert tile_reduction_with_partials(reduction, [row_tile, col_tile]).tiled
    expected = x.astype(np.float64).sum(axis=-1)
    np.testing.assert_allclose(interpret(sequential, x), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        interpret(partials, x), interpret(sequential, x), rtol=1e-5, atol=1e-5
    )
