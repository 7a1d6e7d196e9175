"""The compiler-runtime functions that LLVM's backend may call and MCJIT cannot find.

Some operations have no instruction on a given CPU, so LLVM's backend lowers them to a
call into the compiler runtime (``libgcc`` / ``compiler-rt``). For a static binary the
linker brings those functions in; an in-process JIT resolves symbols against the
running process, and a Python process has not loaded them. The call is made by the
backend, after optimization, so it never appears as a ``declare`` in the LLVM IR that
``jit`` checks.

One such family matters here: rounding to ``bfloat``. A CPU without AVX-512 BF16 has no
``vcvtneps2bf16``, so ``fptrunc float %x to bfloat`` becomes a call to
``__truncsfbf2`` (``__truncdfbf2`` from ``double``). This module defines both in
plain LLVM IR, the way compiler-rt does in C:

1. Reinterpret the float's bits as an integer.
2. A NaN stays a NaN: set the quiet bit so that dropping the low 16 bits cannot turn
   it into an infinity.
3. Otherwise round to nearest, ties to even: add ``0x7FFF`` plus the lowest bit that
   will be kept, then drop the low 16 bits (the carry rounds up, into the exponent if
   it must, which gives an infinity on overflow as IEEE rounding does).

``jit`` adds this module to every engine it makes, so JIT'ed code links to these
definitions instead of aborting the process at the first call.

>>> import llvmlite.binding as llvm
>>> "define bfloat @__truncsfbf2(float" in RUNTIME_HELPERS_IR
True
>>> llvm.parse_assembly(RUNTIME_HELPERS_IR).verify()
"""

from __future__ import annotations

import llvmlite.binding as llvm

__all__ = ["RUNTIME_HELPERS_IR", "runtime_helpers_module"]

RUNTIME_HELPERS_IR = """
define bfloat @__truncsfbf2(float %x) {
  %bits = bitcast float %x to i32
  %is_nan = fcmp uno float %x, %x
  %quiet = or i32 %bits, 4194304
  %kept_lsb = lshr i32 %bits, 16
  %odd = and i32 %kept_lsb, 1
  %bias = add i32 %odd, 32767
  %rounded = add i32 %bits, %bias
  %chosen = select i1 %is_nan, i32 %quiet, i32 %rounded
  %high = lshr i32 %chosen, 16
  %half = trunc i32 %high to i16
  %result = bitcast i16 %half to bfloat
  ret bfloat %result
}

define bfloat @__truncdfbf2(double %x) {
  %narrow = fptrunc double %x to float
  %result = call bfloat @__truncsfbf2(float %narrow)
  ret bfloat %result
}
"""
"""Round-to-nearest-even conversions to ``bfloat`` (steps 1-3). ``__truncdfbf2``
rounds twice (double to float, then to bfloat), which can differ from one rounding in
the last bit for a few values; tinycomp's f64 -> bf16 conversions are rare."""


def runtime_helpers_module(machine: llvm.TargetMachine) -> llvm.ModuleRef:
    """The helpers as a parsed module for ``machine``'s triple and data layout, ready to
    add to an MCJIT engine (``engine.add_module``).

    >>> from tinycomp.codegen.cpu.target import target_machine
    >>> module = runtime_helpers_module(target_machine(0, "x86-64"))
    >>> sorted(f.name for f in module.functions)
    ['__truncdfbf2', '__truncsfbf2']
    """
    module = llvm.parse_assembly(RUNTIME_HELPERS_IR)
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    module.verify()
    return module
