"""arith to LLVM: constants, arithmetic, comparisons and ``select``.

Most arith ops are one LLVM instruction, so most of this file is a table (MLIR's
``-convert-arith-to-llvm`` is the same table, as ``OneToOneConvertToLLVMPattern``s):

=============================  =========================================================
arith                          LLVM
=============================  =========================================================
addf subf mulf divf remf negf  ``fadd fsub fmul fdiv frem fneg`` (+ fast-math flags)
maximumf minimumf              ``llvm.maximum`` / ``llvm.minimum`` (NaN in, NaN out)
maxnumf minnumf                ``llvm.maxnum`` / ``llvm.minnum`` (NaN loses)
addi subi muli                 ``add sub mul`` (+ ``nsw``/``nuw`` overflow flags)
divsi divui remsi remui        ``sdiv udiv srem urem``
andi ori xori shli shrsi shrui ``and or xor shl ashr lshr``
maxsi minsi maxui minui        ``llvm.smax llvm.smin llvm.umax llvm.umin``
floordivsi ceildivsi ceildivui a few instructions each (LLVM divides toward zero)
cmpi cmpf select               ``icmp fcmp select``, same predicate names
constant                       no instruction: the text of the value (``constants.py``)
=============================  =========================================================

``f16`` and ``bf16`` arithmetic is written as it is (``fadd half``): LLVM's x86
backend has no half-precision adder, so it *promotes* each op, extending to ``float``,
computing, and rounding back, which is exactly one rounding per op as the IR says
(MLIR's ``arith-emulate-unsupported-floats`` writes the same extend/compute/truncate
sequence by hand for targets whose LLVM backend cannot).

Steps of each emitter:

1. Read the operands' LLVM texts (``em.value``) and the result's LLVM type.
2. Write the instruction (or the few, for ``floordivsi``/``ceildivsi``) into a fresh
   name, named after the tinycomp result when it has a name, with the op's fast-math
   or overflow flags.
3. Bind the result to that name; ``arith.constant`` only binds (to the constant's text).

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> text = emit_llvm(parse('''func.func @f(%a: i64, %b: i64) -> i64 {
...   %q = arith.floordivsi %a, %b : i64
...   return %q : i64
... }''')).text
>>> print(text.splitlines()[2])
  %q.quotient = sdiv i64 %a, %b
"""

from __future__ import annotations

from tinycomp.codegen.llvm.constants import constant_text, splat
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.codegen.llvm.types import intrinsic_suffix
from tinycomp.ir.operation import Operation

__all__ = ["fastmath_flags"]

FLOAT_INSTRUCTIONS = {
    "arith.addf": "fadd", "arith.subf": "fsub", "arith.mulf": "fmul",
    "arith.divf": "fdiv", "arith.remf": "frem",
}  # fmt: skip
INT_INSTRUCTIONS = {
    "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul",
    "arith.divsi": "sdiv", "arith.divui": "udiv", "arith.remsi": "srem", "arith.remui": "urem",
    "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor",
    "arith.shli": "shl", "arith.shrsi": "ashr", "arith.shrui": "lshr",
}  # fmt: skip
INTRINSICS = {
    "arith.maximumf": "llvm.maximum", "arith.minimumf": "llvm.minimum",
    "arith.maxnumf": "llvm.maxnum", "arith.minnumf": "llvm.minnum",
    "arith.maxsi": "llvm.smax", "arith.minsi": "llvm.smin",
    "arith.maxui": "llvm.umax", "arith.minui": "llvm.umin",
}  # fmt: skip
_OVERFLOW_OPS = ("arith.addi", "arith.subi", "arith.muli", "arith.shli")


def result_name(em: FunctionEmitter, op: Operation, fallback: str) -> str:
    """A fresh LLVM name for ``op``'s result: the tinycomp name when it has one."""
    hint = op.results[0].name_hint if op.results else None
    return em.fresh(hint or fallback)


