"""math to LLVM: intrinsics where LLVM has them, the C library where it does not.

An LLVM *intrinsic* is a function LLVM knows the meaning of (``llvm.exp.f32``): the
optimizer may fold it, vectorize it (``llvm.exp.v8f32``), or replace it with a
cheaper sequence, and each backend decides how to compute it. On x86 ``llvm.sqrt``
becomes one ``vsqrtss`` instruction, ``llvm.floor`` a ``vroundss``, and ``llvm.exp``,
``llvm.tanh``... a call to the C math library (``expf``, ``tanhf``). The mapping, as
MLIR's ``-convert-math-to-llvm`` and ``-convert-math-to-libm`` split it:

=========================================  ==============================================
math                                       LLVM
=========================================  ==============================================
exp exp2 log log2 log10 sqrt sin cos tan   ``llvm.<name>`` (``absf`` is ``llvm.fabs``)
atan sinh cosh tanh                        ``llvm.<name>``; x86 calls libm's ``tanhf``...
ceil floor round roundeven trunc           ``llvm.<name>`` (one instruction with AVX)
powf copysign atan2 fma                    ``llvm.pow llvm.copysign llvm.atan2 llvm.fma``
rsqrt                                      ``1 / llvm.sqrt(x)``: two correctly rounded ops
erf erfc expm1 log1p cbrt                  libm: ``erff``, ``erfcf``... (no intrinsic)
absi ctlz cttz ctpop                       ``llvm.abs llvm.ctlz llvm.cttz llvm.ctpop``
=========================================  ==============================================

Steps of each emitter:

1. Intrinsic ops: name the intrinsic with the type's overload suffix
   (``llvm.exp.f32``, ``llvm.exp.v8f32``), declare it once, call it (``absi``, ``ctlz``
   and ``cttz`` take one more argument, ``i1 false``: a zero input is not poison).
2. ``rsqrt``: ``llvm.sqrt`` then ``fdiv`` of one by it.
3. libm ops: for each scalar (each lane of a vector), widen ``half``/``bfloat`` to
   ``float``, call ``erff`` (``erf`` for ``double``), round back, rebuild the vector.

``tanh`` is the intrinsic ``llvm.tanh``, which LLVM's x86 backend turns into a call to
libm's ``tanhf``. A libm function exists for ``float`` (``erff``) and ``double``
(``erf``) only: for ``half`` and ``bfloat`` the argument is extended to ``float`` and
the result rounded back, and a vector is done lane by lane (``extractelement``, call,
``insertelement``); LLVM does the same with ``llvm.exp.v8f32``: eight ``expf`` calls.
To keep ``exp``, ``log``, ``tanh`` and ``erf`` in vector registers, expand them into
arith ops before code generation (``tinycomp.passes.MathApproximationPass``, as MLIR's
``-math-polynomial-approximation``); this emitter then never sees them.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> print(emit_llvm(parse('''func.func @f(%x: f16) -> f16 {
...   %y = math.erf %x : f16
...   return %y : f16
... }''')).text)
declare float @erff(float)
<BLANKLINE>
define half @f(half %x) {
entry:
  %x.f32 = fpext half %x to float
  %y.f32 = call float @erff(float %x.f32)
  %y = fptrunc float %y.f32 to half
  ret half %y
}
"""

from __future__ import annotations

from tinycomp.codegen.llvm.emit_arith import fastmath_flags, result_name
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.codegen.llvm.types import float_literal, intrinsic_suffix
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import VectorType

__all__ = ["INTRINSICS", "LIBM_FUNCTIONS"]

INTRINSICS = {
    "math.exp": "llvm.exp", "math.exp2": "llvm.exp2", "math.log": "llvm.log",
    "math.log2": "llvm.log2", "math.log10": "llvm.log10", "math.sqrt": "llvm.sqrt",
    "math.sin": "llvm.sin", "math.cos": "llvm.cos", "math.tan": "llvm.tan",
    "math.atan": "llvm.atan", "math.sinh": "llvm.sinh", "math.cosh": "llvm.cosh",
    "math.tanh": "llvm.tanh", "math.absf": "llvm.fabs", "math.ceil": "llvm.ceil",
    "math.floor": "llvm.floor", "math.round": "llvm.round",
    "math.roundeven": "llvm.roundeven", "math.trunc": "llvm.trunc",
    "math.powf": "llvm.pow", "math.copysign": "llvm.copysign", "math.atan2": "llvm.atan2",
    "math.fma": "llvm.fma",
    "math.absi": "llvm.abs", "math.ctlz": "llvm.ctlz", "math.cttz": "llvm.cttz",
    "math.ctpop": "llvm.ctpop",
}  # fmt: skip
"""Math ops that are one LLVM intrinsic call."""

