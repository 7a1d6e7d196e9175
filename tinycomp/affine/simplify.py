"""Simplifying affine expressions to a canonical form.

The algorithm, ``simplify_expr``:

1. Walk the tree bottom-up and turn every node into a ``LinearForm``
   (a constant plus integer multiples of terms), see ``linearize``:
   - ``di``, ``sj``: one term with coefficient 1; a constant: a constant form;
   - ``a + b``: add the forms, so like terms combine and ``d0 - d0`` vanishes;
   - ``a * b``: if one side is a constant, scale the other; otherwise (semi-affine,
     ``d0 * s0``) the product stays one opaque term;
   - ``a floordiv k``, ``a ceildiv k``, ``a mod k`` with a constant ``k``: apply the
     division rules below; with a symbolic divisor, the node stays one opaque term.
2. In every sum, fold ``x - (x floordiv q) * q`` into ``x mod q``.
3. Rebuild the expression in canonical order (``LinearForm.to_expr``).

Division rules, for a form ``x`` and a positive constant ``k``:

a. ``x`` is a constant: compute the result.
b. Cancel the common factor ``g = gcd(x, k)``: ``(g*y) floordiv (g*m) == y floordiv m``
   (also for ceildiv), and ``(g*y) mod (g*m) == g * (y mod m)``.
c. ``x floordiv 1 == x ceildiv 1 == x`` and ``x mod 1 == 0``.
d. Every multiple of ``k`` comes out: ``(k*q + r) floordiv k == q + r floordiv k``
   (also for ceildiv) and ``(k*q + r) mod k == r mod k``; the constant left inside is
   in ``[0, k)``.
e. Nested divisions: ``(y floordiv a) floordiv k == y floordiv (a*k)`` (also for
   ceildiv); ``(y mod a) mod k`` is ``y mod k`` when ``k`` divides ``a`` and ``y mod a``
   when ``a <= k``.

Each rule is an identity on integers, so simplification never changes a value; the
tests check that on random expressions and points. No rule uses bounds on the
dimensions, so ``(d0 * 4 + d1) floordiv 4`` becomes ``d0 + d1 floordiv 4`` but not ``d0``.

>>> from tinycomp.affine import dim
>>> print(simplify_expr((dim(0) * 4 + dim(1)) // 4))
d0 + d1 floordiv 4
>>> print(simplify_expr(dim(0) - (dim(0) // 8) * 8))
d0 mod 8
"""

from __future__ import annotations

from math import gcd

from tinycomp.affine.expr import (
    AffineBinaryExpr,
    AffineConstantExpr,
    AffineExpr,
    apply_binary,
    build_binary,
)
from tinycomp.affine.linear import LinearForm


def simplify_expr(expr: AffineExpr) -> AffineExpr:
    """The canonical form of ``expr`` (steps 1-3 of the module docstring).

    >>> from tinycomp.affine import dim, sym
    >>> print(simplify_expr(sym(0) + dim(1) * 2 + 3 + dim(1) * 0 + dim(0) * 1 - 3))
    d0 + d1 * 2 + s0
    """
    return linearize(expr).to_expr()


def linearize(expr: AffineExpr) -> LinearForm:
    """Step 1: the linear form of ``expr``, with every sub-expression simplified.

    >>> from tinycomp.affine import dim
    >>> linearize(dim(0) * 3 + dim(0)).terms
    {AffineDimExpr(position=0): 4}
    """
    if not isinstance(expr, AffineBinaryExpr):
        return LinearForm.of(expr)
    lhs = linearize(expr.lhs)
    rhs = linearize(expr.rhs)
    if expr.kind == "add":
        return fold_mod_patterns(lhs + rhs)
    if expr.kind == "mul":
        return _multiply(lhs, rhs)
    if not rhs.is_constant():  # a symbolic divisor: keep the node whole
        return LinearForm.of(build_binary(expr.kind, lhs.to_expr(), rhs.to_expr()))
    if expr.kind == "mod":
        return simplify_mod(lhs, rhs.constant)
    return simplify_division(expr.kind, lhs, rhs.constant)


def _multiply(lhs: LinearForm, rhs: LinearForm) -> LinearForm:
    """``lhs * rhs``: scaling when one side is constant, else one opaque product term."""
    if rhs.is_constant():
        return lhs.scale(rhs.constant)
    if lhs.is_constant():
        return rhs.scale(lhs.constant)
    # Semi-affine: pull the common factors out so that (d0 * 2) * s0 and (d0 * s0) * 2
    # end up the same: 2 * (d0 * s0).
    lhs_factor, rhs_factor = lhs.content(), rhs.content()
    lhs_expr = lhs.divide_exactly(lhs_factor).to_expr()
    rhs_expr = rhs.divide_exactly(rhs_factor).to_expr()
    if lhs_expr.is_symbolic_or_constant() and rhs_expr.is_symbolic_or_constant():
        lhs_expr, rhs_expr = sorted([lhs_expr, rhs_expr], key=str)  # s0 * s1, never s1 * s0
    product = build_binary("mul", lhs_expr, rhs_expr)
    return LinearForm.of(product).scale(lhs_factor * rhs_factor)


