"""affine to LLVM: affine maps become integer arithmetic (MLIR's ``-lower-affine``).

An affine expression is a tree of ``+``, ``*``, ``floordiv``, ``ceildiv`` and ``mod``
over dimensions, symbols and constants (``tinycomp.affine``). Lowering it walks the
tree bottom-up, folding constant subtrees in Python and writing one or a few
instructions per remaining node. LLVM's ``sdiv`` and ``srem`` round toward zero, but
affine division rounds toward minus infinity and ``mod`` is never negative, so for a
positive divisor ``b`` (the only kind affine maps allow):

* ``a mod b``      = ``r = srem a, b``; ``r < 0 ? r + b : r``
* ``a floordiv b`` = ``a < 0 ? -1 - ((-1 - a) sdiv b) : a sdiv b``
* ``a ceildiv b``  = ``a <= 0 ? -((-a) sdiv b) : ((a - 1) sdiv b) + 1``

These are exactly the sequences of MLIR's ``-lower-affine``. The ops:

1. ``affine.apply``: its map's one result.
2. ``affine.min`` / ``affine.max``: every result, then ``llvm.smin`` / ``llvm.smax``.
3. ``affine.for``: a counted loop from the max of the lower-bound map's results to the
   min of the upper-bound map's, with ``iter_args`` like ``scf.for``.
4. ``affine.load`` / ``affine.store``: the subscripts are the map's results, then as
   ``memref.load`` / ``memref.store``.
5. ``affine.if``: the conjunction of ``expr >= 0`` / ``expr == 0``, then as ``scf.if``.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> text = emit_llvm(parse('''func.func @f(%i: index) -> index {
...   %r = affine.min affine_map<(d0) -> (-d0 + 9, 5)>(%i)
...   return %r : index
... }''')).text
>>> print("\\n".join(text.splitlines()[4:7]))
  %i.neg = mul i64 %i, -1
  %i.neg.plus = add i64 %i.neg, 9
  %r = call i64 @llvm.smin.i64(i64 %i.neg.plus, i64 5)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine.expr import (
    AffineBinaryExpr,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymbolExpr,
    apply_binary,
)
from tinycomp.codegen.llvm import index_math
from tinycomp.codegen.llvm.control_flow import counted_loop, if_then_else
from tinycomp.codegen.llvm.emit_scf import (
    bind_grouped,
    emit_region_values,
    flat_parts,
    part_hints,
)
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.codegen.llvm.types import element_size
from tinycomp.ir.operation import Operation

__all__ = ["emit_affine_expr"]


def emit_affine_expr(
    em: FunctionEmitter, expr: AffineExpr, dims: Sequence[str], symbols: Sequence[str]
) -> str:
    """The LLVM operand text of ``expr`` with these dimension and symbol values.

    >>> from tinycomp.affine import dim, sym
    >>> from tinycomp.codegen.llvm.renderer import FunctionText, ModuleText
    >>> em = FunctionEmitter(ModuleText(), FunctionText("f", "void", []))
    >>> em.start_block("entry")
    >>> emit_affine_expr(em, dim(0) * 4 + sym(0), ["%i"], ["%n"])
    '%i.4.plus'
    >>> emit_affine_expr(em, (dim(0) + 3) % 4, ["5"], [])  # all constant: folded
    '0'
    """
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymbolExpr):
        return symbols[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return str(expr.value)
    assert isinstance(expr, AffineBinaryExpr)
    lhs = emit_affine_expr(em, expr.lhs, dims, symbols)
    rhs = emit_affine_expr(em, expr.rhs, dims, symbols)
    if index_math.is_constant(lhs) and index_math.is_constant(rhs):
        return str(apply_binary(expr.kind, int(lhs), int(rhs)))
    if expr.kind == "add":
        return index_math.add(em, lhs, rhs, flags="")
    if expr.kind == "mul":
        if rhs == "-1" and not index_math.is_constant(lhs):
            result = em.fresh(f"{lhs.lstrip('%')}.neg")
            em.emit(f"{result} = mul i64 {lhs}, -1")
            return result
        return index_math.mul(em, lhs, rhs, flags="")
    if expr.kind == "mod":
        return _mod(em, lhs, rhs)
    return _division(em, lhs, rhs, expr.kind)


def _name(operand: str, what: str) -> str:
    return f"{operand.lstrip('%') if not index_math.is_constant(operand) else 'c'}.{what}"


def _mod(em: FunctionEmitter, a: str, b: str) -> str:
    remainder = em.fresh(_name(a, "rem"))
    em.emit(f"{remainder} = srem i64 {a}, {b}")
    negative = em.fresh(_name(a, "rem.neg"))
    em.emit(f"{negative} = icmp slt i64 {remainder}, 0")
    shifted = em.fresh(_name(a, "rem.plus"))
    em.emit(f"{shifted} = add i64 {remainder}, {b}")
    result = em.fresh(_name(a, "mod"))
    em.emit(f"{result} = select i1 {negative}, i64 {shifted}, i64 {remainder}")
    return result


def _division(em: FunctionEmitter, a: str, b: str, kind: str) -> str:
    if kind == "floordiv":
        negative = em.fresh(_name(a, "neg"))
        em.emit(f"{negative} = icmp slt i64 {a}, 0")
        flipped = em.fresh(_name(a, "flipped"))
        em.emit(f"{flipped} = sub i64 -1, {a}")
        dividend = em.fresh(_name(a, "dividend"))
        em.emit(f"{dividend} = select i1 {negative}, i64 {flipped}, i64 {a}")
        quotient = em.fresh(_name(a, "quotient"))
        em.emit(f"{quotient} = sdiv i64 {dividend}, {b}")
        corrected = em.fresh(_name(a, "corrected"))
        em.emit(f"{corrected} = sub i64 -1, {quotient}")
        result = em.fresh(_name(a, "floordiv"))
        em.emit(f"{result} = select i1 {negative}, i64 {corrected}, i64 {quotient}")
        return result
    non_positive = em.fresh(_name(a, "nonpos"))
    em.emit(f"{non_positive} = icmp sle i64 {a}, 0")
    negated = em.fresh(_name(a, "negated"))
    em.emit(f"{negated} = sub i64 0, {a}")
    decremented = em.fresh(_name(a, "decremented"))
    em.emit(f"{decremented} = sub i64 {a}, 1")
    dividend = em.fresh(_name(a, "dividend"))
    em.emit(f"{dividend} = select i1 {non_positive}, i64 {negated}, i64 {decremented}")
    quotient = em.fresh(_name(a, "quotient"))
    em.emit(f"{quotient} = sdiv i64 {dividend}, {b}")
    negative_quotient = em.fresh(_name(a, "quotient.neg"))
    em.emit(f"{negative_quotient} = sub i64 0, {quotient}")
    incremented = em.fresh(_name(a, "quotient.inc"))
    em.emit(f"{incremented} = add i64 {quotient}, 1")
    result = em.fresh(_name(a, "ceildiv"))
    em.emit(f"{result} = select i1 {non_positive}, i64 {negative_quotient}, i64 {incremented}")
    return result


def emit_map_results(em: FunctionEmitter, affine_map, operands) -> list[str]:
    """The texts of every result of ``affine_map`` on ``operands`` (dims, then symbols)."""
    texts = [em.value(v) for v in operands]
    dims, symbols = texts[: affine_map.num_dims], texts[affine_map.num_dims :]
    return [emit_affine_expr(em, expr, dims, symbols) for expr in affine_map.results]


def _combine(em: FunctionEmitter, values: list[str], kind: str, hint: str) -> str:
    """``smin``/``smax`` of ``values``, folding the constant ones."""
    constants = [int(v) for v in values if index_math.is_constant(v)]
    others = [v for v in values if not index_math.is_constant(v)]
    pick = min if kind == "smin" else max
    if constants:
        others.append(str(pick(constants)))
    result = others[0]
    callee = em.intrinsic(f"llvm.{kind}.i64", "i64", ["i64", "i64"])
    for other in others[1:]:
        combined = em.fresh(hint)
        em.emit(f"{combined} = call i64 {callee}(i64 {result}, i64 {other})")
        result = combined
    return result


@register_emitter("affine.apply")
def emit_apply(em: FunctionEmitter, op: Operation) -> None:
    """Step 1."""
    (value,) = emit_map_results(em, op.map, op.operands)
    em.bind(op.result, value)


@register_emitter("affine.min")
def emit_min(em: FunctionEmitter, op: Operation) -> None:
    """Step 2, the smallest result."""
    values = emit_map_results(em, op.map, op.operands)
    em.bind(op.result, _combine(em, values, "smin", op.result.name_hint or "min"))


@register_emitter("affine.max")
def emit_max(em: FunctionEmitter, op: Operation) -> None:
    """Step 2, the largest result."""
    values = emit_map_results(em, op.map, op.operands)
    em.bind(op.result, _combine(em, values, "smax", op.result.name_hint or "max"))


@register_emitter("affine.for")
def emit_for(em: FunctionEmitter, op: Operation) -> None:
    """Step 3."""
    lower = _combine(em, emit_map_results(em, op.lower_bound_map, op.lower_bound_operands),
                     "smax", "lb")  # fmt: skip
    upper = _combine(em, emit_map_results(em, op.upper_bound_map, op.upper_bound_operands),
                     "smin", "ub")  # fmt: skip

    def body(iv: str, phis: list[str]) -> list[str]:
        em.bind(op.induction_var, iv)
        bind_grouped(em, op.region_iter_args, phis)
        return emit_region_values(em, op, op.body)

    results = counted_loop(
        em, lower, upper, str(op.step), flat_parts(em, op.inits), body,
        iv_hint=op.induction_var.name_hint or "iv",
        carried_hints=part_hints(em, op.region_iter_args, "iter"),
    )  # fmt: skip
    bind_grouped(em, op.results, results)


@register_emitter("affine.load")
def emit_load(em: FunctionEmitter, op: Operation) -> None:
    """Step 4, a load."""
    indices = emit_map_results(em, op.map, op.map_operands)
    type_, align = em.llvm_type(op.result.type), element_size(op.result.type)
    em.bind(op.result, em.load(op.memref, indices, type_, align, op.result.name_hint or "load"))


@register_emitter("affine.store")
def emit_store(em: FunctionEmitter, op: Operation) -> None:
    """Step 4, a store."""
    indices = emit_map_results(em, op.map, op.map_operands)
    type_, align = em.llvm_type(op.value.type), element_size(op.value.type)
    em.store(em.value(op.value), type_, op.memref, indices, align)


@register_emitter("affine.if")
def emit_if(em: FunctionEmitter, op: Operation) -> None:
    """Step 5."""
    condition_set = op.condition
    texts = [em.value(v) for v in op.operands]
    dims, symbols = texts[: condition_set.num_dims], texts[condition_set.num_dims :]
    condition = "true"
    for expr, is_equality in zip(condition_set.constraints, condition_set.eq_flags, strict=True):
        value = emit_affine_expr(em, expr, dims, symbols)
        holds = em.fresh("holds")
        em.emit(f"{holds} = icmp {'eq' if is_equality else 'sge'} i64 {value}, 0")
        if condition == "true":
            condition = holds
        else:
            both = em.fresh("holds.all")
            em.emit(f"{both} = and i1 {condition}, {holds}")
            condition = both
    else_block = op.regions[1].blocks[0] if op.regions[1].blocks else None
    types = [t for value in op.results for t in em.part_types(value.type)]
    results = if_then_else(
        em,
        condition,
        lambda: emit_region_values(em, op, op.regions[0].blocks[0]),
        (lambda: emit_region_values(em, op, else_block)) if else_block is not None else None,
        types,
    )
    bind_grouped(em, op.results, results)