LIBM_FUNCTIONS = {
    "math.erf": "erf", "math.erfc": "erfc", "math.expm1": "expm1",
    "math.log1p": "log1p", "math.cbrt": "cbrt",
}  # fmt: skip
"""Math ops computed by the C math library (the ``double`` name; ``float`` adds ``f``)."""

_POISON_FLAG_OPS = ("math.absi", "math.ctlz", "math.cttz")
"""Intrinsics with an extra ``i1`` argument: whether some input is poison (no: false)."""


def _emit_intrinsic(em: FunctionEmitter, op: Operation) -> None:
    type_ = em.llvm_type(op.result.type)
    arguments = [(type_, em.value(v)) for v in op.operands]
    if op.name in _POISON_FLAG_OPS:
        arguments.append(("i1", "false"))
    name = f"{INTRINSICS[op.name]}.{intrinsic_suffix(type_)}"
    callee = em.intrinsic(name, type_, [t for t, _ in arguments])
    result = result_name(em, op, op.name.removeprefix("math."))
    flags = fastmath_flags(op)
    listed = ", ".join(f"{t} {v}" for t, v in arguments)
    em.emit(f"{result} = call {flags}{type_} {callee}({listed})")
    em.bind(op.result, result)


for _name in INTRINSICS:
    register_emitter(_name)(_emit_intrinsic)


@register_emitter("math.rsqrt")
def emit_rsqrt(em: FunctionEmitter, op: Operation) -> None:
    """``1 / sqrt(x)``, as MLIR's math-to-llvm writes it (x86's approximate ``rsqrtps``
    is only used by LLVM under fast-math)."""
    type_ = em.llvm_type(op.result.type)
    sqrt = em.intrinsic(f"llvm.sqrt.{intrinsic_suffix(type_)}", type_, [type_])
    base = op.result.name_hint or "rsqrt"
    root = em.fresh(f"{base}.sqrt")
    flags = fastmath_flags(op)
    em.emit(f"{root} = call {flags}{type_} {sqrt}({type_} {em.value(op.operands[0])})")
    one = float_literal(1.0, element_type(op.result.type).name)
    if isinstance(op.result.type, VectorType):
        one = f"splat ({type_[1:-1].partition(' x ')[2]} {one})"
    result = result_name(em, op, "rsqrt")
    em.emit(f"{result} = fdiv {flags}{type_} {one}, {root}")
    em.bind(op.result, result)


def _emit_libm(em: FunctionEmitter, op: Operation) -> None:
    result_type = op.result.type
    element = element_type(result_type)
    scalar = em.llvm_type(element)
    base = op.result.name_hint or op.name.removeprefix("math.")
    if isinstance(result_type, VectorType):
        if len(result_type.shape) != 1:
            raise em.op_error(op, f"expected a scalar or a 1-D vector, got {result_type}")
        vector_type = em.llvm_type(result_type)
        operand = em.value(op.operands[0])
        vector = "poison"
        for lane in range(result_type.shape[0]):
            value = em.fresh(f"{base}.lane{lane}.in")
            em.emit(f"{value} = extractelement {vector_type} {operand}, i64 {lane}")
            lane_result = _libm_scalar(em, op, scalar, value, f"{base}.lane{lane}")
            built = em.fresh(f"{base}.vector")
            em.emit(
                f"{built} = insertelement {vector_type} {vector}, {scalar} {lane_result}, "
                f"i64 {lane}"
            )
            vector = built
        em.bind(op.result, vector)
        return
    em.bind(op.result, _libm_scalar(em, op, scalar, em.value(op.operands[0]), base, final=True))


def _libm_scalar(
    em: FunctionEmitter, op: Operation, scalar: str, operand: str, base: str, final: bool = False
) -> str:
    """Call the libm function on one scalar, through ``float`` for ``half``/``bfloat``."""
    name = LIBM_FUNCTIONS[op.name]
    if scalar == "double":
        callee = em.intrinsic(name, "double", ["double"])
        result = em.fresh(base) if final else em.fresh(f"{base}.out")
        em.emit(f"{result} = call double {callee}(double {operand})")
        return result
    callee = em.intrinsic(f"{name}f", "float", ["float"])
    if scalar == "float":
        result = em.fresh(base) if final else em.fresh(f"{base}.out")
        em.emit(f"{result} = call float {callee}(float {operand})")
        return result
    widened = em.fresh(f"{operand.lstrip('%')}.f32")
    em.emit(f"{widened} = fpext {scalar} {operand} to float")
    computed = em.fresh(f"{base}.f32")
    em.emit(f"{computed} = call float {callee}(float {widened})")
    result = em.fresh(base) if final else em.fresh(f"{base}.out")
    em.emit(f"{result} = fptrunc float {computed} to {scalar}")
    return result


for _name in LIBM_FUNCTIONS:
    register_emitter(_name)(_emit_libm)
