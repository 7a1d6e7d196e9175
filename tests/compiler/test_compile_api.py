"""``tinycomp.compile``: stages, options, the compiled program, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import tinycomp
from tinycomp import CompileError, CompileOptions
from tinycomp.compiler import STAGES
from tinycomp.frontend import TensorSpec, exp, softmax
from tinycomp.passes import Pass

STAGE_NAMES = [stage.name for stage in STAGES]


def scaled_exp(x):
    return exp(x * 0.5) + 1.0


@pytest.fixture
def x():
    return np.random.default_rng(7).standard_normal((6, 10)).astype(np.float32)


@pytest.mark.parametrize("stop_after", STAGE_NAMES)
def test_stop_after_keeps_the_stages_up_to_it(x, stop_after):
    program = tinycomp.compile(softmax, x, stop_after=stop_after)
    assert list(program.stages) == STAGE_NAMES[: STAGE_NAMES.index(stop_after) + 1]
    assert program.last_stage == stop_after
    expected = np.exp(x - x.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    np.testing.assert_allclose(program(x), expected, rtol=1e-5, atol=1e-6)


def test_every_stage_is_kept_as_text_and_can_be_run(x):
    program = tinycomp.compile(scaled_exp, x, options=CompileOptions(tile_sizes=(4, 4)))
    expected = np.exp(x * 0.5) + 1.0
    for stage in STAGE_NAMES:
        assert "func.func @main" in program.stages[stage]
        np.testing.assert_allclose(program.run(x, stage=stage), expected, rtol=1e-6)
    assert "tensor.extract_slice" in program.stages["tiled"]
    assert "memref" in program.stages["bufferized"] and "tensor<" not in program.stages["loops"]
    assert "scf.for" in program.stages["loops"] and "linalg." not in program.stages["loops"]


def test_summary_is_one_line_per_stage(x):
    program = tinycomp.compile(softmax, x)
    lines = str(program).splitlines()
    assert lines[0] == 'tinycomp.compile(@main, target="interp")'
    assert [line.split()[0] for line in lines[2:]] == STAGE_NAMES
    assert program.counts["fused"]["kernels"] < program.counts["generalized"]["kernels"]


def test_fusion_off_keeps_the_kernels(x):
    fused = tinycomp.compile(softmax, x, stop_after="fused")
    unfused = tinycomp.compile(softmax, x, stop_after="fused", options=CompileOptions(fusion=False))
    assert unfused.counts["fused"]["kernels"] == unfused.counts["generalized"]["kernels"]
    assert fused.counts["fused"]["kernels"] < unfused.counts["fused"]["kernels"]
    np.testing.assert_allclose(fused(x), unfused(x), rtol=1e-6)


def test_a_module_or_its_text_compiles_like_the_function(x):
    traced = tinycomp.trace(scaled_exp, x)
    from_text = tinycomp.compile(str(traced))
    from_module = tinycomp.compile(traced)
    np.testing.assert_array_equal(from_text(x), from_module(x))
    np.testing.assert_allclose(from_text(x), np.exp(x * 0.5) + 1.0, rtol=1e-6)


def test_extra_passes_run_after_their_stage(x):
    class CountKernels(Pass):
        name = "count-kernels"
        summary = "count linalg.generic ops"

        def run(self, op):
            self.statistics["generics"] += sum(o.name == "linalg.generic" for o in op.walk())

    counter = CountKernels()
    program = tinycomp.compile(
        softmax, x, stop_after="fused", options=CompileOptions(extra_passes={"fused": [counter]})
    )
    # after generalization every kernel (fills included) is a linalg.generic
    assert counter.statistics["generics"] == program.counts["fused"]["kernels"]
    assert "count-kernels" in str(program)


def test_binding_names_the_units_in_the_tiled_ir(x):
    options = CompileOptions(tile_sizes=(2, 5), bind=("gpu.block.y", "gpu.block.x"))
    program = tinycomp.compile(scaled_exp, x, options=options, stop_after="tiled")
    assert 'tinycomp.bind = "gpu.block.y"' in program.stages["tiled"]
    assert 'tinycomp.bind = "gpu.block.x"' in program.stages["tiled"]
    np.testing.assert_allclose(program(x), np.exp(x * 0.5) + 1.0, rtol=1e-6)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda x: tinycomp.compile(softmax, x, target="tpu"), "unknown target 'tpu'"),
        (lambda x: tinycomp.compile(softmax, x, stop_after="tilled"), "did you mean 'tiled'"),
        (lambda x: tinycomp.compile(softmax), "needs example arguments"),
        (lambda x: tinycomp.compile(tinycomp.trace(softmax, x), x), "only used to trace"),
        (lambda x: tinycomp.compile(42), "found int"),
        (
            lambda x: tinycomp.compile(
                softmax, x, options=CompileOptions(extra_passes={"fuse": []})
            ),
            "extra_passes key='fuse' is not a stage",
        ),
    ],
)
def test_bad_requests_are_compile_errors(x, call, message):
    with pytest.raises(CompileError, match=message):
        call(x)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tile_sizes": (4, -2)}, "a tile size must be >= 0"),
        ({"bind": ("gpu.block.x",)}, "there are no tile loops to bind"),
        ({"tile_sizes": (4,), "bind": ("gpu.block.x", "gpu.block.y")}, "2 entries for 1"),
        ({"reduction_tiling": "parallel"}, "expected 'sequential' or 'partials'"),
    ],
)
def test_contradicting_options_are_refused(kwargs, message):
    with pytest.raises(CompileError, match=message):
        CompileOptions(**kwargs)


def test_calling_with_the_wrong_arguments_says_so(x):
    program = tinycomp.compile(scaled_exp, x)
    with pytest.raises(CompileError, match="takes 1 arrays, got 2"):
        program(x, x)
    with pytest.raises(Exception, match="6x10"):
        program(np.ones((3, 3), np.float32))


def test_ir_of_a_stage_that_did_not_run_is_an_error(x):
    program = tinycomp.compile(scaled_exp, TensorSpec((6, 10)), stop_after="fused")
    with pytest.raises(CompileError, match="stage 'loops' did not run"):
        program.ir("loops")