def simplify_division(kind: str, x: LinearForm, k: int) -> LinearForm:
    """``x floordiv k`` or ``x ceildiv k`` for a positive constant ``k`` (rules a-e).

    >>> from tinycomp.affine import dim
    >>> x = linearize(dim(0) * 6 + dim(1) * 4 + 10)  # gcd 2, then d1 * 2 + 4 come out
    >>> print(simplify_division("floordiv", x, 4).to_expr())
    d1 + (d0 * 3 + 1) floordiv 2 + 2
    """
    if x.is_constant():  # a
        return LinearForm.constant_form(apply_binary(kind, x.constant, k))
    common = _common_factor(x, k)  # b
    x, k = x.divide_exactly(common), k // common
    if k == 1:  # c
        return x
    whole, rest = x.split(k)  # d
    quotient = whole.divide_exactly(k)
    if rest.is_constant():
        return quotient + LinearForm.constant_form(apply_binary(kind, rest.constant, k))
    inner = _single_term(rest)  # e: (y floordiv a) floordiv k -> y floordiv (a * k)
    if inner is not None and inner.kind == kind and isinstance(inner.rhs, AffineConstantExpr):
        return quotient + simplify_division(kind, linearize(inner.lhs), inner.rhs.value * k)
    term = build_binary(kind, rest.to_expr(), AffineConstantExpr(k))
    return quotient + LinearForm.of(term)


def simplify_mod(x: LinearForm, k: int) -> LinearForm:
    """``x mod k`` for a positive constant ``k`` (rules a-e).

    >>> from tinycomp.affine import dim
    >>> x = linearize(dim(0) * 6 + dim(1) * 8 + 10)  # gcd 2, then d1 * 4 drops out
    >>> print(simplify_mod(x, 4).to_expr())
    ((d0 * 3 + 1) mod 2) * 2
    """
    if x.is_constant():  # a
        return LinearForm.constant_form(x.constant % k)
    common = _common_factor(x, k)  # b
    if common > 1:
        return simplify_mod(x.divide_exactly(common), k // common).scale(common)
    if k == 1:  # c
        return LinearForm.constant_form(0)
    _, rest = x.split(k)  # d: multiples of k leave no remainder
    if rest.is_constant():
        return LinearForm.constant_form(rest.constant)
    inner = _single_term(rest)  # e
    if inner is not None and inner.kind == "mod" and isinstance(inner.rhs, AffineConstantExpr):
        if inner.rhs.value % k == 0:  # (y mod 8) mod 4 -> y mod 4
            return simplify_mod(linearize(inner.lhs), k)
        if inner.rhs.value <= k:  # (y mod 4) mod 8 -> y mod 4
            return rest
    return LinearForm.of(build_binary("mod", rest.to_expr(), AffineConstantExpr(k)))


def fold_mod_patterns(form: LinearForm) -> LinearForm:
    """Step 2: ``m*x - m*q*(x floordiv q) -> m*(x mod q)`` wherever all of ``m*x`` is present.

    >>> from tinycomp.affine import dim
    >>> x = dim(0) * 2 + dim(1)
    >>> print(fold_mod_patterns(linearize(x - (x // 4) * 4)).to_expr())
    (d0 * 2 + d1) mod 4
    """
    changed = True
    while changed:
        changed = False
        for term, coefficient in form.terms.items():
            if not _is_division_by_constant(term, "floordiv"):
                continue
            assert isinstance(term, AffineBinaryExpr) and isinstance(term.rhs, AffineConstantExpr)
            q = term.rhs.value
            if coefficient % q != 0:
                continue
            m = -coefficient // q
            x = linearize(term.lhs)
            if all(form.terms.get(t, 0) == m * c for t, c in x.terms.items()):
                # m*x + coefficient*(x floordiv q) == m * (x - q * (x floordiv q)) == m * (x mod q)
                form = form - x.scale(m) - LinearForm.of(term).scale(coefficient)
                form = form + simplify_mod(x, q).scale(m)
                changed = True
                break
    return form


def _common_factor(x: LinearForm, k: int) -> int:
    """gcd of all coefficients, the constant, and ``k``."""
    return gcd(x.content(), k)


def _single_term(form: LinearForm) -> AffineBinaryExpr | None:
    """The node ``t`` when ``form`` is exactly ``1 * t`` for a binary node ``t``."""
    if form.constant != 0 or len(form.terms) != 1:
        return None
    ((term, coefficient),) = form.terms.items()
    if coefficient != 1 or not isinstance(term, AffineBinaryExpr):
        return None
    return term


def _is_division_by_constant(term: AffineExpr, kind: str) -> bool:
    return (
        isinstance(term, AffineBinaryExpr)
        and term.kind == kind
        and isinstance(term.rhs, AffineConstantExpr)
    )
