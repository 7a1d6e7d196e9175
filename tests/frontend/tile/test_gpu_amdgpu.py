"""Triton's tutorial kernels, written in the tile DSL, as AMDGPU code: the gpu IR the
tile lowering makes goes through the same LLVM path as PTX, to gfx90a and gfx942
assembly (with the cross-lane reads and the barriers those chips use) and to an ELF
code object."""

import numpy as np
import pytest

from tinycomp.codegen.gpu.machine_code import amdgpu_assembly, amdgpu_object
from tinycomp.frontend.tile.gpu_launch import gpu_module
from tinycomp.testing.tile_tutorials import (
    add_kernel,
    attention_fwd,
    layer_norm_fwd,
    matmul_kernel,
    softmax_kernel,
)


def tutorial_modules():
    v = np.zeros(4096, np.float32)
    rows = np.zeros((64, 1000), np.float32)
    a = np.zeros((256, 256), np.float16)
    q = np.zeros((2, 128, 64), np.float16)
    w = np.zeros(1000, np.float32)
    stats = np.zeros(64, np.float32)
    return {
        "add_kernel": gpu_module(add_kernel, v, v, v, 4096, BLOCK=1024, num_warps=4),
        "softmax_kernel": gpu_module(
            softmax_kernel, rows, rows, 1000, 1000, 1000, BLOCK_SIZE=1024, num_warps=8
        ),
        "layer_norm_fwd": gpu_module(
            layer_norm_fwd, rows, rows, w, w, stats, stats, 1000, 1000, 1e-5,
            BLOCK_SIZE=256, num_warps=4,
        ),
        "matmul_kernel": gpu_module(
            matmul_kernel, a, a, a, 256, 256, 256, 256, 1, 256, 1, 256, 1, num_warps=4,
            BLOCK_SIZE_M=128, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
        ),
        "attention_fwd": gpu_module(
            attention_fwd, q, q, q, q, 128, 64, 128 * 64, 0.125,
            HEAD_DIM=64, BLOCK_M=32, BLOCK_N=32, num_warps=4,
        ),
    }  # fmt: skip


MODULES = tutorial_modules()


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942"])
@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_tutorial_kernel_becomes_amdgpu_assembly(name, arch):
    text = amdgpu_assembly(MODULES[name], arch)
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}"' in text
    assert ".amdhsa_kernel" in text
    assert "global_load" in text and "global_store" in text
    if name != "add_kernel":  # a reduction or a dot: cross-lane traffic and barriers
        assert "s_barrier" in text
    if name in ("softmax_kernel", "layer_norm_fwd"):  # two butterflies of 5 steps
        assert text.count("ds_bpermute_b32") >= 10


def test_a_tutorial_kernel_becomes_an_elf_code_object():
    assert amdgpu_object(MODULES["matmul_kernel"], "gfx942")[:4] == b"\x7fELF"
