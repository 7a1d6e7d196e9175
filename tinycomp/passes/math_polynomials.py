"""``exp``, ``log``, ``tanh`` and ``erf`` of f32 as arith ops: range reduction + polynomial.

Each function takes an ``ArithBuilder`` and an f32 value (a scalar or a vector) and
returns its approximation, built only from arith (and exact math) ops, so a vector of
eight lanes stays eight lanes all the way to the machine: no call to ``expf`` per lane.
The recipes are the classic ones that MLIR's ``-math-polynomial-approximation``
(``PolynomialApproximation.cpp``) and the Cephes library use:

exp(x)
    1. Clamp ``x`` to ``[-104, 89]`` (``e**-104`` rounds to 0, ``e**89`` to inf, so the
       clamp changes no result; a NaN is patched back in step 5).
    2. ``k = floor(x * log2(e) + 1/2)``, ``r = x - k * ln2`` with ``ln2`` split in a
       high part of 9 bits (``k * hi`` is exact) and a low part (Cody and Waite):
       ``|r| <= ln2 / 2``.
    3. ``e**r ~ 1 + r + r**2 * P(r)``, ``P`` of degree 5 (Cephes ``expf``).
    4. ``e**x = e**r * 2**k``, with ``2**k`` built from its bits as ``2**(k//2) *
       2**(k - k//2)``: both halves are normal floats for every ``k`` in
       ``[-150, 129]``, so overflow to inf and gradual underflow to subnormals and 0
       come out of the last multiplication, rounded once.
    5. NaN in, NaN out.
log(x)
    1. Scale a subnormal ``x`` by ``2**23`` (MLIR clamps it to the smallest normal
       instead, which returns ``log(2**-126)`` for every subnormal).
    2. Split ``x = m * 2**e`` from the bits, ``m`` in ``[sqrt(1/2), sqrt(2))``.
    3. ``log(m) = f - f**2/2 + f**3 * P(f)`` with ``f = m - 1``, ``P`` of degree 8
       (Cephes ``logf``); ``log(x) = log(m) + e * ln2``, ``ln2`` split as in exp.
    4. ``log(0) = -inf``, ``log(x < 0) = NaN``, ``log(inf) = inf``, NaN stays NaN.
tanh(x)
    ``|x| < 0.625``: ``x + x**3 * P(x**2)``, ``P`` of degree 4; beyond:
    ``1 - 2 / (e**(2|x|) + 1)`` with the sign of ``x`` (Cephes ``tanhf``; MLIR uses
    Eigen's rational function instead, 3 to 4 ulp off just above ``|x| = 0.0004``,
    where it stops returning ``x``, and near its clamp at 7.9988). NaN stays NaN.
erf(x)
    ``|x| < 0.921875``: ``x + x * A(x**2)``; up to 4: ``1 - exp(-(a + a * B(a)))`` with
    ``a = |x|``; beyond: 1; the sign of ``x`` copied back (the intervals and minimax
    coefficients of Arm's optimized-routines ``erff``). NaN stays NaN.

Measured error against the correctly rounded result, over every f32 exponent (random
significands, both signs) and the edge values (``+-0``, subnormals, the overflow and
underflow thresholds, ``+-inf``, NaN), in the interpreter and through the CPU JIT
(which agree bit for bit: no FMA contraction, see ``ArithBuilder.muladd``), as
``tests/passes/test_math_approximation.py`` measures it:

====  ==========  ===========  ===============================================
fn    ours (ulp)  MLIR (ulp)   what happens at the edges (ours)
====  ==========  ===========  ===============================================
exp   0.89        7.4          subnormal results rounded once; inf above 88.72
log   0.75        2 million    subnormal inputs in range; -inf at +-0
tanh  1.10        3.8          exactly +-1 from ``|x| = 9.011``; -0 stays -0
erf   0.95        2.7          exactly +-1 from ``|x| = 3.919``
====  ==========  ===========  ===============================================

(The worst of 261,000 inputs: 512 random significands for every exponent, both
signs. MLIR's column is ``mlir-opt-22 -test-math-polynomial-approximation`` run by
``mlir-runner-22`` on the 8,000 finite inputs of the test: its exp loses the
subnormal results, its log returns ``log(2**-126)`` for every subnormal.) Ours is the
correctly rounded value or one of its neighbours, as libm's ``expf`` and friends are.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite.rewriter import PatternRewriter
>>> from tinycomp.passes.math_builder import ArithBuilder
>>> m = parse('''func.func @f(%x: f32) -> f32 {
...   %y = math.exp %x : f32
...   return %y : f32 }''')
>>> op = [op for op in m.walk() if op.name == "math.exp"][0]
>>> value = expand_exp(ArithBuilder(PatternRewriter(), op, op.operands[0].type), op.operands[0])
>>> sorted({o.name for o in m.walk() if o.name.startswith("math")})
['math.exp', 'math.floor']
"""

