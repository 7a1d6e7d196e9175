"""The renderer is target-agnostic: GPU hooks give address spaces, a kernel keyword and
convergent calls, and LLVM's NVPTX backend turns the result into PTX."""

from __future__ import annotations

import llvmlite.binding as llvm
import pytest

from tinycomp.codegen.llvm import EMITTERS, TargetHooks, emit_llvm

KERNEL = """func.func @k(%x: memref<64xf32>) attributes {gpu.kernel} {
  %t = "test.thread_id"() : () -> index
  %one = arith.constant 1.0 : f32
  "test.barrier"() : () -> ()
  memref.store %one, %x[%t] : memref<64xf32>
  return
}"""


class NVPTXHooks(TargetHooks):
    triple = "nvptx64-nvidia-cuda"

    def address_space(self, memory_space):
        return 1  # global memory

    def function_prefix(self, func_op):
        return "ptx_kernel " if "gpu.kernel" in func_op.attributes else ""

    def is_convergent(self, callee):
        return callee.startswith("llvm.nvvm.barrier")


@pytest.fixture
def gpu_ops(monkeypatch):
    def thread_id(em, op):
        tid = em.call(em.intrinsic("llvm.nvvm.read.ptx.sreg.tid.x", "i32", []), "i32", [], "tid")
        wide = em.fresh("tid.wide")
        em.emit(f"{wide} = zext i32 {tid} to i64")
        em.bind(op.results[0], wide)

    def barrier(em, op):
        em.call(em.intrinsic("llvm.nvvm.barrier0", "void", []), "void", [])

    monkeypatch.setitem(EMITTERS, "test.thread_id", thread_id)
    monkeypatch.setitem(EMITTERS, "test.barrier", barrier)


def test_gpu_hooks_render_a_kernel(gpu_ops):
    text = emit_llvm(KERNEL, NVPTXHooks()).text
    assert 'target triple = "nvptx64-nvidia-cuda"' in text
    assert "define ptx_kernel void @k(ptr addrspace(1) %x.allocated" in text
    assert "declare void @llvm.nvvm.barrier0() convergent" in text
    assert "call void @llvm.nvvm.barrier0() convergent" in text
    assert "getelementptr inbounds float, ptr addrspace(1) %x.aligned, i64 %tid.wide" in text


def test_the_nvptx_backend_accepts_it(gpu_ops):
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(emit_llvm(KERNEL, NVPTXHooks()).text)
    module.verify()
    machine = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu="sm_80")
    ptx = machine.emit_assembly(module)
    assert ".visible .entry k(" in ptx
    assert "bar.sync" in ptx and "st.global" in ptx and "%tid.x" in ptx
