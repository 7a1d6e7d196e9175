"""Binding tile loops to hardware units: the attribute, its text, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from passes.tiling.programs import build
from tinycomp.interp import interpret
from tinycomp.ir import ir_equal, parse
from tinycomp.passes.errors import PassError
from tinycomp.passes.tiling import (
    BIND_ATTRIBUTE,
    HARDWARE_UNITS,
    TilePass,
    bind_loops,
    tile_linalg_op,
    tile_reduction_with_partials,
)
from tinycomp.passes.tiling.binding import why_not_bindable

MATMUL = """
func.func @main(%a: tensor<8x6xf32>, %b: tensor<6x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<8x6xf32>, tensor<6x8xf32>)
                      outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %mm : tensor<8x8xf32>
}
"""


def tiled_matmul(tiles):
    module = parse(MATMUL)
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    return module, tile_linalg_op(matmul, tiles)


def test_the_units():
    assert list(HARDWARE_UNITS) == [
        "gpu.block.x", "gpu.block.y", "gpu.block.z", "gpu.thread.x", "npu.aicore",
        "npu.vector_subblock",
    ]  # fmt: skip
    assert all(description for description in HARDWARE_UNITS.values())


def test_parallel_loops_get_the_attribute_and_it_round_trips():
    module, result = tiled_matmul([4, 2])
    assert bind_loops(result.loops, ["gpu.block.y", "gpu.block.x"]) == []
    text = str(module)
    assert '} {tinycomp.bind = "gpu.block.y"}' in text
    assert '} {tinycomp.bind = "gpu.block.x"}' in text
    assert ir_equal(parse(text), module)
    rng = np.random.default_rng(40)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in [(8, 6), (6, 8), (8, 8)])
    np.testing.assert_allclose(interpret(module, a, b, c), c + a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_and_keeps_the_binding():
    module, result = tiled_matmul([4, 2])
    bind_loops(result.loops, ["npu.aicore", "npu.vector_subblock"])
    printed = run_mlir_opt(str(module), "--verify-each")
    assert '{tinycomp.bind = "npu.aicore"}' in printed
    assert '{tinycomp.bind = "npu.vector_subblock"}' in printed


def test_reduction_loop_is_refused_with_the_reason():
    module, result = tiled_matmul([4, 0, 3])
    refused = bind_loops(result.loops, ["gpu.block.x", "gpu.thread.x"])
    assert refused == [
        "loop %k not bound to gpu.thread.x: it carries a reduction: every iteration writes the "
        "same window (the tensor.insert_slice offsets do not depend on %k)"
    ]
    assert BIND_ATTRIBUTE not in result.loops[1].attributes


def test_fewer_units_than_loops_bind_the_outer_ones():
    module, result = tiled_matmul([4, 4, 3])
    assert bind_loops(result.loops, ["npu.aicore"]) == []
    assert [BIND_ATTRIBUTE in loop.attributes for loop in result.loops] == [True, False, False]


def test_a_loop_is_bound_once():
    module, result = tiled_matmul([4])
    bind_loops(result.loops, ["gpu.block.x"])
    assert bind_loops(result.loops, ["gpu.block.y"]) == [
        'loop %m not bound to gpu.block.y: it is already bound to "gpu.block.x"'
    ]


@pytest.mark.parametrize(
    ("units", "message"),
    [
        (["gpu.block.w"], "unknown hardware unit 'gpu.block.w'; known units: gpu.block.x"),
        (["gpu.block.x", "gpu.block.x"], "expected each unit once, got 'gpu.block.x'"),
        (["gpu.block.x", "gpu.block.y", "gpu.block.z"], "expected at most one unit per loop"),
    ],
)
def test_bad_units_are_errors(units, message):
    module, result = tiled_matmul([4, 4])
    before = str(module)
    with pytest.raises(PassError, match=message):
        bind_loops(result.loops, units)
    assert str(module) == before


def test_pass_binds_and_reports_per_op():
    module, inputs = build("softmax", seed=41)
    tiling = TilePass([2, 3], bind=["gpu.block.y", "gpu.block.x"])
    tiling.run(module)
    text = str(tiling.report)
    # elementwise ops bind both loops; the row reductions refuse their column loop
    assert "bound: %d0 -> gpu.block.y, %d1 -> gpu.block.x" in text
    assert "loop %d1 not bound to gpu.block.x: it carries a reduction" in text
    assert tiling.statistics["loops bound"] == 2 * 7 - 2


def test_a_partials_loop_with_a_partial_last_tile_is_not_bindable():
    # Its insert_slice *size* (an affine.min of the iv) moves with the loop; its offsets
    # do not: every iteration writes the same partials, so running them in parallel races.
    module = parse(
        """func.func @main(%x: tensor<4x10xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
      %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
           affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
          ins(%x : tensor<4x10xf32>) outs(%init : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %0 = arith.addf %in, %out : f32
        linalg.yield %0 : f32
      } -> tensor<4xf32>
      return %s : tensor<4xf32> }"""
    )
    result = tile_reduction_with_partials(module.body.first_op.entry_block.first_op, [0, 4])
    assert "carries a reduction" in (why_not_bindable(result.loops[0]) or "")