from __future__ import annotations

from tinycomp.dialects import arith
from tinycomp.ir.values import Value
from tinycomp.passes.math_builder import ArithBuilder

__all__ = ["EXPANSIONS", "expand_erf", "expand_exp", "expand_log", "expand_tanh"]

LOG2E = 1.44269504088896341
LN2_HI = 0.693359375
"""ln 2 rounded to 9 significant bits: ``k * LN2_HI`` is exact for ``|k| < 2**15``."""
LN2_LO = -2.12194440e-4
"""``ln 2 - LN2_HI``."""
EXP_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
         1.6666665459e-1, 5.0000001201e-1)  # fmt: skip
"""Cephes ``expf``: ``e**r ~ 1 + r + r**2 * P(r)`` on ``|r| <= ln2/2``."""
LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
         1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
         3.3333331174e-1)  # fmt: skip
"""Cephes ``logf``: ``log(1 + f) ~ f - f**2/2 + f**3 * P(f)`` on ``[sqrt(1/2)-1, sqrt(2)-1)``."""
TANH_P = (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
          -3.33332819422e-1)  # fmt: skip
"""Cephes ``tanhf``: ``tanh(x) ~ x + x**3 * P(x**2)`` for ``|x| < 0.625``."""
ERF_A = tuple(map(float.fromhex, ("-0x1.3a1a82p-11", "0x1.473f48p-08", "-0x1.b68bd2p-06",
                                    "0x1.ce1a46p-04", "-0x1.8126e0p-02",
                                    "0x1.06eba6p-03")))  # fmt: skip
"""``erf(x) ~ x + x * A(x**2)`` for ``|x| < 0.921875``."""
ERF_B = tuple(map(float.fromhex, ("0x1.222900p-16", "-0x1.91d2ccp-12", "0x1.fd1336p-09",
                                    "-0x1.8d6300p-06", "0x1.b55cb0p-04", "0x1.450aa0p-01",
                                    "0x1.079d0cp-03")))  # fmt: skip
"""``erf(a) ~ 1 - exp(-(a + a * B(a)))`` for ``0.921875 <= a < 4``."""


def _keep_nan(b: ArithBuilder, x: Value, result: Value) -> Value:
    """``x`` where ``x`` is NaN, else ``result``."""
    return b.select(b.cmp("uno", x, x), x, result)


def _power_of_two(b: ArithBuilder, k: Value) -> tuple[Value, Value]:
    """Two f32 factors whose product is ``2**k`` (i32 ``k`` in ``[-150, 129]``), both normal."""
    half = b.int_op(arith.ShRSIOp, k, b.i(1))
    rest = b.int_op(arith.SubIOp, k, half)
    factors = []
    for n in (half, rest):
        biased = b.int_op(arith.AddIOp, n, b.i(127))
        factors.append(b.from_bits(b.int_op(arith.ShLIOp, biased, b.i(23))))
    return factors[0], factors[1]


