"""AMD GPUs through LLVM's AMDGPU target: ``AMDGPUHooks``.

1. The module: triple ``amdgcn-amd-amdhsa`` and its data layout, which says ``A5``:
   ``alloca`` lives in address space 5 (private, *scratch* memory), so private buffers
   are ``alloca ..., addrspace(5)``. Kernels are ``define amdgpu_kernel void @k(...)``.
2. The architecture: ``gfx90a`` (MI200) or ``gfx942`` (MI300). Both run *wavefronts of
   64 lanes*: ``gpu.lane_id`` is 0..63 there, and shuffles see 64 lanes.
3. Where a thread is: ``llvm.amdgcn.workitem.id.{x,y,z}`` and
   ``llvm.amdgcn.workgroup.id.{x,y,z}``; the block and grid sizes are read from the HSA
   dispatch packet (``llvm.amdgcn.dispatch.ptr``, address space 4): the ``u16``
   ``workgroup_size_{x,y,z}`` at bytes 4, 6, 8 and the ``u32`` ``grid_size_{x,y,z}`` at
   12, 16, 20, counted in work-items, so ``grid_dim = grid_size / workgroup_size``.
4. The lane: ``mbcnt.hi(-1, mbcnt.lo(-1, 0))``, the number of lanes below this one.
5. The barrier: ``s_barrier`` between a workgroup-scope release fence and an acquire
   fence, which is what makes LDS writes before it visible after it (as HIP's
   ``__syncthreads`` does).
6. A shuffle: ``ds_bpermute`` (``llvm.amdgcn.ds.bpermute``: each lane reads the value of
   the lane whose byte address ``4 * lane`` it gives), with the source lane computed
   within the segment of ``width`` lanes; a source outside the segment reads the lane's
   own value and is *not valid*, as on NVIDIA.

>>> hooks = AMDGPUHooks("gfx942")
>>> hooks.private_space, hooks.warp_size, hooks.is_convergent("llvm.amdgcn.s.barrier")
(5, 64, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.gpu.gpu_hooks import GPUHooks

if TYPE_CHECKING:
    from tinycomp.codegen.llvm.registry import FunctionEmitter

__all__ = ["AMDGPU_ARCHES", "AMDGPUHooks"]

AMDGPU_ARCHES = ("gfx90a", "gfx942")
"""The AMD architectures tinycomp targets."""
AMDGPU_DATALAYOUT = (
    "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-"
    "p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-"
    "v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
)
"""LLVM 22's data layout for ``amdgcn-amd-amdhsa`` (``TargetMachine.target_data``)."""
_DISPATCH_OFFSETS = {
    "block_dim": {"x": (4, "i16"), "y": (6, "i16"), "z": (8, "i16")},
    "grid_size": {"x": (12, "i32"), "y": (16, "i32"), "z": (20, "i32")},
}
"""Byte offset and type of each field of ``hsa_kernel_dispatch_packet_t`` read (step 3)."""


