"""``convergent``, taught with a real miscompile: LLVM hoists a warp reduction out of a
divergent branch when nobody told it the call is convergent.

A warp vote, shuffle or reduction computes something *together with the other threads
that execute it at the same time*. In this kernel the lanes of a warp split in two
halves, and each half sums ``x`` over the lanes that took its branch (CUDA's
``__reduce_add_sync(__activemask(), x)``)::

    if (tid < 16) low_out[tid]  = warp_sum(x[tid]);   // lanes 0-15 sum x[0:16]
    else          high_out[tid] = warp_sum(x[tid]);   // lanes 16-31 sum x[16:32]

Both branches start with the same call on the same operand. For an ordinary function
that is common code, and LLVM's SimplifyCFG (in the ``-O2`` pipeline) hoists it above
the branch, then merges the two stores into one store to a selected pointer. For a
warp reduction that is wrong: above the branch all 32 lanes execute the call together
and every lane gets the sum of the whole warp.

The rule that forbids it is LLVM's ``convergent`` attribute (LangRef, "Function
Attributes"; ``docs/ConvergentOperations.rst``, "Overview": the threads that
communicate in ``if (condition) convergent_operation();`` are exactly those for which
``condition`` is true, so moving the call out of, into or across a condition changes
who takes part). LLVM's own intrinsics (``llvm.nvvm.activemask``,
``llvm.nvvm.redux.sync.add``, ``llvm.nvvm.shfl.sync.*``, barriers) carry ``convergent``
from LLVM's table of intrinsics, and SimplifyCFG leaves them in place; a call to a
function declared without it is fair game. That is why clang marks every function
``convergent`` when it compiles CUDA, HIP or OpenCL device code (clang's test
``CodeGenCUDA/convergent.cu``; ``-fno-convergent-functions`` opts out).

Three versions of the kernel, one LLVM pipeline (``optimize_nvptx``):

* ``warp_sum`` declared as an ordinary function: hoisted (the miscompile);
* ``warp_sum`` declared ``convergent``: the two calls stay in their branches;
* the real intrinsics ``activemask`` + ``redux.sync.add``: they stay too.

The simulator runs the kernel before and after the hoist as tinycomp gpu IR
(``gpu.subgroup_reduce`` sums over the active lanes, as ``__activemask()`` would
have them): ``simulate_half_sums`` returns both results beside numpy's.

>>> after = llvm_hoist_outputs()
>>> count_warp_sum_calls(after.plain), count_warp_sum_calls(after.convergent)
(1, 2)
>>> import numpy as np
>>> x = np.arange(32, dtype=np.int32)
>>> runs = simulate_half_sums(x)
>>> int(runs.original.low[0]), int(runs.hoisted.low[0]), int(x[:16].sum()), int(x.sum())
(120, 496, 120, 496)
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.binding as llvm
import numpy as np

from tinycomp.ir.parser import parse
from tinycomp.targets.gpu_sim.simulator import simulate

__all__ = [
    "HALF_SUMS_GPU_IR",
    "HALF_SUMS_HOISTED_GPU_IR",
    "HALF_SUMS_LLVM",
    "HalfSums",
    "HalfSumsRuns",
    "LlvmHoistOutputs",
    "WARP_SUM_BY_INTRINSICS",
    "count_warp_sum_calls",
    "half_sums_kernel",
    "llvm_hoist_outputs",
    "optimize_nvptx",
    "reference_half_sums",
    "simulate_half_sums",
]

HALF_SUMS_LLVM = """\
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
{declarations}

