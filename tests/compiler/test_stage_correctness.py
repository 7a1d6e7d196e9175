"""Every kernel of the catalogue, at every stage of the pipeline, equals numpy.

For softmax, layernorm, rmsnorm, matmul, batch matmul, conv2d NHWC (stride 2, padding 1,
and plain), attention and a 2-layer MLP: compile with tiling on (tile sizes that do not
divide the shapes), run the IR of every stage in the interpreter on random inputs, and
compare with the float64 numpy reference within the dtype's tolerance (f32, f16, bf16).
Hypothesis then draws kernels, shapes, tile sizes and dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp import CompileOptions
from tinycomp.compiler import STAGES
from tinycomp.testing import DTYPES, KERNELS, check_against_reference

STAGE_NAMES = [stage.name for stage in STAGES]

# Small instances: the "loops" stage runs scalar loops in the interpreter.
CONV_SMALL = {"n": 1, "h": 5, "w": 6, "c": 2, "f": 3, "kh": 3, "kw": 2}
SMALL = {
    "softmax": {"rows": 5, "cols": 7},
    "layernorm": {"rows": 5, "cols": 7},
    "rmsnorm": {"rows": 5, "cols": 7},
    "matmul": {"m": 5, "k": 6, "n": 7},
    "batch_matmul": {"batch": 2, "m": 3, "k": 5, "n": 4},
    "conv2d": CONV_SMALL,
    "conv2d_plain": CONV_SMALL,
    "attention": {"batch": 1, "l": 3, "s": 5, "d": 4, "dv": 3},
    "mlp2": {"m": 3, "k": 5, "hidden": 6, "n": 4},
}


def small_shape(kernel_name: str) -> dict[str, int]:
    return dict(SMALL[kernel_name])


def compile_kernel(kernel_name, dtype, tile_sizes, stop_after="loops", **shape):
    module = KERNELS[kernel_name].trace(dtype, **shape)
    options = CompileOptions(tile_sizes=tuple(tile_sizes))
    return tinycomp.compile(module, options=options, stop_after=stop_after)


def test_small_shapes_name_real_sizes():
    for name in KERNELS:
        assert set(SMALL[name]) == set(KERNELS[name].default_shape), name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel_name", sorted(KERNELS))
def test_every_stage_matches_numpy(kernel_name, dtype):
    kernel = KERNELS[kernel_name]
    shape = small_shape(kernel_name)
    inputs = kernel.make_inputs(np.random.default_rng(2024), dtype, **shape)
    program = compile_kernel(kernel_name, dtype, (2, 3), **shape)
    assert list(program.stages) == STAGE_NAMES
    for stage in STAGE_NAMES:
        outputs = program.run(*inputs, stage=stage)
        try:
            check_against_reference(kernel, outputs, inputs, dtype)
        except AssertionError as error:
            raise AssertionError(f"{kernel_name} {dtype} after stage '{stage}': {error}") from None


@st.composite
def instances(draw):
    name = draw(st.sampled_from(sorted(KERNELS)))
    kernel = KERNELS[name]
    shape = draw(kernel.shape_strategy())
    # keep the scalar loops small: shrink every size to at most 6
    shape = {k: min(v, 6) for k, v in shape.items()}
    if kernel.shape_problem(shape) is not None:
        shape = small_shape(name)
    tile_sizes = draw(st.lists(st.integers(0, 7), min_size=1, max_size=3))
    dtype = draw(st.sampled_from(list(DTYPES)))
    return name, shape, tile_sizes, dtype


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, 2**32 - 1))
def test_random_shapes_tile_sizes_and_dtypes(instance, seed):
    name, shape, tile_sizes, dtype = instance
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(seed), dtype, **shape)
    program = compile_kernel(name, dtype, tile_sizes, **shape)
    for stage in ("tiled", "loops"):
        outputs = program.run(*inputs, stage=stage)
        try:
            check_against_reference(kernel, outputs, inputs, dtype)
        except AssertionError as error:
            raise AssertionError(
                f"{name} {shape} {dtype} tiles {tile_sizes}, stage '{stage}': {error}"
            ) from None
