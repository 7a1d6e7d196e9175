"""The gpu and nvvm ops one by one: shuffles of every width, votes, reductions, elections,
atomics, address spaces, and the errors for what a target cannot do."""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import pytest

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.gpu import (
    AMDGPUHooks,
    NVPTXHooks,
    amdgpu_assembly,
    emit_device_llvm,
    gpu_target_machine,
    ptx,
)
from tinycomp.codegen.llvm import emit_llvm
from tinycomp.ir import parse


def kernel(body: str, arguments: str = "", attributions: str = "") -> str:
    """A one-kernel gpu.module around ``body``."""
    return (
        "gpu.module @m {\n"
        f"  gpu.func @k({arguments}){attributions} kernel {{\n{body}\n    gpu.return\n  }}\n}}"
    )


def shuffle_kernel(type_: str, mode: str = "xor") -> str:
    return kernel(
        "    %c0 = arith.constant 0 : index\n"
        "    %one = arith.constant 1 : i32\n"
        "    %w = arith.constant 32 : i32\n"
        f"    %x = memref.load %buf[%c0] : memref<4x{type_}>\n"
        f"    %r, %ok = gpu.shuffle  {mode} %x, %one, %w : {type_}\n"
        f"    memref.store %r, %buf[%c0] : memref<4x{type_}>",
        f"%buf: memref<4x{type_}>",
    )


def calls(text: str, pattern: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "call" in line and pattern in line]


@pytest.mark.parametrize(
    "mode, kind", [("xor", "bfly"), ("up", "up"), ("down", "down"), ("idx", "idx")]
)
def test_gpu_shuffle_modes_become_shfl_sync(mode: str, kind: str) -> None:
    text = ptx(shuffle_kernel("f32", mode))
    assert re.search(rf"shfl\.sync\.{kind}\.b32\s+%r\d+\|%p\d+", text)


@pytest.mark.parametrize("type_", ["f64", "i64"])
def test_a_64_bit_shuffle_is_two_32_bit_shuffles(type_: str) -> None:
    llvm_ir = emit_device_llvm(shuffle_kernel(type_), NVPTXHooks()).text
    assert len(calls(llvm_ir, "@llvm.nvvm.shfl.sync.bfly.i32p")) == 2
    assert len(re.findall(r"shfl\.sync\.bfly\.b32", ptx(shuffle_kernel(type_)))) == 2


@pytest.mark.parametrize("type_", ["f16", "bf16", "i32"])
def test_narrower_shuffles_are_one_32_bit_shuffle(type_: str) -> None:
    assert len(re.findall(r"shfl\.sync\.bfly\.b32", ptx(shuffle_kernel(type_)))) == 1


def test_amdgpu_shuffles_through_ds_bpermute_with_64_lanes() -> None:
    text = amdgpu_assembly(shuffle_kernel("f32"), "gfx942")
    assert "ds_bpermute_b32" in text and "v_mbcnt_hi_u32_b32" in text


def test_shuffle_width_below_32_sets_the_segment_clamp() -> None:
    module = shuffle_kernel("f32", "down").replace(
        "arith.constant 32 : i32", "arith.constant 8 : i32"
    )
    text = ptx(module)
    assert re.search(r"shfl\.sync\.down\.b32\s+\S+, \S+, 1, 6175, -1;", text)  # (24 << 8) | 31


def test_votes_and_reductions() -> None:
    module = kernel(
        "    %all = arith.constant -1 : i32\n"
        "    %any = nvvm.vote.sync  any %all, %p -> i1\n"
        "    %every = nvvm.vote.sync  all %all, %p -> i1\n"
        "    %sum = nvvm.redux.sync  add %v, %all : i32 -> i32\n"
        "    %top = nvvm.redux.sync  umax %v, %all : i32 -> i32\n"
        "    nvvm.bar.warp.sync %all : i32",
        "%p: i1, %v: i32",
    )
    text = ptx(module)
    for instruction in ("vote.sync.any.pred", "vote.sync.all.pred", "redux.sync.add.s32",
                        "redux.sync.max.u32", "bar.warp.sync"):  # fmt: skip
        assert instruction in text, instruction


def test_float_redux_needs_sm_100a() -> None:
    module = kernel(
        "    %all = arith.constant -1 : i32\n    %m = nvvm.redux.sync  fmax %f, %all : f32 -> f32",
        "%f: f32",
    )
    with pytest.raises(CodegenError, match=r"'nvvm.redux.sync' at line 4.*sm_100a.*sm_90"):
        ptx(module, "sm_90")


def test_elect_sync_on_sm_90_and_a_clear_error_on_sm_80() -> None:
    module = kernel("    %one = nvvm.elect.sync -> i1")
    assert "elect.sync" in ptx(module, "sm_90")
    with pytest.raises(CodegenError, match=r"'nvvm.elect.sync' at line 3.*sm_90.*sm_80"):
        ptx(module, "sm_80")


