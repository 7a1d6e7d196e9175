"""``jit``: a loop-level tinycomp module to native code in this process.

The path a production compiler takes, with LLVM as a library instead of ``clang``
and ``llc`` as programs (MLIR's ``ExecutionEngine`` is the same idea in C++):

1. Make a target machine for the host CPU (``target.py``) and emit LLVM IR for it:
   the module header carries the machine's triple and data layout (``tinycomp.codegen.llvm``).
2. Append the packed wrappers ``@_mlir_<f>`` of the public functions (``packed.py``).
3. Parse and verify; errors name the LLVM line and the tinycomp op (``optimize.py``).
4. Optimize at ``opt_level`` (O0-O3) for the host CPU's features.
5. Generate machine code with MCJIT (LLVM's in-memory object-file JIT: it runs the
   backend, links the object into executable memory and resolves symbols such as
   ``malloc``, ``expf`` against this process), and look up each wrapper's address.
   A function that is declared but that no library in the process defines is an
   error here (MCJIT itself would abort the process at the first call). The
   compiler-runtime functions the backend itself may call (rounding to ``bfloat``
   without AVX-512 BF16) come from ``runtime_helpers.py``.
6. Return a ``CpuModule``: the emitted and the optimized LLVM IR, each phase's
   duration, one callable ``CpuFunction`` per public function, and the assembly of
   any function on request.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> module = jit(parse('''func.func @scale(%x: memref<?xf32>, %s: f32) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %n = memref.dim %x, %c0 : memref<?xf32>
...   scf.for %i = %c0 to %n step %c1 {
...     %v = memref.load %x[%i] : memref<?xf32>
...     %w = arith.mulf %v, %s : f32
...     memref.store %w, %x[%i] : memref<?xf32>
...   }
...   return
... }'''))
>>> x = np.arange(5, dtype=np.float32)
>>> module["scale"](x, 2.0)
>>> x
array([0., 2., 4., 6., 8.], dtype=float32)
>>> "vmulps" in module.assembly("scale")  # the loop was vectorized (AVX)
True
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass, field

import llvmlite.binding as llvm

from tinycomp.codegen.cpu.assembly import function_assembly
from tinycomp.codegen.cpu.calling import CpuFunction
from tinycomp.codegen.cpu.optimize import optimize, parse_and_verify
from tinycomp.codegen.cpu.packed import PACKED_PREFIX, packed_wrapper
from tinycomp.codegen.cpu.runtime_helpers import runtime_helpers_module
from tinycomp.codegen.cpu.target import CpuHooks, host_cpu, target_machine
from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm import LLVMModule, emit_llvm
from tinycomp.ir.operation import Operation

__all__ = ["CpuModule", "jit"]


@dataclass
class CpuModule:
    """Native code for a tinycomp module, and what it was made from.

    >>> module = jit("func.func @one() -> i64 {\\n  %c = arith.constant 1 : i64\\n"
    ...              "  return %c : i64\\n}", opt_level=0)
    >>> int(module["one"]()), sorted(module.timings)
    (1, ['codegen', 'emit', 'optimize', 'parse'])
    """

    llvm: LLVMModule
    """The LLVM IR tinycomp emitted, with the map from its lines back to tinycomp ops."""
    optimized_ir: str
    """The LLVM IR after LLVM's optimization pipeline (wrappers included)."""
    opt_level: int
    """The optimization level, 0-3."""
    cpu: str
    """The CPU the code was generated for (LLVM's name)."""
    functions: dict[str, CpuFunction]
    """The public functions, callable on numpy arrays."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds spent per phase: emit, parse, optimize, codegen."""
    _engine: llvm.ExecutionEngine | None = field(default=None, repr=False)
    _cpu_override: str | None = field(default=None, repr=False)
    _assembly: str | None = field(default=None, repr=False)

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR text tinycomp emitted (before optimization)."""
        return self.llvm.text

    def __getitem__(self, name: str) -> CpuFunction:
        """The function ``@name``, e.g. ``module["main"](x, out)``."""
        if name not in self.functions:
            known = ", ".join(f"@{n}" for n in self.functions) or "none"
            raise CodegenError(f"no public function @{name}; the module has {known}")
        return self.functions[name]

    def assembly(self, name: str | None = None) -> str:
        """The x86 assembly of function ``name`` as the JIT generated it (the whole
        listing when ``name`` is None). Re-parses the optimized IR and runs the backend
        once more (the JIT's own object code is not kept as text)."""
        if self._assembly is None:
            machine = target_machine(self.opt_level, self._cpu_override)
            self._assembly = machine.emit_assembly(llvm.parse_assembly(self.optimized_ir))
        return self._assembly if name is None else function_assembly(self._assembly, name)

    def __repr__(self) -> str:
        names = ", ".join(f"@{n}" for n in self.functions)
        return f"<CpuModule {names} (O{self.opt_level}, {self.cpu})>"


def jit(module: Operation | str, opt_level: int = 3, cpu: str | None = None) -> CpuModule:
    """Compile ``module`` to native code for this machine (steps 1-6 above); ``cpu``
    names another LLVM CPU than the host's (its code may not run here).

    >>> module = jit("func.func @neg(%x: f32) -> f32 {\\n  %y = arith.negf %x : f32\\n"
    ...              "  return %y : f32\\n}", opt_level=1, cpu="x86-64")
    >>> float(module["neg"](2.5)), module.cpu
    (-2.5, 'x86-64')
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    machine = target_machine(opt_level, cpu)  # step 1
    emitted = emit_llvm(module, CpuHooks(machine))
    public = [f for f in emitted.functions.values() if not f.prefix.startswith("internal")]
    text = "\n\n".join([emitted.text, *(packed_wrapper(f) for f in public)])  # step 2
    timings["emit"] = time.perf_counter() - started
    started = time.perf_counter()
    parsed = parse_and_verify(text, emitted)  # step 3
    timings["parse"] = time.perf_counter() - started
    started = time.perf_counter()
    optimize(parsed, machine, opt_level)  # step 4
    optimized_ir = str(parsed)
    timings["optimize"] = time.perf_counter() - started
    started = time.perf_counter()
    _check_external_symbols(emitted)
    engine = llvm.create_mcjit_compiler(parsed, machine)  # step 5
    engine.add_module(runtime_helpers_module(machine))  # what the backend may call
    engine.finalize_object()
    functions = {}
    for function in public:
        address = engine.get_function_address(PACKED_PREFIX + function.name)
        functions[function.name] = CpuFunction(function.op, address, engine)
    timings["codegen"] = time.perf_counter() - started
    return CpuModule(  # step 6
        emitted,
        optimized_ir,
        opt_level,
        cpu if cpu is not None else host_cpu()[0],
        functions,
        timings,
        _engine=engine,
        _cpu_override=cpu,
    )


def _check_external_symbols(emitted: LLVMModule) -> None:
    """Step 5's check: every declared function that is not an LLVM intrinsic must be
    found in the process (the C library, libm, or a library loaded by the caller)."""
    process = ctypes.CDLL(None)
    for line in emitted.text.splitlines():
        if not line.startswith("declare "):
            continue
        name = line.partition("@")[2].partition("(")[0]
        if name.startswith("llvm.") or name in emitted.functions:
            continue
        if not hasattr(process, name) and llvm.address_of_symbol(name) is None:
            raise CodegenError(
                f"@{name} is declared but not defined in the module, and no library loaded "
                "in this process defines it (load one with "
                "llvmlite.binding.load_library_permanently)"
            )
