"""``gpu.to_ptx`` and ``launch(..., registers="ptxas")``: the kernel DSL through LLVM to PTX,
and ptxas's register count in the occupancy calculator."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp import gpu
from tinycomp.codegen.gpu.ptxas import ptxas_unavailable
from tinycomp.gpu.ptx import allow_contraction
from tinycomp.targets.gpu_sim.occupancy import occupancy
from tinycomp.testing.sgemm_worklog import sgemm_kernel

requires_ptxas = pytest.mark.skipif(
    ptxas_unavailable() is not None, reason=str(ptxas_unavailable())
)


@gpu.kernel
def saxpy(x, y, a, n):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    if i < n:
        y[i] = a * x[i] + y[i]


@gpu.kernel
def block_sum(x, out):
    tile = gpu.shared.array(64, gpu.float32)
    t = gpu.thread_idx.x
    tile[t] = x[gpu.block_idx.x * 64 + t]
    gpu.syncthreads()
    if t < 32:
        v = tile[t] + tile[t + 32]
        v += gpu.shfl_down_sync(0xFFFFFFFF, v, 16)
        v += gpu.shfl_down_sync(0xFFFFFFFF, v, 8)
        if t == 0:
            out[gpu.block_idx.x] = v


def _saxpy_args(n: int = 100) -> tuple:
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, n)).astype(np.float32)
    return x, y, np.float32(2.5), np.int32(n)


def test_ptx_of_a_kernel_has_its_entry_loads_and_stores():
    compiled = gpu.to_ptx(saxpy, _saxpy_args(), preset="h100")
    assert compiled.arch == "sm_90" and ".target sm_90" in compiled.ptx
    assert ".entry saxpy(" in compiled.ptx
    assert compiled.lines("ld.global") and compiled.lines("st.global")
    assert "define ptx_kernel void @saxpy(" in compiled.llvm


def test_barriers_and_shuffles_reach_the_ptx_as_convergent_calls():
    compiled = gpu.to_ptx(block_sum, [np.zeros(128, np.float32), np.zeros(2, np.float32)])
    assert compiled.lines("bar.sync") and compiled.lines("shfl.sync.down")
    cooperative = [
        line for line in compiled.llvm.splitlines() if "shfl.sync" in line or "barrier" in line
    ]
    calls = [line for line in cooperative if "call " in line]
    assert len(calls) == 3  # one barrier, two shuffles
    assert all(line.rstrip().endswith("convergent") for line in cooperative)


@pytest.mark.parametrize(
    ("preset", "arch"), [("h100", "sm_90"), ("a100", "sm_80"), ("a6000", "sm_86")]
)
def test_each_preset_gets_its_architecture(preset: str, arch: str):
    assert gpu.to_ptx(saxpy, _saxpy_args(), preset=preset, assemble=False).arch == arch


@requires_ptxas
def test_ptxas_reports_the_kernels_registers_and_shared_memory():
    compiled = gpu.to_ptx(block_sum, [np.zeros(128, np.float32), np.zeros(2, np.float32)])
    assert compiled.resources is not None and compiled.note is None
    assert 4 <= compiled.resources.registers <= 255
    assert compiled.resources.shared_bytes == 64 * 4
    assert compiled.resources.spill_stores == 0
    assert "ptxas:" in str(compiled)


@requires_ptxas
def test_launch_with_ptxas_registers_feeds_them_to_the_occupancy_calculator():
    step = sgemm_kernel("blocktile_2d")
    n = 128
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    args = (a, b, c, np.int32(n), np.int32(n), np.int32(n), np.float32(1), np.float32(0))
    result = gpu.launch(step.kernel, step.grid(n, n, n), step.block, args, "a6000",
                        registers="ptxas")  # fmt: skip
    assert np.allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert result.ptxas is not None and result.occupancy_registers == result.ptxas.registers
    expected = occupancy(result.preset, 256, result.ptxas.registers, 2 * 128 * 8 * 4)
    assert result.occupancy.blocks_per_sm == expected.blocks_per_sm
    assert "(ptxas)" in str(result)


def test_an_unknown_register_source_is_refused_before_any_array_changes():
    x, y, a, n = _saxpy_args()
    before = y.copy()
    with pytest.raises(gpu.LaunchError, match="expected 'estimate'.*or 'ptxas'"):
        gpu.launch(saxpy, 4, 32, (x, y, a, n), registers="nvcc")
    assert np.array_equal(y, before)


def test_ptxas_registers_without_ptxas_say_why_and_change_nothing(monkeypatch):
    monkeypatch.setenv("PATH", "")
    x, y, a, n = _saxpy_args()
    before = y.copy()
    assert "not on PATH" in (gpu.to_ptx(saxpy, (x, y, a, n)).note or "")
    with pytest.raises(gpu.LaunchError, match="needs ptxas: ptxas is not on PATH"):
        gpu.launch(saxpy, 4, 32, (x, y, a, n), registers="ptxas")
    assert np.array_equal(y, before)


def test_fmad_contracts_multiply_adds_as_nvcc_does_by_default():
    x, y, a, n = _saxpy_args()
    fused = gpu.to_ptx(saxpy, (x, y, a, n), assemble=False)
    separate = gpu.to_ptx(saxpy, (x, y, a, n), assemble=False, fmad=False)
    assert len(fused.lines("fma.rn.f32")) == 1 and not fused.lines("mul.rn.f32", "mul.f32")
    assert not separate.lines("fma.rn.f32") and separate.lines("mul.rn.f32", "mul.f32")
    assert "fastmath<contract>" in str(allow_contraction(saxpy.specialize(x, y, a, n)))
