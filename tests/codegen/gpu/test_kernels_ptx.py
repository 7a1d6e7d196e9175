"""Every test kernel and SGEMM worklog kernel through NVPTX and AMDGPU, and what ptxas says."""

from __future__ import annotations

import re

import pytest

from tests.codegen.gpu.kernels import NAMES, kernel_function_name, kernel_module
from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.gpu import (
    AMDGPUHooks,
    NVPTXHooks,
    amdgpu_assembly,
    amdgpu_object,
    emit_device_llvm,
    ptx,
    ptxas_report,
    ptxas_unavailable,
)

NVIDIA_ONLY = {"warp_reduce", "warp_inclusive_scan", "ballot_count"}
"""Kernels written with nvvm warp ops (shfl.sync, vote.sync): NVIDIA's, no AMDGPU code."""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", NAMES)
def test_every_kernel_becomes_ptx(name: str, arch: str) -> None:
    text = ptx(kernel_module(name), arch)
    version = {"sm_80": "7.0", "sm_90": "8.0"}[arch]
    assert f".version {version}" in text and f".target {arch}" in text
    assert f".entry {kernel_function_name(name)}(" in text


@pytest.mark.skipif(ptxas_unavailable() is not None, reason=str(ptxas_unavailable()))
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", NAMES)
def test_ptxas_assembles_every_kernel_without_spills(name: str, arch: str) -> None:
    report = ptxas_report(ptx(kernel_module(name), arch), arch)
    resources = report.kernels[kernel_function_name(name)]
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert 4 <= resources.registers <= 255  # a thread has at most 255 registers


@pytest.mark.skipif(ptxas_unavailable() is not None, reason=str(ptxas_unavailable()))
def test_ptxas_counts_the_shared_buffers() -> None:
    report = ptxas_report(ptx(kernel_module("matmul_tiled"), "sm_80"), "sm_80")
    assert report.kernels["matmul_tiled"].shared_bytes == 2 * 16 * 16 * 4  # two 16x16 f32 tiles


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
@pytest.mark.parametrize("name", [n for n in NAMES if n not in NVIDIA_ONLY])
def test_every_portable_kernel_becomes_amdgpu_assembly(name: str, arch: str) -> None:
    text = amdgpu_assembly(kernel_module(name), arch)
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}' in text
    assert f".amdhsa_kernel {kernel_function_name(name)}" in text


@pytest.mark.parametrize("name", sorted(NVIDIA_ONLY))
def test_nvvm_warp_ops_on_amdgpu_are_a_clear_error(name: str) -> None:
    with pytest.raises(CodegenError, match=r"'nvvm\.(shfl|vote)\.sync' at line \d+.*NVIDIA's"):
        amdgpu_assembly(kernel_module(name), "gfx90a")


def test_amdgpu_object_is_an_elf_code_object() -> None:
    assert amdgpu_object(kernel_module("matmul_tiled"), "gfx942")[:4] == b"\x7fELF"


def test_vectorized_sgemm_loads_float4_from_global_memory() -> None:
    # nvcc writes ld.global.v4.f32; LLVM 22's NVPTX backend writes every load and store
    # with an untyped .b32, the same 128-bit instruction
    text = ptx(kernel_module("sgemm_vectorized"), "sm_80")
    assert "ld.global.v4.b32" in text
    assert "st.global.v4.b32" in text
    assert "ld.shared.v4.b32" in text  # A is transposed in shared memory so it reads float4


def test_kernels_with_a_barrier_have_bar_sync() -> None:
    for name in ("matmul_tiled", "block_reduce", "transpose", "histogram", "sgemm_shared"):
        assert re.search(r"\bbar\.sync\s+0;", ptx(kernel_module(name))), name


def test_shuffle_kernels_use_shfl_sync() -> None:
    assert "shfl.sync.down.b32" in ptx(kernel_module("warp_reduce"))
    assert "shfl.sync.up.b32" in ptx(kernel_module("warp_inclusive_scan"))
    assert "vote.sync.ballot.b32" in ptx(kernel_module("ballot_count"))


_CONVERGENT_CALLEES = re.compile(
    r"call .*@(llvm\.nvvm\.(barrier|bar\.warp|shfl|vote|redux|elect)"
    r"|llvm\.amdgcn\.(s\.barrier|ds\.bpermute))"
)


@pytest.mark.parametrize("name", NAMES)
def test_every_barrier_and_warp_call_is_convergent(name: str) -> None:
    hooks = [NVPTXHooks("sm_90")]
    if name not in NVIDIA_ONLY:
        hooks.append(AMDGPUHooks("gfx90a"))
    for target in hooks:
        calls = [
            line
            for line in emit_device_llvm(kernel_module(name), target).text.splitlines()
            if _CONVERGENT_CALLEES.search(line)
        ]
        for line in calls:
            assert line.rstrip().endswith("convergent"), line
        declarations = [line for line in calls if line.startswith("declare")]
        assert all("convergent" in line for line in declarations)


def test_the_barrier_kernels_do_call_a_convergent_barrier() -> None:
    text = emit_device_llvm(kernel_module("matmul_tiled"), NVPTXHooks()).text
    calls = [line.strip() for line in text.splitlines() if "barrier.cta" in line and "call" in line]
    assert calls and all(c.endswith(") convergent") for c in calls)
