"""``math-polynomial-approximation``: ``exp``, ``log``, ``tanh``, ``erf`` as arith ops.

LLVM turns ``math.exp`` into the intrinsic ``llvm.exp``, and the x86 backend turns that
into a call to the C library's ``expf``; on a ``<8 x float>`` it makes eight calls,
one per lane (``extractelement``, ``call @expf``, ``insertelement``), so a vectorized
softmax runs its exponentials at scalar speed. MLIR's ``-math-polynomial-approximation``
replaces such ops by their formulas in arith ops (range reduction + a polynomial, see
``math_polynomials.py``): ``mulf``, ``addf``, ``select``, ``bitcast``... on the same
vector type, which LLVM keeps in vector registers (``vmulps``, ``vblendvps``).

1. Walk the IR; pick every ``math.exp/log/tanh/erf`` on ``f32``, ``f16`` or ``bf16``,
   scalar or 1-D vector.
2. For ``f16``/``bf16``, ``arith.extf`` the operand to f32 (MLIR's ``ReuseF32Expansion``
   does the same): the approximation is computed in f32, its few-ulp error vanishes
   when the result is rounded back (``arith.truncf``).
3. Build the expansion before the op (``EXPANSIONS``) and replace the op with it.
4. Count what was expanded in ``statistics`` (``"math.exp expanded"``).

Errors of the expansions, measured over the whole f32 range: at most 1.1 ulp (exp 0.89,
log 0.75, tanh 1.10, erf 0.95; the table in ``math_polynomials.py``). The results do not
depend on the machine: every multiply-add is two rounded ops, never a fused one.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: vector<8xbf16>) -> vector<8xbf16> {
...   %y = math.tanh %x : vector<8xbf16>
...   return %y : vector<8xbf16> }''')
>>> approximate = MathApproximationPass()
>>> approximate.run(m)
>>> sorted({op.name for op in m.walk() if op.name.startswith("math.")})  # exact ones
['math.absf', 'math.copysign', 'math.floor']
>>> dict(approximate.statistics)
{'math.tanh expanded': 1}
"""

from __future__ import annotations

from collections.abc import Iterable

from tinycomp.dialects import arith
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type, with_element_type
from tinycomp.ir.types import FloatType, Type, VectorType, f32
from tinycomp.passes.errors import PassError
from tinycomp.passes.math_builder import ArithBuilder
from tinycomp.passes.math_polynomials import EXPANSIONS
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["MathApproximationPass", "approximate_math"]

_FLOAT_NAMES = ("f32", "f16", "bf16")


class MathApproximationPass(Pass):
    """Expand ``functions`` (default: exp, log, tanh, erf) into arith ops (module docstring)."""

    name = "math-polynomial-approximation"
    summary = "expand math.exp/log/tanh/erf into vectorizable arith polynomials"

    def __init__(self, functions: Iterable[str] = ("exp", "log", "tanh", "erf")) -> None:
        super().__init__()
        names = tuple(f"math.{fn}" for fn in functions)
        unknown = [name for name in names if name not in EXPANSIONS]
        if unknown:
            known = ", ".join(name.removeprefix("math.") for name in EXPANSIONS)
            raise PassError(
                f"{self.name}: no approximation for {', '.join(unknown)}; expected some of {known}"
            )
        self.functions = names
        """The math op names expanded (``("math.exp", ...)``)."""

    def run(self, op: Operation) -> None:
        for name, count in approximate_math(op, self.functions).items():
            self.statistics[f"{name} expanded"] += count


def _supported(type_: Type) -> bool:
    """f32/f16/bf16, alone or as the lanes of a 1-D vector."""
    if isinstance(type_, VectorType) and len(type_.shape) != 1:
        return False
    scalar = element_type(type_)
    return isinstance(scalar, FloatType) and scalar.name in _FLOAT_NAMES


def approximate_math(op: Operation, functions: Iterable[str] = tuple(EXPANSIONS)) -> dict[str, int]:
    """Steps 1-3 on every op nested in ``op``; how many of each function were expanded.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: f64) -> f64 {
    ...   %y = math.exp %x : f64
    ...   return %y : f64 }''')
    >>> approximate_math(m)  # f64 keeps its libm call
    {}
    """
    functions = tuple(functions)
    rewriter = PatternRewriter()
    counts: dict[str, int] = {}
    targets = [
        nested
        for nested in op.walk()
        if nested.name in functions and nested.results and _supported(nested.results[0].type)
    ]
    for math_op in targets:  # step 1
        result_type = math_op.results[0].type
        wide_type = with_element_type(result_type, f32)
        builder = ArithBuilder(rewriter, math_op, wide_type)
        operand = math_op.operands[0]
        if result_type != wide_type:  # step 2
            operand = builder.insert(arith.ExtFOp.build(operand, wide_type))
        value = EXPANSIONS[math_op.name](builder, operand)  # step 3
        if result_type != wide_type:
            value = builder.insert(arith.TruncFOp.build(value, result_type))
        rewriter.replace_op(math_op, [value])
        counts[math_op.name] = counts.get(math_op.name, 0) + 1  # step 4
    return counts


register_pass(MathApproximationPass)
