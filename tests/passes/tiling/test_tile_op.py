"""Tiling one linalg op: the IR shape of ``tile_linalg_op`` and its numbers.

Every tiled program must compute what the untiled one computes (``tinycomp.interpret``
on random inputs) and what numpy computes, for tile sizes that divide the loops and
that do not, including 1 and sizes larger than the loop.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from passes.tiling.programs import (
    DYNAMIC_MATMUL,
    PROGRAMS,
    TRACEABLE_IN_ANY_DTYPE,
    build,
    check_numbers,
    conv_reference,
    linalg_ops,
)
from tinycomp.frontend import trace
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes.tiling import TilePass, tile_linalg_op

TILE_CHOICES = {
    "dividing": [1, 1, 1, 1, 1, 1, 1],
    "non_dividing": [2, 3, 2, 3, 2, 2, 2],
    "larger_than_loops": [16, 16, 16, 16, 16, 16, 16],
    "mixed_with_zeros": [0, 4, 0, 2, 0, 2, 0],
}

MATMUL = """
func.func @main(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>, %c: tensor<10x16xf32>)
    -> tensor<10x16xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>)
                      outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %mm : tensor<10x16xf32>
}
"""


def the_matmul(module):
    return next(op for op in module.walk() if op.name == "linalg.matmul")


def random_matmul_inputs(seed: int):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in [(10, 8), (8, 16), (10, 16)]]


@pytest.mark.parametrize("choice", sorted(TILE_CHOICES))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_program_tiled_computes_the_same(name, choice):
    module, inputs = build(name, seed=1)
    tiling = TilePass(TILE_CHOICES[choice])
    tiling.run(module)
    module.verify()
    assert tiling.report.not_tiled == [] or choice == "mixed_with_zeros"
    check_numbers(name, module, inputs)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("name", TRACEABLE_IN_ANY_DTYPE)
@pytest.mark.parametrize("reduction", ["sequential", "partials"])
def test_half_precision_programs_tile_too(name, dtype, reduction):
    module, inputs = build(name, seed=2, dtype=dtype)
    TilePass([2, 3, 2], reduction=reduction).run(module)
    module.verify()
    assert "scf.for" in str(module)
    check_numbers(name, module, inputs, dtype=dtype)


def test_matmul_nest_shape_follows_mlir():
    module = parse(MATMUL)
    result = tile_linalg_op(the_matmul(module), [4, 8])
    assert result.tiled and result.tile_sizes == (4, 8, 0)
    assert [loop.name for loop in result.loops] == ["scf.for", "scf.for"]
    outer, inner = result.loops
    assert outer.init_args == (module.body.first_op.arguments[2],)  # carries %c
    assert inner.init_args == outer.region_iter_args
    body = [op.name for op in inner.body.ops]
    assert body == [
        "affine.min", "tensor.extract_slice", "tensor.extract_slice", "tensor.extract_slice",
        "linalg.generic", "tensor.insert_slice", "scf.yield",
    ]  # fmt: skip
    # 4 does not divide 10: dynamic rows; 8 divides 16: static columns.
    min_op = inner.body.ops[0]
    assert str(min_op.map) == "(d0) -> (-d0 + 10, 4)"
    tiled = result.tiled_ops[0]
    assert [str(v.type) for v in tiled.operands] == [
        "tensor<?x8xf32>", "tensor<8x8xf32>", "tensor<?x8xf32>",
    ]  # fmt: skip
    assert tiled.iterator_types() == ["parallel", "parallel", "reduction"]
    assert module.body.first_op.entry_block.ops[-1].operands[0] is outer.results[0]
    assert not any(op.name == "linalg.matmul" for op in module.walk())


def test_dividing_tile_sizes_keep_static_shapes():
    module = parse(MATMUL)
    result = tile_linalg_op(the_matmul(module), [5, 8, 4])
    assert not any(op.name == "affine.min" for op in module.walk())
    assert [str(v.type) for v in result.tiled_ops[0].operands] == [
        "tensor<5x4xf32>", "tensor<4x8xf32>", "tensor<5x8xf32>",
    ]  # fmt: skip
    inputs = random_matmul_inputs(3)
    a, b, c = inputs
    np.testing.assert_allclose(interpret(module, *inputs), c + a @ b, rtol=1e-5, atol=1e-5)


def test_tile_larger_than_the_loop_is_one_static_tile():
    module = parse(MATMUL)
    result = tile_linalg_op(the_matmul(module), [32, 0, 0])
    assert result.tile_counts == (1, 1, 1)
    assert str(result.tiled_ops[0].operands[0].type) == "tensor<10x8xf32>"


def test_report_numbers_of_a_tiling():
    module = parse(MATMUL)
    result = tile_linalg_op(the_matmul(module), [4, 8, 3])
    assert result.loop_sizes == (10, 16, 8)
    assert result.tile_counts == (3, 2, 3) and result.total_tiles == 18
    assert result.loop_kinds == ["parallel", "parallel", "reduction"]
    assert result.footprints == {"ins0 %a": (4, 3), "ins1 %b": (3, 8), "outs0 %c": (4, 8)}


def test_reduction_loop_is_sequential_and_exact():
    # Tiling k keeps the order of the additions, so the result is bit for bit the same.
    module = parse(MATMUL)
    tile_linalg_op(the_matmul(module), [0, 0, 3])
    inputs = random_matmul_inputs(4)
    expected = interpret(parse(MATMUL), *inputs)
    np.testing.assert_allclose(interpret(module, *inputs), expected, rtol=1e-6, atol=1e-6)


def test_conv_input_slice_is_the_strided_footprint():
    module, inputs = build("conv2d_stride2", seed=5)
    conv = next(op for op in module.walk() if op.name == "linalg.conv_2d_nhwc_hwcf")
    result = tile_linalg_op(conv, [0, 2, 2, 0])
    # 2 output rows/cols with stride 2 and 3 taps read 2 * 2 + 1 = 5 input rows/cols.
    assert result.footprints["ins0 %x"] == (1, 5, 5, 3)
    assert str(result.tiled_ops[0].operands[0].type) == "tensor<1x5x?x3xf32>"
    check_numbers("conv2d_stride2", module, inputs)


@pytest.mark.parametrize("shape", [(7, 5, 6), (3, 2, 4), (1, 1, 1)])
def test_dynamic_shapes_use_tensor_dim(shape):
    m, k, n = shape
    module = parse(DYNAMIC_MATMUL)
    matmul = the_matmul(module)
    result = tile_linalg_op(matmul, [4, 3, 2])
    assert result.loop_sizes == (None, None, None) and result.total_tiles is None
    assert sum(op.name == "tensor.dim" for op in module.walk()) == 3
    rng = np.random.default_rng(6)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in [(m, k), (k, n), (m, n)])
    np.testing.assert_allclose(interpret(module, a, b, c), c + a @ b, rtol=1e-5, atol=1e-5)


def test_linalg_index_counts_from_the_tile_offset():
    module, inputs = build("index_payload", seed=7)
    generic = linalg_ops(module)[0]
    tile_linalg_op(generic, [2, 4])
    applies = [op for op in module.walk() if op.name == "affine.apply"]
    assert len(applies) == 2  # one per linalg.index of a tiled loop
    check_numbers("index_payload", module, inputs)


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)),
    tiles=st.lists(st.integers(0, 7), min_size=0, max_size=3),
)
def test_any_matmul_tiling_computes_the_product(shape, tiles):
    m, k, n = shape
    rng = np.random.default_rng(8)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    module = trace(lambda x, y: x @ y, a, b)
    TilePass(tiles).run(module)
    module.verify()
    np.testing.assert_allclose(interpret(module, a, b), a @ b, rtol=1e-5, atol=1e-5)


@settings(max_examples=15, deadline=None)
@given(tiles=st.lists(st.integers(0, 6), min_size=7, max_size=7))
def test_any_conv_tiling_computes_the_convolution(tiles):
    module, (x, w) = build("conv2d_stride2", seed=9)
    conv = next(op for op in module.walk() if op.name == "linalg.conv_2d_nhwc_hwcf")
    result = tile_linalg_op(conv, tiles)
    assert result.tiled == any(tiles)
    module.verify()
    np.testing.assert_allclose(
        interpret(module, x, w), conv_reference(x, w, 2), rtol=1e-4, atol=1e-4
    )
