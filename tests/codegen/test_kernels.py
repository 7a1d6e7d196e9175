"""Every kernel of the catalogue, compiled for the CPU, equals numpy.

``tinycomp.compile(..., stop_after="loops")`` lowers each kernel (softmax, layernorm,
rmsnorm, matmul, batch matmul, two conv2d, attention, a 2-layer MLP) to loops on
memrefs; ``compile_for_cpu`` JIT-compiles them and the native outputs are checked
against the float64 numpy reference within the dtype's tolerance, on random inputs:

* at the default shape and at an odd one, untiled and tiled with sizes that do not
  divide the shapes, in f32, f16 and bf16, at O0 (the code mirrors the IR);
* at O3 (unrolled and vectorized by LLVM) for every kernel and dtype at the odd shape;
* and on shapes, tile sizes and dtypes drawn by hypothesis.

f16 and bf16 are computed as the IR says: every op rounds to the 16-bit type (LLVM
promotes each op to float and rounds back), like the interpreter; no wider accumulators.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp import CompileOptions
from tinycomp.codegen.cpu.program import compile_for_cpu
from tinycomp.testing import DTYPES, KERNELS, check_against_reference

ODD = {
    "softmax": {"rows": 7, "cols": 13},
    "layernorm": {"rows": 5, "cols": 11},
    "rmsnorm": {"rows": 9, "cols": 5},
    "matmul": {"m": 7, "k": 13, "n": 5},
    "batch_matmul": {"batch": 3, "m": 5, "k": 9, "n": 7},
    "conv2d": {"n": 1, "h": 9, "w": 7, "c": 3, "f": 5, "kh": 3, "kw": 3},
    "conv2d_plain": {"n": 2, "h": 7, "w": 5, "c": 3, "f": 2, "kh": 3, "kw": 2},
    "attention": {"batch": 1, "l": 5, "s": 7, "d": 3, "dv": 5},
    "mlp2": {"m": 3, "k": 7, "hidden": 9, "n": 5},
}
NON_DIVIDING_TILES = (3, 5)


def run_native(name, dtype, shape, tile_sizes=(), opt_level=0, seed=0):
    """Compile kernel ``name`` to loops and then for the CPU; return (outputs, inputs)."""
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(seed), dtype, **shape)
    options = CompileOptions(tile_sizes=tuple(tile_sizes))
    loops = tinycomp.compile(kernel.trace(dtype, **shape), options=options, stop_after="loops")
    program = compile_for_cpu(loops.module, "main", loops.result_shapes, opt_level=opt_level)
    return program(*inputs), inputs


def check(name, dtype, outputs, inputs, what):
    try:
        check_against_reference(KERNELS[name], outputs, inputs, dtype)
    except AssertionError as error:
        raise AssertionError(f"{name} {dtype} ({what}): {error}") from None


def test_odd_shapes_are_valid_and_odd():
    for name, shape in ODD.items():
        assert KERNELS[name].shape(**shape) == shape
        assert any(size % 2 for size in shape.values()), name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_kernel_at_o0(name, dtype):
    for shape_name, shape in (("default", {}), ("odd", ODD[name])):
        for tiles in ((), NON_DIVIDING_TILES):
            outputs, inputs = run_native(name, dtype, shape, tiles, opt_level=0, seed=len(tiles))
            check(name, dtype, outputs, inputs, f"{shape_name} shape, tiles {tiles}, O0")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_kernel_at_o3(name, dtype):
    tiles = NON_DIVIDING_TILES if dtype == "f32" else ()
    outputs, inputs = run_native(name, dtype, ODD[name], tiles, opt_level=3, seed=7)
    check(name, dtype, outputs, inputs, f"odd shape, tiles {tiles}, O3")


@st.composite
def instances(draw):
    name = draw(st.sampled_from(sorted(KERNELS)))
    shape = draw(KERNELS[name].shape_strategy())
    tiles = draw(st.lists(st.integers(0, 9), min_size=0, max_size=3))
    dtype = draw(st.sampled_from(list(DTYPES)))
    opt_level = draw(st.sampled_from([0, 2]))
    return name, shape, tuple(tiles), dtype, opt_level


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, 2**16))
def test_drawn_shapes_tiles_and_dtypes(instance, seed):
    name, shape, tiles, dtype, opt_level = instance
    outputs, inputs = run_native(name, dtype, shape, tiles, opt_level, seed)
    check(name, dtype, outputs, inputs, f"shape {shape}, tiles {tiles}, O{opt_level}")
