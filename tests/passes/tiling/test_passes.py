"""The passes ``linalg-tile`` and ``linalg-tile-and-fuse``: registry, pass manager, report."""

from __future__ import annotations

import numpy as np

from passes.tiling.programs import build, check_numbers, top_level_ops
from tinycomp.frontend import exp, tanh, trace
from tinycomp.interp import interpret
from tinycomp.passes import PassManager
from tinycomp.passes.registry import lookup_pass
from tinycomp.passes.tiling import TileAndFusePass, TilePass
from tinycomp.passes.tiling.passes import tiling_roots


def test_registered_under_their_names():
    assert lookup_pass("linalg-tile") is TilePass
    assert lookup_pass("linalg-tile-and-fuse") is TileAndFusePass


def test_pass_manager_runs_and_verifies_the_pass_object():
    module, inputs = build("layernorm", seed=50)
    tiling = TileAndFusePass([2, 3])
    result = PassManager().add(tiling).run(module)
    assert [stage.name for stage in result.stages] == ["input", "linalg-tile-and-fuse"]
    assert "scf.for" in result.final_text
    check_numbers("layernorm", module, inputs)


def test_pipeline_text_builds_a_pass_that_tiles_nothing():
    module, _ = build("matmul")
    before = str(module)
    result = PassManager.parse("linalg-tile").run(module)
    assert str(module) == before
    assert [(s.name, s.counts) for s in result.statistics] == [
        ("linalg-tile", {"ops not tiled": 2})
    ]


def test_report_table_for_a_matmul_program():
    module, inputs = build("matmul", seed=51)
    tiling = TilePass([4, 4, 2])
    tiling.run(module)
    assert str(tiling.report).splitlines() == [
        "linalg-tile: 2 of 2 ops tiled",
        "op                       tile sizes  tiles per loop  tiles  tile footprints",
        "'linalg.fill'            [4, 4]      [2, 2]          4      outs0 4x4",
        "    tile sizes [4, 4, 2] cut to the op's 2 loops (as MLIR's tileUsingSCF does)",
        "'linalg.matmul' %matmul  [4, 4, 2]   [2, 2, 3]       12     "
        "ins0 %a 4x2, ins1 %b 2x4, outs0 4x4",
    ]
    assert sorted(tiling.statistics.items()) == [("loops created", 5), ("ops tiled", 2)]
    check_numbers("matmul", module, inputs)


def test_roots_are_the_ops_no_linalg_op_reads():
    module, _ = build("softmax")
    assert [root.results[0].name_hint for root in tiling_roots(module)] == ["div"]
    module, _ = build("matmul")
    assert [root.name for root in tiling_roots(module)] == ["linalg.matmul"]


def test_report_is_reset_on_each_run():
    tiling = TilePass([2, 2])
    for seed in (52, 53):
        module, inputs = build("elementwise_chain", seed=seed)
        tiling.run(module)
        assert len(tiling.report.results) == 5
        check_numbers("elementwise_chain", module, inputs)


def test_missing_tile_sizes_leave_the_inner_loops_whole():
    module, inputs = build("layernorm", seed=54)
    fusion = TileAndFusePass([3])
    fusion.run(module)
    [result] = fusion.report.results
    assert result.tile_sizes == (3, 0) and result.tile_counts == (2, 1)
    check_numbers("layernorm", module, inputs)


def two_results(a):
    """Two roots that share the producer ``a * 2``."""
    shared = a * 2.0
    return exp(shared), tanh(shared)


def test_tile_and_fuse_on_a_program_with_two_roots():
    x = np.random.default_rng(55).standard_normal((5, 6)).astype(np.float32)
    module = trace(two_results, x)
    fusion = TileAndFusePass([2, 4])
    fusion.run(module)
    module.verify()
    assert [r.op for r in fusion.report.results] == [
        "'linalg.generic' %exp",
        "'linalg.generic' %tanh",
    ]
    # the shared producer is recomputed in both nests, and erased once nothing outside reads it
    assert set(top_level_ops(module)) <= {
        "arith.constant",
        "tensor.empty",
        "scf.for",
        "func.return",
    }
    got_exp, got_tanh = interpret(module, x)
    np.testing.assert_allclose(got_exp, np.exp(2 * x), rtol=1e-6)
    np.testing.assert_allclose(got_tanh, np.tanh(2 * x), rtol=1e-6, atol=1e-7)


def test_running_the_pass_again_tiles_the_tiles():
    # Two levels, as a GPU kernel wants them: blocks of 4x4, then 2x2 tiles per thread.
    module, inputs = build("softmax", seed=56)
    TileAndFusePass([4, 4], bind=["gpu.block.y", "gpu.block.x"]).run(module)
    inner = TilePass([2, 2])
    inner.run(module)
    module.verify()
    assert inner.report.not_tiled == [] and len(inner.report.tiled) > 1
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert sum("tinycomp.bind" in loop.attributes for loop in loops) == 2
    check_numbers("softmax", module, inputs)
