"""Printing affine expressions the way ``mlir-opt`` does.

MLIR's printer walks the tree and passes down a *binding strength*: "weak" when the
surrounding context is a sum (or the top level), "strong" when it is an operand of
``*``, ``floordiv``, ``ceildiv`` or ``mod``. A sum or a product printed in a strong
context gets parentheses. On top of that it has pretty forms for negative numbers:

==========================  =================
tree                        printed
==========================  =================
``x * -1``                  ``-x``
``x + y * -1``              ``x - y``
``x + y * -3``              ``x - y * 3``
``x + -5``                  ``x - 5``
==========================  =================

We follow that algorithm (``printAffineExprInternal`` in MLIR's AsmPrinter) with one
difference: a sum on the right of ``+`` is printed in parentheses, ``d0 + (d1 + d2)``,
where MLIR prints ``d0 + d1 + d2``. Both mean the same, but ours parses back to the
same tree.

>>> from tinycomp.affine import dim, sym
>>> print(-dim(0) + 5)
-d0 + 5
>>> print(dim(0) - (dim(1) + 1) * 3)
d0 - (d1 + 1) * 3
>>> print((dim(0) + sym(0)) // 2)
(d0 + s0) floordiv 2
"""

from __future__ import annotations

from tinycomp.affine.expr import (
    AffineBinaryExpr,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymbolExpr,
)

OPERATOR_SPELLING: dict[str, str] = {
    "add": "+",
    "mul": "*",
    "floordiv": "floordiv",
    "ceildiv": "ceildiv",
    "mod": "mod",
}
"""How each binary kind is written in MLIR's affine syntax."""


def format_expr(expr: AffineExpr, strong: bool = False) -> str:
    """MLIR text of ``expr``; ``strong`` means "an operand of *, floordiv, ceildiv, mod".

    >>> from tinycomp.affine import dim
    >>> print(format_expr(dim(0) + 1, strong=True))
    (d0 + 1)
    """
    if isinstance(expr, AffineDimExpr):
        return f"d{expr.position}"
    if isinstance(expr, AffineSymbolExpr):
        return f"s{expr.position}"
    if isinstance(expr, AffineConstantExpr):
        return str(expr.value)
    assert isinstance(expr, AffineBinaryExpr)
    if expr.kind == "add":
        text = _format_sum(expr.lhs, expr.rhs)
    elif expr.kind == "mul" and _constant_value(expr.rhs) == -1:
        text = "-" + format_expr(expr.lhs, strong=True)  # x * -1 prints as -x
    else:
        lhs = format_expr(expr.lhs, strong=True)
        rhs = format_expr(expr.rhs, strong=True)
        text = f"{lhs} {OPERATOR_SPELLING[expr.kind]} {rhs}"
    return f"({text})" if strong else text


def _format_sum(lhs: AffineExpr, rhs: AffineExpr) -> str:
    """``lhs + rhs``, written as a subtraction when ``rhs`` is negative."""
    left = format_expr(lhs)
    rhs_factor = _constant_value(rhs.rhs) if _is_product(rhs) else None
    if rhs_factor == -1:  # x + y * -1 -> x - y
        assert isinstance(rhs, AffineBinaryExpr)
        negated = format_expr(rhs.lhs, strong=_is_sum(rhs.lhs))
        return f"{left} - {negated}"
    if rhs_factor is not None and rhs_factor < -1:  # x + y * -3 -> x - y * 3
        assert isinstance(rhs, AffineBinaryExpr)
        return f"{left} - {format_expr(rhs.lhs, strong=True)} * {-rhs_factor}"
    rhs_value = _constant_value(rhs)
    if rhs_value is not None and rhs_value < 0:  # x + -5 -> x - 5
        return f"{left} - {-rhs_value}"
    return f"{left} + {format_expr(rhs, strong=_is_sum(rhs))}"


def _constant_value(expr: AffineExpr) -> int | None:
    """The value of a constant expression, None for anything else."""
    return expr.value if isinstance(expr, AffineConstantExpr) else None


def _is_sum(expr: AffineExpr) -> bool:
    return isinstance(expr, AffineBinaryExpr) and expr.kind == "add"


def _is_product(expr: AffineExpr) -> bool:
    return isinstance(expr, AffineBinaryExpr) and expr.kind == "mul"
