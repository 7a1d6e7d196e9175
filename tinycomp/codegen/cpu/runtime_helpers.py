"""The compiler-runtime functions that LLVM's backend may call and MCJIT cannot find.

Some operations have no instruction on a given CPU, so LLVM's backend lowers them to a
call into the compiler runtime (``libgcc`` / ``compiler-rt``). For a static binary the
linker brings those functions in; an in-process JIT resolves symbols against the
running process, and a Python process has not loaded them. The call is made by the
backend, after optimization, so it never appears as a ``declare`` in the LLVM IR that
``jit`` checks.

Two such families matter here. The first is rounding to ``bfloat``. A CPU with AVX-512
BF16 (Zen 4, Sapphire Rapids) rounds with ``vcvtneps2bf16``, which treats subnormal
inputs as zero (Intel SDM); a CPU without it has no instruction, so
``fptrunc float %x to bfloat`` becomes a call to
``__truncsfbf2`` (``__truncdfbf2`` from ``double``). This module defines both in
plain LLVM IR, the way compiler-rt does in C:

1. Reinterpret the float's bits as an integer.
2. A NaN stays a NaN: set the quiet bit so that dropping the low 16 bits cannot turn
   it into an infinity.
3. Otherwise round to nearest, ties to even: add ``0x7FFF`` plus the lowest bit that
   will be kept, then drop the low 16 bits (the carry rounds up, into the exponent if
   it must, which gives an infinity on overflow as IEEE rounding does).

The second is rounding to ``half``. x86 has an instruction from ``float`` (F16C's
``vcvtps2ph``) but none from ``double``, so ``fptrunc double %x to half`` is a call to
``__truncdfhf2``; LLVM makes one where it promotes ``half`` arithmetic it has no
instruction for (``llvm.fma.v8f16`` becomes eight ``double`` FMAs, each rounded by that
call), and a CPU without F16C calls ``__truncsfhf2`` for every ``float`` to ``half``.
Rounding to ``float`` first and then to ``half`` could round twice; rounding to
``float`` *to odd* (truncate, then set the lowest bit if anything was dropped) keeps
enough for the second rounding to be the right one (Boldo and Melquiond, "Emulation of
FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE Trans.
Computers 57(4), 2008):

4. ``__truncsfhf2``: the bits of steps 1-3 with a 5-bit exponent: a NaN stays a quiet
   NaN, 65520 and above become an infinity, a normal number is rebiased and its 13
   dropped bits rounded to nearest even, a subnormal has its mantissa shifted into
   place and what is shifted out rounded the same way.
5. ``__truncdfhf2``: ``f = fptrunc x`` (nearest); if ``f`` is exactly ``x`` (or a NaN) it
   is kept, else it steps one unit toward zero if it rounded away from zero (a float's
   integer bits order like its magnitude) and its lowest bit is set: ``x`` rounded to
   odd. Then ``__truncsfhf2``.

``jit`` adds this module to every engine it makes, so JIT'ed code links to these
definitions instead of aborting the process at the first call.

>>> import llvmlite.binding as llvm
>>> "define bfloat @__truncsfbf2(float" in RUNTIME_HELPERS_IR
True
>>> "define half @__truncdfhf2(double" in RUNTIME_HELPERS_IR
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

define half @__truncsfhf2(float %x) {
entry:
  %bits = bitcast float %x to i32
  %high = lshr i32 %bits, 16
  %sign = and i32 %high, 32768
  %abs = and i32 %bits, 2147483647
  %is_nan = icmp ugt i32 %abs, 2139095040
  br i1 %is_nan, label %nan, label %not_nan
nan:
  %payload = lshr i32 %abs, 13
  %payload_bits = and i32 %payload, 1023
  %quiet = or i32 %payload_bits, 32256
  br label %done
not_nan:
  %overflows = icmp uge i32 %abs, 1199570944
  br i1 %overflows, label %done, label %finite
finite:
  %is_normal = icmp uge i32 %abs, 947912704
  br i1 %is_normal, label %normal, label %small
normal:
  %rebiased = sub i32 %abs, 939524096
  %normal_lsb = lshr i32 %rebiased, 13
  %normal_odd = and i32 %normal_lsb, 1
  %normal_bias = add i32 %normal_odd, 4095
  %normal_sum = add i32 %rebiased, %normal_bias
  %normal_bits = lshr i32 %normal_sum, 13
  br label %done
small:
  %is_zero = icmp ule i32 %abs, 855638016
  br i1 %is_zero, label %done, label %subnormal
subnormal:
  %exponent = lshr i32 %abs, 23
  %fraction = and i32 %abs, 8388607
  %mantissa = or i32 %fraction, 8388608
  %shift = sub i32 126, %exponent
  %quotient = lshr i32 %mantissa, %shift
  %one_shifted = shl i32 1, %shift
  %mask = sub i32 %one_shifted, 1
  %remainder = and i32 %mantissa, %mask
  %halfway = lshr i32 %one_shifted, 1
  %above = icmp ugt i32 %remainder, %halfway
  %tie = icmp eq i32 %remainder, %halfway
  %q_odd_bit = and i32 %quotient, 1
  %q_odd = icmp ne i32 %q_odd_bit, 0
  %tie_up = and i1 %tie, %q_odd
  %up = or i1 %above, %tie_up
  %up_bit = zext i1 %up to i32
  %sub_bits = add i32 %quotient, %up_bit
  br label %done
done:
  %magnitude = phi i32 [ %quiet, %nan ], [ 31744, %not_nan ], [ %normal_bits, %normal ],
                       [ 0, %small ], [ %sub_bits, %subnormal ]
  %with_sign = or i32 %magnitude, %sign
  %short = trunc i32 %with_sign to i16
  %result = bitcast i16 %short to half
  ret half %result
}

define half @__truncdfhf2(double %x) {
entry:
  %nearest = fptrunc double %x to float
  %back = fpext float %nearest to double
  %exact = fcmp ueq double %back, %x
  br i1 %exact, label %done, label %to_odd
to_odd:
  %bits = bitcast float %nearest to i32
  %away = fcmp ogt double %back, %x
  %positive = fcmp ogt double %x, 0.0
  %above_positive = and i1 %away, %positive
  %below = fcmp olt double %back, %x
  %negative = fcmp olt double %x, 0.0
  %below_negative = and i1 %below, %negative
  %rounded_away = or i1 %above_positive, %below_negative
  %step = zext i1 %rounded_away to i32
  %toward_zero = sub i32 %bits, %step
  %odd_bits = or i32 %toward_zero, 1
  %odd = bitcast i32 %odd_bits to float
  br label %done
done:
  %single = phi float [ %nearest, %entry ], [ %odd, %to_odd ]
  %result = call half @__truncsfhf2(float %single)
  ret half %result
}
"""
"""Round-to-nearest-even conversions to ``bfloat`` (steps 1-3) and to ``half``
(steps 4-5). ``__truncdfbf2``
rounds twice (double to float, then to bfloat), which can differ from one rounding in
the last bit for a few values; tinycomp's f64 -> bf16 conversions are rare."""


def runtime_helpers_module(machine: llvm.TargetMachine) -> llvm.ModuleRef:
    """The helpers as a parsed module for ``machine``'s triple and data layout, ready to
    add to an MCJIT engine (``engine.add_module``).

    >>> from tinycomp.codegen.cpu.target import target_machine
    >>> module = runtime_helpers_module(target_machine(0, "x86-64"))
    >>> sorted(f.name for f in module.functions)
    ['__truncdfbf2', '__truncdfhf2', '__truncsfbf2', '__truncsfhf2']
    """
    module = llvm.parse_assembly(RUNTIME_HELPERS_IR)
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    module.verify()
    return module