def test_atomics_in_global_and_shared_memory() -> None:
    module = kernel(
        "    %c0 = arith.constant 0 : index\n"
        "    %a = memref.atomic_rmw addf %v, %h[%c0] : (f32, memref<8xf32>) -> f32\n"
        "    %b = memref.atomic_rmw maxs %n, %s[%c0] : "
        "(i32, memref<8xi32, #gpu.address_space<workgroup>>) -> i32\n"
        "    %c = memref.atomic_rmw mulf %v, %h[%c0] : (f32, memref<8xf32>) -> f32",
        "%h: memref<8xf32>, %v: f32, %n: i32",
        " workgroup(%s : memref<8xi32, #gpu.address_space<workgroup>>)",
    )
    text = ptx(module)
    assert "atom.global.add.f32" in text and "atom.shared.max.s32" in text
    assert "atom.relaxed.sys.global.cas.b32" in text  # mulf has no atomic instruction: a CAS loop


def test_generic_atomic_rmw_is_a_compare_and_swap_loop() -> None:
    module = kernel(
        "    %c0 = arith.constant 0 : index\n"
        "    %old = memref.generic_atomic_rmw %h[%c0] : memref<8xf32> {\n"
        "    ^bb0(%current: f32):\n"
        "      %twice = arith.addf %current, %current : f32\n"
        "      memref.atomic_yield %twice : f32\n"
        "    }",
        "%h: memref<8xf32>",
    )
    llvm_ir = emit_device_llvm(module, NVPTXHooks()).text
    assert "cmpxchg ptr addrspace(1)" in llvm_ir
    assert "atom.relaxed.sys.global.cas.b32" in ptx(module)


def test_private_buffers_are_allocas_in_the_private_address_space() -> None:
    module = kernel(
        "    %c0 = arith.constant 0 : index\n"
        "    memref.store %v, %r[%i] : memref<8xf32, #gpu.address_space<private>>\n"
        "    %x = memref.load %r[%c0] : memref<8xf32, #gpu.address_space<private>>\n"
        "    memref.store %x, %h[%c0] : memref<8xf32>",
        "%h: memref<8xf32>, %v: f32, %i: index",
        " private(%r : memref<8xf32, #gpu.address_space<private>>)",
    )
    assert "alloca [8 x float], align 16\n" in emit_device_llvm(module, NVPTXHooks()).text
    amd = emit_device_llvm(module, AMDGPUHooks()).text
    assert "alloca [8 x float], align 16, addrspace(5)" in amd
    assert "store float %v, ptr addrspace(5)" in amd
    assert ".local" in ptx(module)  # indexed by %i, it stays in local memory


def test_an_underaligned_vector_load_is_split() -> None:
    module = kernel(
        "    %c0 = arith.constant 0 : index\n"
        "    %v = vector.load %x[%c0] {alignment = 4 : i64} : memref<8xf32>, vector<4xf32>\n"
        "    vector.store %v, %y[%c0] : memref<8xf32>, vector<4xf32>",
        "%x: memref<8xf32>, %y: memref<8xf32>",
    )
    text = ptx(module)
    assert "ld.global.v4" not in text and text.count("ld.global.b32") == 4
    assert "st.global.v4.b32" in text


def test_block_and_grid_sizes_on_amdgpu_come_from_the_dispatch_packet() -> None:
    module = kernel(
        "    %c0 = arith.constant 0 : index\n"
        "    %b = gpu.block_dim  x\n    %g = gpu.grid_dim  y\n"
        "    %s = arith.addi %b, %g : index\n"
        "    memref.store %s, %h[%c0] : memref<8xindex>",
        "%h: memref<8xindex>",
    )
    llvm_ir = emit_device_llvm(module, AMDGPUHooks()).text
    assert len(calls(llvm_ir, "@llvm.amdgcn.dispatch.ptr")) == 3
    assert "udiv i32" in llvm_ir
    assert "s_load_dword" in amdgpu_assembly(module)


def test_an_op_without_an_emitter_is_a_codegen_error_naming_it() -> None:
    module = kernel("    %s = gpu.subgroup_reduce  add %v : (f32) -> f32", "%v: f32")
    with pytest.raises(CodegenError, match=r"'gpu.subgroup_reduce' at line 3 .*: no LLVM emitter"):
        ptx(module)


def test_gpu_ops_on_the_cpu_target_are_a_codegen_error() -> None:
    module = "func.func @f() -> index {\n  %t = gpu.thread_id  x\n  return %t : index\n}"
    with pytest.raises(CodegenError, match=r"'gpu.thread_id' at line 2.*needs a GPU target"):
        emit_llvm(parse(module))


def test_a_module_without_device_code_is_a_codegen_error() -> None:
    with pytest.raises(CodegenError, match="expected a gpu.module with at least one gpu.func"):
        ptx("func.func @f() {\n  return\n}")


@pytest.mark.parametrize("hooks", [NVPTXHooks("sm_80"), AMDGPUHooks("gfx942")])
def test_the_data_layouts_are_llvms(hooks) -> None:
    assert hooks.datalayout == str(gpu_target_machine(hooks).target_data)


def test_unknown_architectures_are_refused() -> None:
    with pytest.raises(CodegenError, match="expected an NVPTX arch"):
        NVPTXHooks("sm_70")
    with pytest.raises(CodegenError, match="expected an AMDGPU arch"):
        AMDGPUHooks("gfx1100")


def test_each_emission_parses_afresh() -> None:
    module = parse(shuffle_kernel("f32"))
    assert ptx(module) == ptx(module)  # a second emission from one parsed module would abort
    assert isinstance(
        llvm.parse_assembly(emit_device_llvm(module, NVPTXHooks()).text), llvm.ModuleRef
    )