def expand_exp(b: ArithBuilder, x: Value) -> Value:
    """``e**x`` (steps in the module docstring)."""
    clamped = b.clamp(x, -104.0, 89.0)  # step 1
    k = b.floor(b.muladd(clamped, b.f(LOG2E), b.f(0.5)))  # step 2
    r = b.sub(clamped, b.mul(k, b.f(LN2_HI)))
    r = b.sub(r, b.mul(k, b.f(LN2_LO)))
    r2 = b.mul(r, r)  # step 3
    y = b.add(b.muladd(b.horner(r, EXP_P), r2, r), b.f(1.0))
    low, high = _power_of_two(b, b.to_int(k))  # step 4
    return _keep_nan(b, x, b.mul(b.mul(y, low), high))  # step 5


def expand_log(b: ArithBuilder, x: Value) -> Value:
    """``log(x)`` (steps in the module docstring)."""
    subnormal = b.cmp("olt", b.abs(x), b.f_bits(0x00800000))  # step 1 (0 included)
    scaled = b.select(subnormal, b.mul(x, b.f(2.0**23)), x)
    bits = b.to_bits(scaled)  # step 2
    biased = b.int_op(arith.AndIOp, b.int_op(arith.ShRUIOp, bits, b.i(23)), b.i(0xFF))
    e = b.sub(b.to_float(biased), b.select(subnormal, b.f(126.0 + 23.0), b.f(126.0)))
    fraction = b.int_op(arith.AndIOp, bits, b.i(0x007FFFFF))
    m = b.from_bits(b.int_op(arith.OrIOp, fraction, b.i(0x3F000000)))  # in [0.5, 1)
    small = b.cmp("olt", m, b.f(0.707106781186547524))
    e = b.sub(e, b.select(small, b.f(1.0), b.f(0.0)))
    f = b.add(b.sub(m, b.f(1.0)), b.select(small, m, b.f(0.0)))
    f2 = b.mul(f, f)  # step 3
    y = b.mul(b.mul(b.horner(f, LOG_P), f), f2)
    y = b.muladd(e, b.f(LN2_LO), y)
    y = b.muladd(f2, b.f(-0.5), y)
    result = b.muladd(e, b.f(LN2_HI), b.add(f, y))
    result = b.select(b.cmp("oeq", x, b.f_bits(0x7F800000)), x, result)  # step 4
    result = b.select(b.cmp("ult", x, b.f(0.0)), b.f_bits(0x7FC00000), result)
    return b.select(b.cmp("oeq", x, b.f(0.0)), b.f_bits(0xFF800000), result)


def expand_tanh(b: ArithBuilder, x: Value) -> Value:
    """``tanh(x)`` (see the module docstring)."""
    a = b.abs(x)
    a2 = b.mul(a, a)
    near_zero = b.muladd(b.mul(b.horner(a2, TANH_P), a2), a, a)
    exp_2a = expand_exp(b, b.add(a, a))  # inf beyond |x| = 44: the quotient is then 0
    far = b.sub(b.f(1.0), b.div(b.f(2.0), b.add(exp_2a, b.f(1.0))))
    result = b.copysign(b.select(b.cmp("olt", a, b.f(0.625)), near_zero, far), x)
    return _keep_nan(b, x, result)


def expand_erf(b: ArithBuilder, x: Value) -> Value:
    """``erf(x)`` (see the module docstring)."""
    a = b.abs(x)
    a2 = b.mul(a, a)
    near_zero = b.muladd(a, b.horner(a2, ERF_A), a)
    middle_a = b.clamp(a, 0.0, 4.0)  # keeps B(a) finite for the lanes that do not use it
    t = b.muladd(middle_a, b.horner(middle_a, ERF_B), middle_a)
    middle = b.sub(b.f(1.0), expand_exp(b, b.sub(b.f(0.0), t)))
    result = b.select(b.cmp("olt", a, b.f(4.0)), middle, b.f(1.0))
    result = b.select(b.cmp("olt", a, b.f(0.921875)), near_zero, result)
    return _keep_nan(b, x, b.copysign(result, x))


EXPANSIONS = {
    "math.exp": expand_exp,
    "math.log": expand_log,
    "math.tanh": expand_tanh,
    "math.erf": expand_erf,
}
"""The math ops the approximation pass expands, and how."""
