"""Linear forms: an affine expression seen as ``c0 + c1*t1 + c2*t2 + ...``.

Simplification and footprint analysis both flatten an expression into a constant plus
a sum of integer multiples of *terms*. A term is a dimension, a symbol, or anything
that is not linear (a ``floordiv``, ``ceildiv`` or ``mod``, or a product of two
non-constants); such a term is kept whole, as an opaque "atom".

>>> from tinycomp.affine import dim, sym
>>> form = LinearForm.of(dim(0)).scale(4) + LinearForm.of(sym(0)) + LinearForm.constant_form(3)
>>> print(form.to_expr())
d0 * 4 + s0 + 3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd

from tinycomp.affine.expr import (
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymbolExpr,
)


@dataclass(frozen=True)
class LinearForm:
    """``constant + sum(coefficient * term)``; coefficients are never zero.

    Treat it as a value: every method returns a new form.

    >>> from tinycomp.affine import dim
    >>> (LinearForm.of(dim(0)) + LinearForm.of(dim(0))).terms
    {AffineDimExpr(position=0): 2}
    """

    terms: dict[AffineExpr, int] = field(default_factory=dict)
    """Coefficient of each term (a dimension, a symbol or a non-linear atom)."""
    constant: int = 0
    """The constant part."""

    @staticmethod
    def of(term: AffineExpr) -> LinearForm:
        """The form ``1 * term`` (a constant expression becomes a constant form).

        >>> from tinycomp.affine import dim
        >>> LinearForm.of(dim(1)).terms
        {AffineDimExpr(position=1): 1}
        """
        if isinstance(term, AffineConstantExpr):
            return LinearForm.constant_form(term.value)
        return LinearForm({term: 1}, 0)

    @staticmethod
    def constant_form(value: int) -> LinearForm:
        """The form with no terms.

        >>> LinearForm.constant_form(7).is_constant()
        True
        """
        return LinearForm({}, value)

    def is_constant(self) -> bool:
        """True when there are no terms.

        >>> LinearForm.constant_form(0).is_constant()
        True
        """
        return not self.terms

    def __add__(self, other: LinearForm) -> LinearForm:
        terms = dict(self.terms)
        for term, coefficient in other.terms.items():
            terms[term] = terms.get(term, 0) + coefficient
            if terms[term] == 0:  # like terms cancelled out: d0 - d0
                del terms[term]
        return LinearForm(terms, self.constant + other.constant)

    def __sub__(self, other: LinearForm) -> LinearForm:
        return self + other.scale(-1)

    def scale(self, factor: int) -> LinearForm:
        """Multiply every coefficient and the constant by ``factor``.

        >>> from tinycomp.affine import dim
        >>> print(LinearForm.of(dim(0)).scale(-2).to_expr())
        d0 * -2
        """
        if factor == 0:
            return LinearForm.constant_form(0)
        terms = {term: coefficient * factor for term, coefficient in self.terms.items()}
        return LinearForm(terms, self.constant * factor)

    def divide_exactly(self, divisor: int) -> LinearForm:
        """Divide every coefficient and the constant by ``divisor``, which divides them all.

        >>> from tinycomp.affine import dim
        >>> form = LinearForm.of(dim(0)).scale(6) + LinearForm.constant_form(4)
        >>> print(form.divide_exactly(2).to_expr())
        d0 * 3 + 2
        """
        assert self.content() % divisor == 0, "divide_exactly needs a common divisor"
        terms = {term: coefficient // divisor for term, coefficient in self.terms.items()}
        return LinearForm(terms, self.constant // divisor)

    def content(self) -> int:
        """The greatest common divisor of all coefficients and the constant.

        >>> from tinycomp.affine import dim
        >>> (LinearForm.of(dim(0)).scale(6) + LinearForm.constant_form(4)).content()
        2
        """
        result = abs(self.constant)
        for coefficient in self.terms.values():
            result = gcd(result, coefficient)
        return result

    def split(self, multiple_of: int) -> tuple[LinearForm, LinearForm]:
        """Split into (a part divisible by ``multiple_of``, the rest).

        Terms whose coefficient is a multiple go left; the constant is split as
        ``q * multiple_of + r`` with ``0 <= r < multiple_of``.

        >>> from tinycomp.affine import dim
        >>> from tinycomp.affine.simplify import linearize
        >>> whole, rest = linearize(dim(0) * 8 + dim(1) + 9).split(4)
        >>> print(whole.to_expr(), "|", rest.to_expr())
        d0 * 8 + 8 | d1 + 1
        """
        whole: dict[AffineExpr, int] = {}
        rest: dict[AffineExpr, int] = {}
        for term, coefficient in self.terms.items():
            side = whole if coefficient % multiple_of == 0 else rest
            side[term] = coefficient
        remainder = self.constant % multiple_of
        return LinearForm(whole, self.constant - remainder), LinearForm(rest, remainder)

    def to_expr(self) -> AffineExpr:
        """Rebuild an expression in canonical order.

        Dimensions by position, then symbols by position, then the other terms sorted by
        their text, then the constant: ``d0 * 4 + d1 - s0 + d2 floordiv 2 + 5``.

        >>> from tinycomp.affine import dim
        >>> print((LinearForm.of(dim(1)) + LinearForm.of(dim(0)).scale(-1)).to_expr())
        -d0 + d1
        """
        expr: AffineExpr | None = None
        for term in sorted(self.terms, key=term_order):
            coefficient = self.terms[term]
            scaled = term if coefficient == 1 else term * coefficient
            expr = scaled if expr is None else expr + scaled
        if expr is None:
            return AffineConstantExpr(self.constant)
        return expr + self.constant if self.constant != 0 else expr


def term_order(term: AffineExpr) -> tuple[int, int, str]:
    """Sort key for terms: dimensions, then symbols, then the rest by text.

    >>> from tinycomp.affine import dim, sym
    >>> [str(t) for t in sorted([sym(0), dim(1) // 2, dim(3)], key=term_order)]
    ['d3', 's0', 'd1 floordiv 2']
    """
    if isinstance(term, AffineDimExpr):
        return (0, term.position, "")
    if isinstance(term, AffineSymbolExpr):
        return (1, term.position, "")
    return (2, 0, str(term))