def fastmath_flags(op: Operation) -> str:
    """LLVM's fast-math flags for ``#arith.fastmath<nnan,contract>``: ``"nnan contract "``
    (with a trailing space), ``""`` when there are none.

    >>> from tinycomp.ir import Operation, OpaqueAttr
    >>> op = Operation.create("arith.addf", attributes={
    ...     "fastmath": OpaqueAttr("#arith.fastmath<nnan,contract>")})
    >>> fastmath_flags(op)
    'nnan contract '
    """
    return _flags(op, "fastmath")


def _flags(op: Operation, attribute: str) -> str:
    attr = op.attributes.get(attribute)
    if attr is None:
        return ""
    body = str(attr).partition("<")[2].rstrip(">")
    words = [w.strip() for w in body.split(",") if w.strip() and w.strip() != "none"]
    return "".join(f"{w} " for w in words)


def _binary(em: FunctionEmitter, op: Operation, instruction: str, flags: str) -> None:
    lhs, rhs = (em.value(v) for v in op.operands)
    result = result_name(em, op, op.name.removeprefix("arith."))
    em.emit(f"{result} = {instruction} {flags}{em.llvm_type(op.result.type)} {lhs}, {rhs}")
    em.bind(op.result, result)


def _emit_float_binary(em: FunctionEmitter, op: Operation) -> None:
    _binary(em, op, FLOAT_INSTRUCTIONS[op.name], fastmath_flags(op))


def _emit_int_binary(em: FunctionEmitter, op: Operation) -> None:
    flags = _flags(op, "overflowFlags") if op.name in _OVERFLOW_OPS else ""
    _binary(em, op, INT_INSTRUCTIONS[op.name], flags)


def _emit_intrinsic_binary(em: FunctionEmitter, op: Operation) -> None:
    type_ = em.llvm_type(op.result.type)
    callee = em.intrinsic(f"{INTRINSICS[op.name]}.{intrinsic_suffix(type_)}", type_, [type_] * 2)
    lhs, rhs = (em.value(v) for v in op.operands)
    result = result_name(em, op, op.name.removeprefix("arith."))
    em.emit(f"{result} = call {fastmath_flags(op)}{type_} {callee}({type_} {lhs}, {type_} {rhs})")
    em.bind(op.result, result)


for _name in FLOAT_INSTRUCTIONS:
    register_emitter(_name)(_emit_float_binary)
for _name in INT_INSTRUCTIONS:
    register_emitter(_name)(_emit_int_binary)
for _name in INTRINSICS:
    register_emitter(_name)(_emit_intrinsic_binary)


@register_emitter("arith.constant")
def emit_constant(em: FunctionEmitter, op: Operation) -> None:
    """No instruction: bind the result to the constant's text."""
    em.bind(op.result, constant_text(op.attributes["value"]))


@register_emitter("arith.negf")
def emit_negf(em: FunctionEmitter, op: Operation) -> None:
    """``fneg``: flips the sign bit (``0 - x`` would turn ``0.0`` into ``0.0``, not ``-0.0``)."""
    result = result_name(em, op, "negf")
    type_ = em.llvm_type(op.result.type)
    em.emit(f"{result} = fneg {fastmath_flags(op)}{type_} {em.value(op.operands[0])}")
    em.bind(op.result, result)


@register_emitter("arith.floordivsi")
def emit_floordivsi(em: FunctionEmitter, op: Operation) -> None:
    """``floor(a / b)``: ``sdiv`` rounds toward zero, so subtract one when the division
    was inexact and the signs differ."""
    _rounded_division(em, op, signed=True, toward="floor")


@register_emitter("arith.ceildivsi")
def emit_ceildivsi(em: FunctionEmitter, op: Operation) -> None:
    """``ceil(a / b)``: add one when the division was inexact and the signs agree."""
    _rounded_division(em, op, signed=True, toward="ceil")