define ptx_kernel void @half_sums(ptr addrspace(1) %x, ptr addrspace(1) %low_out,
                                  ptr addrspace(1) %high_out) {{
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x_slot = getelementptr i32, ptr addrspace(1) %x, i32 %tid
  %xv = load i32, ptr addrspace(1) %x_slot
  %low = icmp ult i32 %tid, 16
  br i1 %low, label %low_half, label %high_half

low_half:
{low_sum}
  %low_slot = getelementptr i32, ptr addrspace(1) %low_out, i32 %tid
  store i32 %s1, ptr addrspace(1) %low_slot
  br label %done

high_half:
{high_sum}
  %high_slot = getelementptr i32, ptr addrspace(1) %high_out, i32 %tid
  store i32 %s2, ptr addrspace(1) %high_slot
  br label %done

done:
  ret void
}}
"""
"""The kernel in LLVM IR, with the warp sum left open: ``half_sums_kernel`` fills it in."""

WARP_SUM_BY_INTRINSICS = "intrinsics"
"""The ``warp_sum`` argument of ``half_sums_kernel`` that sums with the NVVM intrinsics."""


def half_sums_kernel(warp_sum: str) -> str:
    """The LLVM IR of the kernel, its warp sum being a call to ``@warp_sum`` declared with
    the attributes ``warp_sum`` (``""`` or ``"convergent"``), or, for
    ``WARP_SUM_BY_INTRINSICS``, ``redux.sync.add`` over ``activemask()``.

    >>> print(half_sums_kernel("convergent").splitlines()[3])
    declare i32 @warp_sum(i32) convergent
    >>> "@llvm.nvvm.redux.sync.add(i32 %xv, i32 %m1)" in half_sums_kernel("intrinsics")
    True
    """
    if warp_sum == WARP_SUM_BY_INTRINSICS:
        declarations = (
            "declare i32 @llvm.nvvm.activemask()\ndeclare i32 @llvm.nvvm.redux.sync.add(i32, i32)"
        )
        sums = [
            f"  %m{n} = call i32 @llvm.nvvm.activemask()\n"
            f"  %s{n} = call i32 @llvm.nvvm.redux.sync.add(i32 %xv, i32 %m{n})"
            for n in (1, 2)
        ]
    elif warp_sum in ("", "convergent"):
        declarations = f"declare i32 @warp_sum(i32) {warp_sum}".rstrip()
        sums = [f"  %s{n} = call i32 @warp_sum(i32 %xv)" for n in (1, 2)]
    else:
        raise ValueError(
            f"expected the warp sum's attributes ('' or 'convergent') or "
            f"'{WARP_SUM_BY_INTRINSICS}', got {warp_sum!r}"
        )
    return HALF_SUMS_LLVM.format(declarations=declarations, low_sum=sums[0], high_sum=sums[1])


def optimize_nvptx(llvm_ir: str, function: str, speed_level: int = 2) -> str:
    """Run LLVM's ``-O<speed_level>`` pipeline for NVPTX (sm_80) on ``llvm_ir`` and return
    the IR of ``function`` after it.

    >>> after = optimize_nvptx(half_sums_kernel(""), "half_sums")
    >>> "br i1" in after  # the branch is gone: one call, one store to a selected pointer
    False
    """
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(llvm_ir)
    module.verify()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    machine = target.create_target_machine(cpu="sm_80", opt=speed_level)
    tuning = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    builder = llvm.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return str(module.get_function(function))


@dataclass(frozen=True)
class LlvmHoistOutputs:
    """The kernel's IR after LLVM's ``-O2``, for each kind of warp sum."""

    plain: str
    """``warp_sum`` declared without ``convergent``: one call, above the branch."""
    convergent: str
    """``warp_sum`` declared ``convergent``: a call in each branch, as written."""
    intrinsics: str
    """``activemask`` + ``redux.sync.add`` (convergent by LLVM's table): left in place."""


def llvm_hoist_outputs() -> LlvmHoistOutputs:
    """The kernel after ``-O2`` three times: an ordinary ``warp_sum``, a ``convergent`` one
    and the NVVM intrinsics.

    >>> outputs = llvm_hoist_outputs()
    >>> outputs.intrinsics.count("call i32 @llvm.nvvm.redux.sync.add")
    2
    """
    kinds = {"plain": "", "convergent": "convergent", "intrinsics": WARP_SUM_BY_INTRINSICS}
    outputs = {
        name: optimize_nvptx(half_sums_kernel(kind), "half_sums") for name, kind in kinds.items()
    }
    return LlvmHoistOutputs(**outputs)


def count_warp_sum_calls(function_ir: str) -> int:
    """How many calls to ``@warp_sum`` ``function_ir`` holds (``tail call`` included).

    >>> count_warp_sum_calls("  %s = tail call i32 @warp_sum(i32 %x)")
    1
    """
    return sum(1 for line in function_ir.splitlines() if "call i32 @warp_sum(" in line)


HALF_SUMS_GPU_IR = """\
gpu.module @kernels {
  gpu.func @half_sums(%x: memref<32xi32>, %low_out: memref<32xi32>,
                      %high_out: memref<32xi32>) kernel {
    %tid = gpu.thread_id  x
    %c16 = arith.constant 16 : index
    %xv = memref.load %x[%tid] : memref<32xi32>
    %low = arith.cmpi ult, %tid, %c16 : index
    scf.if %low {
      %s = gpu.subgroup_reduce  add %xv : (i32) -> i32
      memref.store %s, %low_out[%tid] : memref<32xi32>
    } else {
      %s = gpu.subgroup_reduce  add %xv : (i32) -> i32
      memref.store %s, %high_out[%tid] : memref<32xi32>
    }
    gpu.return
  }
}"""
"""The kernel as written, in tinycomp's gpu IR: one warp sum in each branch."""

HALF_SUMS_HOISTED_GPU_IR = """\
gpu.module @kernels {
  gpu.func @half_sums(%x: memref<32xi32>, %low_out: memref<32xi32>,
                      %high_out: memref<32xi32>) kernel {
    %tid = gpu.thread_id  x
    %c16 = arith.constant 16 : index
    %xv = memref.load %x[%tid] : memref<32xi32>
    %low = arith.cmpi ult, %tid, %c16 : index
    %s = gpu.subgroup_reduce  add %xv : (i32) -> i32
    scf.if %low {
      memref.store %s, %low_out[%tid] : memref<32xi32>
    } else {
      memref.store %s, %high_out[%tid] : memref<32xi32>
    }
    gpu.return
  }
}"""
"""The kernel as LLVM's hoist leaves it: one warp sum above the branch."""


@dataclass(frozen=True)
class HalfSums:
    """What one run of the kernel leaves in its two output arrays."""

    low: np.ndarray
    """``low_out``: lanes 0-15 wrote theirs, lanes 16-31 left the initial values."""
    high: np.ndarray
    """``high_out``: lanes 16-31 wrote theirs, lanes 0-15 left the initial values."""


@dataclass(frozen=True)
class HalfSumsRuns:
    """The kernel before and after the hoist on the simulator, and numpy's answer."""

    original: HalfSums
    hoisted: HalfSums
    reference: HalfSums


def reference_half_sums(x: np.ndarray, initial: np.ndarray) -> HalfSums:
    """What the kernel as written computes, in numpy: each half of the warp sums its own
    half of ``x``; the entries the other half owns keep ``initial``.

    >>> r = reference_half_sums(np.arange(32, dtype=np.int32), np.zeros(32, np.int32))
    >>> int(r.low[0]), int(r.low[16]), int(r.high[16])
    (120, 0, 376)
    """
    low, high = initial.copy(), initial.copy()
    low[:16] = x[:16].sum(dtype=x.dtype)
    high[16:] = x[16:].sum(dtype=x.dtype)
    return HalfSums(low, high)


def _run_on_simulator(gpu_ir: str, x: np.ndarray, initial: np.ndarray) -> HalfSums:
    low, high = initial.copy(), initial.copy()
    simulate(parse(gpu_ir), grid=1, block=32, args=[x.copy(), low, high])
    return HalfSums(low, high)


def simulate_half_sums(x: np.ndarray, initial: np.ndarray | None = None) -> HalfSumsRuns:
    """Run one warp of the kernel as written and as hoisted on the same ``x`` (32
    ``int32``), the outputs starting as ``initial`` (``-1`` everywhere by default).

    >>> runs = simulate_half_sums(np.ones(32, np.int32))
    >>> int(runs.original.high[31]), int(runs.hoisted.high[31])
    (16, 32)
    """
    if x.shape != (32,) or x.dtype != np.int32:
        raise ValueError(f"expected x to be 32 int32 values (one warp), got {x.shape} {x.dtype}")
    start = np.full(32, -1, np.int32) if initial is None else initial.astype(np.int32)
    return HalfSumsRuns(
        original=_run_on_simulator(HALF_SUMS_GPU_IR, x, start),
        hoisted=_run_on_simulator(HALF_SUMS_HOISTED_GPU_IR, x, start),
        reference=reference_half_sums(x, start),
    )