class AMDGPUHooks(GPUHooks):
    """AMDGPU for one architecture (steps 1-6 of the module docstring)."""

    name = "amdgpu"
    triple = "amdgcn-amd-amdhsa"
    datalayout = AMDGPU_DATALAYOUT
    kernel_prefix = "amdgpu_kernel"
    private_space = 5
    warp_size = 64
    convergent_prefixes = ("llvm.amdgcn.s.barrier", "llvm.amdgcn.ds.bpermute")
    features = ""

    def __init__(self, arch: str = "gfx90a") -> None:
        if arch not in AMDGPU_ARCHES:
            raise CodegenError(f"expected an AMDGPU arch among {list(AMDGPU_ARCHES)}, got {arch!r}")
        self.arch = arch
        """``gfx90a`` or ``gfx942``."""

    def thread_position(self, em: FunctionEmitter, what: str, dimension: str) -> str:
        """Step 3: work-item and workgroup ids, sizes from the dispatch packet."""
        if what in ("thread_id", "block_id"):
            kind = "workitem" if what == "thread_id" else "workgroup"
            callee = em.intrinsic(f"llvm.amdgcn.{kind}.id.{dimension}", "i32", [])
            return em.call(callee, "i32", [], f"{what}.{dimension}")
        block_dim = self._dispatch_field(em, "block_dim", dimension)
        if what == "block_dim":
            return block_dim
        grid_size = self._dispatch_field(em, "grid_size", dimension)
        grid_dim = em.fresh(f"grid_dim.{dimension}")
        em.emit(f"{grid_dim} = udiv i32 {grid_size}, {block_dim}")
        return grid_dim

    def _dispatch_field(self, em: FunctionEmitter, field: str, dimension: str) -> str:
        offset, type_ = _DISPATCH_OFFSETS[field][dimension]
        dispatch_ptr = em.intrinsic("llvm.amdgcn.dispatch.ptr", "ptr addrspace(4)", [])
        packet = em.call(dispatch_ptr, "ptr addrspace(4)", [], "dispatch")
        address, loaded = em.fresh(f"{field}.ptr"), em.fresh(f"{field}.{dimension}")
        em.emit(f"{address} = getelementptr inbounds i8, ptr addrspace(4) {packet}, i64 {offset}")
        em.emit(f"{loaded} = load {type_}, ptr addrspace(4) {address}, align 2")
        if type_ == "i32":
            return loaded
        widened = em.fresh(f"{field}.{dimension}")
        em.emit(f"{widened} = zext {type_} {loaded} to i32")
        return widened

    def lane_id(self, em: FunctionEmitter) -> str:
        """Step 4: count the lanes below this one in the wavefront."""
        low = em.intrinsic("llvm.amdgcn.mbcnt.lo", "i32", ["i32", "i32"])
        high = em.intrinsic("llvm.amdgcn.mbcnt.hi", "i32", ["i32", "i32"])
        below = em.call(low, "i32", [("i32", "-1"), ("i32", "0")], "lanes.below")
        return em.call(high, "i32", [("i32", "-1"), ("i32", below)], "lane_id")

    def emit_barrier(self, em: FunctionEmitter) -> None:
        """Step 5: release fence, ``s_barrier``, acquire fence (workgroup scope)."""
        em.emit('fence syncscope("workgroup") release')
        em.call(em.intrinsic("llvm.amdgcn.s.barrier", "void", []), "void", [])
        em.emit('fence syncscope("workgroup") acquire')

    def shuffle32(
        self, em: FunctionEmitter, mode: str, value: str, type_: str, offset: str, width: str
    ) -> tuple[str, str]:
        """Step 6: the source lane within the segment, then ``ds_bpermute``."""
        lane = self.lane_id(em)
        names = {n: em.fresh(n) for n in ("segment", "start", "within", "source", "valid")}
        names.update({n: em.fresh(n) for n in ("from", "address", "bits", "value")})
        em.emit(f"{names['segment']} = sub i32 0, {width}")  # ~(width - 1) for a power of two
        em.emit(f"{names['start']} = and i32 {lane}, {names['segment']}")
        em.emit(f"{names['within']} = sub i32 {lane}, {names['start']}")
        source = {
            "xor": f"xor i32 {names['within']}, {offset}",
            "up": f"sub i32 {names['within']}, {offset}",
            "down": f"add i32 {names['within']}, {offset}",
            "idx": f"add i32 {offset}, 0",
        }[mode]
        em.emit(f"{names['source']} = {source}")
        em.emit(f"{names['valid']} = icmp ult i32 {names['source']}, {width}")
        em.emit(f"{names['from']} = add i32 {names['start']}, {names['source']}")
        chosen = em.fresh("from.lane")
        em.emit(f"{chosen} = select i1 {names['valid']}, i32 {names['from']}, i32 {lane}")
        em.emit(f"{names['address']} = shl i32 {chosen}, 2")
        bits = value
        if type_ == "float":
            em.emit(f"{names['bits']} = bitcast float {value} to i32")
            bits = names["bits"]
        permute = em.intrinsic("llvm.amdgcn.ds.bpermute", "i32", ["i32", "i32"])
        read = em.call(permute, "i32", [("i32", names["address"]), ("i32", bits)], "permuted")
        if type_ != "float":
            return read, names["valid"]
        em.emit(f"{names['value']} = bitcast i32 {read} to float")
        return names["value"], names["valid"]
