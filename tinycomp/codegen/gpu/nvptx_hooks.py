"""NVIDIA GPUs through LLVM's NVPTX target: ``NVPTXHooks``.

1. The module: triple ``nvptx64-nvidia-cuda`` and the NVPTX data layout (64-bit
   pointers; no ``A`` entry, so ``alloca`` stays in address space 0 and LLVM's
   ``nvptx-lower-alloca`` moves it to ``.local`` itself). Kernels are
   ``define ptx_kernel void @k(...)`` (the calling convention that replaced the
   ``!nvvm.annotations`` kernel metadata).
2. The architecture: ``sm_80`` (A100), ``sm_86`` (RTX A6000) or ``sm_90`` (H100). LLVM
   22 picks PTX ISA 7.0 for sm_80, 7.1 for sm_86 and 7.8 for sm_90; sm_90 is asked for
   PTX ISA 8.0 (``+ptx80``), the first with ``elect.sync``.
3. Where a thread is: the special registers ``%tid``, ``%ctaid``, ``%ntid``,
   ``%nctaid`` and ``%laneid``, read with ``llvm.nvvm.read.ptx.sreg.*`` (``i32``).
4. The barrier: ``llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)``, PTX ``bar.sync 0``
   (LLVM 22 still reads the older name ``llvm.nvvm.barrier0`` and upgrades it).
5. A shuffle: ``llvm.nvvm.shfl.sync.{bfly,up,down,idx}.{i32,f32}p`` on the full warp,
   returning the value and PTX's *valid* predicate; the segment width becomes PTX's
   ``c`` operand (``nvvm.shuffle_clamp``).
6. Convergent: every ``llvm.nvvm.barrier*``, ``bar.warp.sync``, ``shfl.sync``,
   ``vote.*.sync``, ``redux.sync`` and ``elect.sync`` call.

>>> hooks = NVPTXHooks("sm_90")
>>> hooks.triple, hooks.features, hooks.is_convergent("llvm.nvvm.shfl.sync.bfly.f32p")
('nvptx64-nvidia-cuda', '+ptx80', True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.gpu.gpu_hooks import GPUHooks
from tinycomp.codegen.llvm import index_math

if TYPE_CHECKING:
    from tinycomp.codegen.llvm.registry import FunctionEmitter

__all__ = ["NVPTX_ARCHES", "NVPTXHooks"]

NVPTX_ARCHES = {"sm_80": "", "sm_86": "", "sm_90": "+ptx80"}
"""The architectures tinycomp targets, and the PTX ISA features each is given (step 2)."""
NVPTX_DATALAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
"""LLVM 22's data layout for ``nvptx64-nvidia-cuda`` (``TargetMachine.target_data``)."""
_REGISTERS = {"thread_id": "tid", "block_id": "ctaid", "block_dim": "ntid", "grid_dim": "nctaid"}
_SHUFFLE_KINDS = {"xor": "bfly", "up": "up", "down": "down", "idx": "idx"}


class NVPTXHooks(GPUHooks):
    """NVPTX for one architecture (steps 1-6 of the module docstring)."""

    name = "nvptx"
    triple = "nvptx64-nvidia-cuda"
    datalayout = NVPTX_DATALAYOUT
    kernel_prefix = "ptx_kernel"
    private_space = 0
    convergent_prefixes = (
        "llvm.nvvm.barrier", "llvm.nvvm.bar.warp.sync", "llvm.nvvm.shfl.sync",
        "llvm.nvvm.vote.", "llvm.nvvm.redux.sync", "llvm.nvvm.elect.sync",
    )  # fmt: skip

    def __init__(self, arch: str = "sm_80") -> None:
        if arch not in NVPTX_ARCHES:
            raise CodegenError(f"expected an NVPTX arch among {sorted(NVPTX_ARCHES)}, got {arch!r}")
        self.arch = arch
        """``sm_80``, ``sm_86`` or ``sm_90``."""
        self.features = NVPTX_ARCHES[arch]
        """The target features given to LLVM (the PTX ISA version, step 2)."""

    @property
    def sm_version(self) -> int:
        """80 for ``sm_80``: what the instructions' requirements are compared with.

        >>> NVPTXHooks("sm_90").sm_version
        90
        """
        return int(self.arch.removeprefix("sm_"))

    def thread_position(self, em: FunctionEmitter, what: str, dimension: str) -> str:
        """Step 3: ``call i32 @llvm.nvvm.read.ptx.sreg.tid.x()`` and its kin."""
        register = f"llvm.nvvm.read.ptx.sreg.{_REGISTERS[what]}.{dimension}"
        return em.call(em.intrinsic(register, "i32", []), "i32", [], f"{what}.{dimension}")

    def lane_id(self, em: FunctionEmitter) -> str:
        """Step 3: ``%laneid``."""
        register = em.intrinsic("llvm.nvvm.read.ptx.sreg.laneid", "i32", [])
        return em.call(register, "i32", [], "lane_id")

    def emit_barrier(self, em: FunctionEmitter) -> None:
        """Step 4: ``bar.sync 0``; it also orders shared-memory accesses across it."""
        barrier = em.intrinsic("llvm.nvvm.barrier.cta.sync.aligned.all", "void", ["i32"])
        em.call(barrier, "void", [("i32", "0")])

    def shuffle32(
        self, em: FunctionEmitter, mode: str, value: str, type_: str, offset: str, width: str
    ) -> tuple[str, str]:
        """Step 5: one ``shfl.sync`` of all 32 lanes, with its valid predicate."""
        clamp = _clamp(em, mode, width)
        suffix = "f32" if type_ == "float" else "i32"
        pair = f"{{ {type_}, i1 }}"
        name = f"llvm.nvvm.shfl.sync.{_SHUFFLE_KINDS[mode]}.{suffix}p"
        callee = em.intrinsic(name, pair, ["i32", type_, "i32", "i32"])
        args = [("i32", "-1"), (type_, value), ("i32", offset), ("i32", clamp)]
        both = em.call(callee, pair, args, "shfl")
        result, valid = em.fresh("shfl.value"), em.fresh("shfl.valid")
        em.emit(f"{result} = extractvalue {pair} {both}, 0")
        em.emit(f"{valid} = extractvalue {pair} {both}, 1")
        return result, valid


def _clamp(em: FunctionEmitter, mode: str, width: str) -> str:
    """PTX's ``c`` operand for segments of ``width`` lanes: ``((32 - width) << 8) | 31``
    (``up``: without the ``| 31``), folded when the width is a constant."""
    low = "0" if mode == "up" else "31"
    if index_math.is_constant(width):
        return str(((32 - int(width)) << 8) | int(low))
    outside = index_math.sub(em, "32", width, "i32", "")
    shifted = em.fresh("clamp")
    em.emit(f"{shifted} = shl i32 {outside}, 8")
    if low == "0":
        return shifted
    clamp = em.fresh("clamp")
    em.emit(f"{clamp} = or i32 {shifted}, {low}")
    return clamp
