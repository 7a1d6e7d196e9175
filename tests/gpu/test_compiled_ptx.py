"""``compiled_ptx`` and ``compiled_amdgpu``: every catalogue kernel compiled for
``gpu-sim`` goes through LLVM to PTX (sm_80, sm_90) that ptxas assembles without spills,
and to AMDGPU assembly; the GEMM's PTX stages tiles in shared memory between barriers and
multiplies with FFMAs, softmax's reduces its rows with butterfly shuffles."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import tinycomp
from tinycomp.codegen.gpu.ptxas import ptxas_unavailable
from tinycomp.compiler.program import CompiledProgram
from tinycomp.gpu.compiled_ptx import compiled_amdgpu, compiled_ptx, kernel_names
from tinycomp.testing.kernels import KERNELS

HAVE_PTXAS = ptxas_unavailable() is None


@cache
def _program(kernel: str, dtype: str) -> CompiledProgram:
    inputs = KERNELS[kernel].make_inputs(np.random.default_rng(7), dtype)
    return tinycomp.compile(KERNELS[kernel].fn, *inputs, target="gpu-sim")


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_every_catalogue_kernel_compiles_to_ptx_and_amdgpu(kernel: str, dtype: str) -> None:
    program = _program(kernel, dtype)
    names = kernel_names(program.ir())
    assert names, f"{kernel} compiled to no gpu.func kernel"
    for arch in ("sm_80", "sm_90"):
        kernels = compiled_ptx(program, arch)
        assert list(kernels) == names
        for name, compiled in kernels.items():
            assert f".target {arch}" in compiled.ptx
            assert f".entry {name}(" in compiled.ptx
            assert ".extern" not in compiled.ptx, f"{name} calls a function PTX cannot resolve"
            if HAVE_PTXAS:
                assert compiled.resources is not None, compiled.note
                assert compiled.resources.spill_stores == 0, str(compiled)
                assert compiled.resources.spill_loads == 0, str(compiled)
    amdgpu = compiled_amdgpu(program, "gfx90a")
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"' in amdgpu
    for name in names:
        assert f".amdhsa_kernel {name}" in amdgpu


def test_matmul_ptx_stages_tiles_in_shared_memory_and_uses_ffma() -> None:
    (gemm,) = compiled_ptx(_program("matmul", "f32"), "sm_90").values()
    assert gemm.lines("ld.shared"), "the GEMM reads no tile from shared memory"
    assert gemm.lines("st.shared"), "the GEMM writes no tile to shared memory"
    assert gemm.lines("bar.sync"), "the GEMM has no barrier between its tiles"
    assert gemm.lines("fma.rn.f32"), "the GEMM's multiply-adds were not contracted"


def test_softmax_ptx_reduces_rows_with_butterfly_shuffles() -> None:
    (row,) = compiled_ptx(_program("softmax", "f32"), "sm_80").values()
    assert row.lines("shfl.sync.bfly"), "softmax's row reduction has no warp shuffle"
    assert not row.lines("ex2.approx"), "exp is expected as a polynomial, not the SFU's ex2"


def test_without_contraction_there_is_no_ffma() -> None:
    (gemm,) = compiled_ptx(_program("matmul", "f32"), "sm_80", fmad=False).values()
    assert not gemm.lines("fma.rn.f32")
    assert gemm.lines("mul.rn.f32") or gemm.lines("mul.f32")


def test_a_program_of_another_target_is_refused() -> None:
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    program = tinycomp.compile(lambda x: x * 2.0, x, target="interp")
    with pytest.raises(ValueError, match='target="gpu-sim", got one for target="interp"'):
        compiled_ptx(program)
    with pytest.raises(TypeError, match="got str"):
        compiled_ptx("not a program")  # type: ignore[arg-type]


def test_an_unknown_architecture_is_refused() -> None:
    with pytest.raises(ValueError, match="expected an NVPTX architecture .* got 'sm_70'"):
        compiled_ptx(_program("softmax", "f32"), "sm_70")
