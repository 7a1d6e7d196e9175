"""The host CPU: JIT-compile tinycomp's LLVM IR with llvmlite and call it on numpy arrays.

* ``target``: the host's triple, CPU name and features; the target hooks;
* ``optimize``: parse, verify and the O0-O3 pipeline;
* ``packed``: the ``_mlir_<f>(void**)`` wrappers every function is called through;
* ``calling``: ``CpuFunction``: a call on numpy arrays, and ``run`` with fresh out-params;
* ``argument_checks``: what each argument must be (dtype, rank, sizes, strides, range);
* ``call_plan``: the checks and descriptors of one signature, worked out once per
  signature, so that a call costs a few microseconds of Python;
* ``assembly``: one function's assembly out of the listing; ``assembly_stats``: the
  hot loop of a listing, counted (FMAs, loads, stores, spills);
* ``jit``: ``jit(module, opt_level=3, cpu=None) -> CpuModule``;
* ``program``: ``compile_for_cpu``, what ``tinycomp.compile(..., target="cpu")`` runs.
"""

from tinycomp.codegen.cpu.calling import CpuFunction
from tinycomp.codegen.cpu.jit import CpuModule, jit
from tinycomp.codegen.cpu.target import host_cpu

__all__ = ["CpuFunction", "CpuModule", "host_cpu", "jit"]
