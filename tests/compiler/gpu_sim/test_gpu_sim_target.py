"""``target="gpu-sim"``: every kernel as gpu.launch_func kernels on the SIMT simulator.

1. Every kernel of the catalogue, at odd shapes (partial blocks: sizes 1, 7, 13...) and
   at random shapes, in f32, f16 and bf16, equals the float64 numpy reference; every
   launch left counters and an estimate. A row is shared by a block's threads (shuffles,
   shared memory, barriers); a partial block is guarded.
2. The ``loops`` module (a ``gpu.module`` per kernel, ``gpu.launch_func`` on the host)
   is accepted by ``mlir-opt-22 --verify-each``.
3. ``print(program)`` lists each kernel's mapping; the host keeps only allocations,
   copies and launches.
4. A kernel that cannot be mapped is a ``CompileError`` naming it and a target that runs it.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinycomp
import tinycomp.compiler.gpu_targets  # noqa: F401  (registers target "gpu-sim")
from tinycomp import CompileError, CompileOptions
from tinycomp.frontend import TensorSpec
from tinycomp.testing import DTYPES, KERNELS, check_against_reference

ODD = {
    "softmax": {"rows": 7, "cols": 13},
    "layernorm": {"rows": 13, "cols": 1},
    "rmsnorm": {"rows": 1, "cols": 37},
    "matmul": {"m": 13, "k": 7, "n": 19},
    "batch_matmul": {"batch": 3, "m": 7, "k": 1, "n": 13},
    "conv2d": {"n": 1, "h": 7, "w": 5, "c": 3, "f": 5, "kh": 3, "kw": 3},
    "conv2d_plain": {"n": 2, "h": 6, "w": 7, "c": 1, "f": 3, "kh": 2, "kw": 3},
    "attention": {"batch": 2, "l": 7, "s": 13, "d": 5, "dv": 3},
    "mlp2": {"m": 7, "k": 13, "hidden": 5, "n": 3},
}


THREAD_PER_ELEMENT = CompileOptions(strategies={"block-tiles": False})
"""The mapping of a thread per output element for contractions too."""


def _compile(
    name: str, dtype: str, shape: dict[str, int], options: CompileOptions | None = None
) -> tinycomp.CompiledProgram:
    trace = KERNELS[name].trace(dtype, **shape)
    return tinycomp.compile(trace, target="gpu-sim", options=options)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_kernel_at_odd_shapes_equals_numpy(name, dtype):
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(11), dtype, **ODD[name])
    program = _compile(name, dtype, ODD[name])
    check_against_reference(kernel, program(*inputs), inputs, dtype)
    launches = program.native.launches
    assert launches
    for launch in launches:
        assert launch.counters.total("global_store_requests") > 0 and launch.estimate.seconds > 0


@st.composite
def instances(draw):
    name = draw(st.sampled_from(sorted(KERNELS)))
    shape = {k: min(v, 20) for k, v in draw(KERNELS[name].shape_strategy()).items()}
    if KERNELS[name].shape_problem(shape) is not None:
        shape = ODD[name]
    return name, shape, draw(st.sampled_from(list(DTYPES)))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, 2**32 - 1))
def test_random_shapes_equal_numpy(instance, seed):
    name, shape, dtype = instance
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(seed), dtype, **shape)
    program = _compile(name, dtype, shape)
    check_against_reference(kernel, program(*inputs), inputs, dtype)


def test_a_partial_block_is_guarded_and_the_grid_covers_the_output():
    x = np.random.default_rng(1).standard_normal((300,)).astype(np.float32)
    program = tinycomp.compile(lambda x: x * 3.0, x, target="gpu-sim")
    np.testing.assert_allclose(program(x), x * 3.0, rtol=1e-6)
    (launch,) = program.native.launches
    assert launch.grid == (2, 1, 1) and launch.block == (256, 1, 1)
    assert "scf.if" in program.stages["loops"] and "gpu.block_id  x" in program.stages["loops"]


def test_per_thread_temporaries_are_private_and_views_are_folded():
    text = _compile("matmul", "f32", ODD["matmul"], THREAD_PER_ELEMENT).stages["loops"]
    kernel, host = text.split("func.func @main")
    assert "gpu.module @main_kernel" in kernel and "kernel {" in kernel
    assert "private(%arg3 : memref<1x1xf32, #gpu.address_space<private>>)" in kernel
    assert "memref.subview" not in kernel and "memref.copy" not in kernel
    assert "gpu.launch_func" in host and "scf.for" not in host


def test_a_row_is_shared_by_a_block_and_reduced_through_shared_memory():
    kernel = KERNELS["softmax"]
    inputs = kernel.make_inputs(np.random.default_rng(5), "f32", rows=3, cols=100)
    program = tinycomp.compile(kernel.fn, *inputs, target="gpu-sim")
    check_against_reference(kernel, program(*inputs), inputs, "f32")
    (launch,) = program.native.launches
    assert launch.grid == (3, 1, 1) and launch.block == (128, 1, 1)
    assert launch.counters.total("barriers") > 0
    assert launch.counters.total("shared_store_requests") > 0
    text = program.stages["loops"]
    assert "workgroup(" in text and "memref<4xf32, #gpu.address_space<workgroup>>" in text
    assert "step %c128" in text  # the threads stride over the row
    assert text.count("gpu.shuffle  xor") == 2 * 5  # two reductions: max and sum


@pytest.mark.mlir
@pytest.mark.skipif(shutil.which("mlir-opt-22") is None, reason="mlir-opt-22 is not installed")
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_mlir_opt_verifies_the_gpu_module(name, tmp_path):
    path = tmp_path / f"{name}.mlir"
    path.write_text(_compile(name, "f32", ODD[name]).stages["loops"])
    done = subprocess.run(
        ["mlir-opt-22", "--verify-each", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "gpu.launch_func" in done.stdout


def test_print_lists_each_kernels_mapping():
    program = _compile("matmul", "f32", ODD["matmul"], THREAD_PER_ELEMENT)
    text = str(program)
    assert "%matmul: contraction (a thread per output element of 13x19" in text
    assert "blocks of 16x16 threads, grid 2x1" in text
    assert "gpu-kernel-outlining" in text
    rows = str(_compile("softmax", "f32", ODD["softmax"]))
    assert ": rows (a block per row of 13, 32 threads striding over it, its reductions by " in rows


def test_a_kernel_without_parallel_loops_is_a_compile_error_naming_a_target():
    with pytest.raises(CompileError, match=r"%\w+.*no parallel loop.*'cpu' or 'interp'"):
        tinycomp.compile(lambda x: x.sum(), TensorSpec((7, 5)), target="gpu-sim")


def test_unforced_mapping_still_refuses_to_leave_a_kernel_on_the_host():
    with pytest.raises(CompileError, match=r"left on the host.*'cpu' or 'interp'"):
        tinycomp.compile(
            lambda x: x.sum(), TensorSpec((7, 5)), target="gpu-sim", options=CompileOptions()
        )


def test_the_preset_changes_the_estimate_not_the_result():
    x = np.random.default_rng(2).standard_normal((64, 64)).astype(np.float32)
    program = tinycomp.compile(lambda x: x + 1.0, x, target="gpu-sim")
    on_a100 = program(x)
    a100 = program.native.launches[0].estimate.seconds
    program.native.preset = "classroom"
    np.testing.assert_array_equal(program(x), on_a100)
    assert program.native.launches[0].estimate.seconds != a100