@register_emitter("arith.ceildivui")
def emit_ceildivui(em: FunctionEmitter, op: Operation) -> None:
    """``ceil(a / b)`` unsigned: add one when the division was inexact."""
    _rounded_division(em, op, signed=False, toward="ceil")


def _rounded_division(em: FunctionEmitter, op: Operation, signed: bool, toward: str) -> None:
    a, b = (em.value(v) for v in op.operands)
    type_ = em.llvm_type(op.result.type)
    zero, one = splat(type_, "0"), splat(type_, "1")
    base = (op.result.name_hint or "div").lstrip("%")
    quotient, remainder = em.fresh(f"{base}.quotient"), em.fresh(f"{base}.remainder")
    em.emit(f"{quotient} = {'s' if signed else 'u'}div {type_} {a}, {b}")
    em.emit(f"{remainder} = {'s' if signed else 'u'}rem {type_} {a}, {b}")
    inexact = em.fresh(f"{base}.inexact")
    em.emit(f"{inexact} = icmp ne {type_} {remainder}, {zero}")
    adjust = inexact
    if signed:
        a_negative, b_negative = em.fresh(f"{base}.a.neg"), em.fresh(f"{base}.b.neg")
        em.emit(f"{a_negative} = icmp slt {type_} {a}, {zero}")
        em.emit(f"{b_negative} = icmp slt {type_} {b}, {zero}")
        signs = em.fresh(f"{base}.signs.differ" if toward == "floor" else f"{base}.signs.agree")
        compare = "ne" if toward == "floor" else "eq"
        bool_type = _bool_type(type_)
        em.emit(f"{signs} = icmp {compare} {bool_type} {a_negative}, {b_negative}")
        adjust = em.fresh(f"{base}.adjust")
        em.emit(f"{adjust} = and {bool_type} {inexact}, {signs}")
    moved = em.fresh(f"{base}.moved")
    em.emit(f"{moved} = {'sub' if toward == 'floor' else 'add'} {type_} {quotient}, {one}")
    result = result_name(em, op, "div")
    em.emit(f"{result} = select {_bool_type(type_)} {adjust}, {type_} {moved}, {type_} {quotient}")
    em.bind(op.result, result)


def _bool_type(type_: str) -> str:
    """``i1``, or ``<N x i1>`` for a vector type: what a comparison of ``type_`` gives."""
    if type_.startswith("<"):
        return f"<{type_[1:].partition(' x ')[0]} x i1>"
    return "i1"


@register_emitter("arith.cmpi")
def emit_cmpi(em: FunctionEmitter, op: Operation) -> None:
    """``icmp <predicate>``: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge."""
    _compare(em, op, "icmp", op.predicate, "")


@register_emitter("arith.cmpf")
def emit_cmpf(em: FunctionEmitter, op: Operation) -> None:
    """``fcmp <predicate>``: the same sixteen predicates (``olt`` false on NaN, ``ult`` true)."""
    _compare(em, op, "fcmp", op.predicate, fastmath_flags(op))


def _compare(em: FunctionEmitter, op: Operation, instruction: str, predicate: str, flags: str):
    lhs, rhs = (em.value(v) for v in op.operands)
    type_ = em.llvm_type(op.operands[0].type)
    result = result_name(em, op, "cmp")
    em.emit(f"{result} = {instruction} {flags}{predicate} {type_} {lhs}, {rhs}")
    em.bind(op.result, result)


@register_emitter("arith.select")
def emit_select(em: FunctionEmitter, op: Operation) -> None:
    """``select i1 %c, T %a, T %b`` (or a vector of conditions)."""
    condition, true_value, false_value = op.operands
    type_ = em.llvm_type(op.result.type)
    condition_type = em.llvm_type(condition.type)
    result = result_name(em, op, "select")
    em.emit(
        f"{result} = select {condition_type} {em.value(condition)}, {type_} "
        f"{em.value(true_value)}, {type_} {em.value(false_value)}"
    )
    em.bind(op.result, result)
