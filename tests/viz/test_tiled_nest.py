"""tiled_loop_summary: tiled IR read back as a loop nest, names as printed."""

import numpy as np
import pytest

import tinycomp
from tinycomp.frontend import softmax
from tinycomp.ir import parse
from tinycomp.viz.tiled_nest import tiled_loop_summary


def tiled(fn, *arrays, **options):
    program = tinycomp.compile(
        fn, *arrays, options=tinycomp.CompileOptions(**options), stop_after="tiled"
    )
    return program.ir("tiled")


def test_bound_matmul_nest_golden():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((10, 8), np.float32), rng.standard_normal((8, 16), np.float32)
    module = tiled(lambda a, b: a @ b, a, b, tile_sizes=(4, 8, 4), bind=("gpu.block.y",))
    lines = tiled_loop_summary(module).splitlines()
    assert lines[0] == "func @main(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>)"
    loops = [line.strip() for line in lines if " = for " in line]
    assert loops == [
        "%matmul = for %d0 = 0 to 10 step 4 carrying %arg0 = %1:  # 3 tiles, bound to gpu.block.y",
        "%2 = for %d1 = 0 to 16 step 8 carrying %arg1 = %arg0:  # 2 tiles",
        "%3 = for %d2 = 0 to 8 step 4 carrying %arg2 = %arg1:  # 2 tiles, sequential: carries "
        "a reduction",
    ]
    partial = "        %4 = min(-%d0 + 10, 4)"
    assert f"{partial.ljust(54)}  # affine.min: the last tile is partial" in lines
    slice_b = "        %extracted_slice_0 = %b[%d2, %d1][4, 8]"
    assert f"{slice_b.ljust(54)}  # extract_slice: tensor<4x8xf32>" in lines
    assert lines[-1] == "  return %matmul"  # the loop takes the name of the op it tiles


def test_every_op_of_the_nest_has_a_line_in_order():
    x = np.random.default_rng(1).standard_normal((6, 10)).astype(np.float32)
    module = tiled(softmax, x, tile_sizes=(4,))
    summary = tiled_loop_summary(module)
    names = [line.split(" = ")[0].strip() for line in summary.splitlines() if " = " in line]
    # row tiles: exp's two readers (the row sum, the division) read the same window,
    # so exp and the row max are computed once per tile
    assert names.count("%max") == 1 and names.count("%max_1") == 0
    body = module.body.first_op.entry_block
    loop = next(op for op in body.ops if op.name == "scf.for")
    assert len(summary.splitlines()) == 1 + 1 + sum(
        1 for op in body.ops if op.name != "arith.constant"
    ) + len(loop.body.ops) - 1  # fmt: skip


def test_a_function_alone_and_errors():
    module = parse("func.func @f(%x: f32) -> f32 { return %x : f32 }")
    assert tiled_loop_summary(module.body.first_op) == "func @f(%x: f32)\n  return %x"
    with pytest.raises(TypeError, match="expected a module or a func.func"):
        tiled_loop_summary(module.body.first_op.entry_block.first_op)
