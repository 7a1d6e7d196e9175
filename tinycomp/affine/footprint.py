"""Footprints: the values an affine expression reaches over a box of the iteration space.

Tiling asks: "when the loops run over this tile, which slice of each operand is
touched?" The answer is the range that each result of the operand's indexing map
reaches while the dimensions range over the tile. A *box* gives each dimension a
half-open range ``(lo, hi)``, meaning ``lo <= d < hi`` (Python's ``range``), and
every range returned here is half-open too.

The algorithm, ``expr_range``:

1. Put the symbols' values in and simplify. The expression becomes
   ``constant + sum(c_i * t_i)`` where each term ``t_i`` is a dimension or a
   ``floordiv``/``ceildiv``/``mod`` of a smaller expression.
2. Find the range of each term. A dimension ranges over its side of the box. For a
   division, first find the range ``[a, b]`` of its operand (this same algorithm),
   then: ``floordiv``/``ceildiv`` by ``k`` are monotone, so they give
   ``[a floordiv k, b floordiv k]``; ``mod k`` gives ``[a mod k, b mod k]`` when
   ``a..b`` stays within one period of ``k``, else at most ``[0, k - 1]``.
3. Add up the terms with interval arithmetic: ``c * [lo, hi]`` is ``[c*lo, c*hi]``
   for ``c > 0`` and ``[c*hi, c*lo]`` for ``c < 0``.
4. Decide how good the answer is. The range is *exact* (its smallest and largest
   values are reached) when every term's range is exact and no two terms share a
   dimension, so each can sit at its own extreme at once; affine sums reach their
   extremes at corners of the box. It is *dense* (every value in between is reached)
   when, moreover, each term is dense and, taking the terms by growing ``|c_i|``, no
   coefficient jumps past the width covered so far plus one (``d0 + d1 * 4`` with
   ``d0`` in ``[0, 4)`` is dense; ``d0 * 2`` is not). Otherwise the range is only a
   sound bound: every value reached lies inside it.

>>> from tinycomp.affine import dim
>>> expr_range(dim(0) * 2 + dim(1), [(0, 4), (0, 3)])
ValueRange(lo=0, hi=9, exact=True, dense=True)
>>> expr_range(dim(0) - dim(0) // 2, [(0, 8)])
ValueRange(lo=-3, hi=8, exact=False, dense=False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.affine.expr import AffineBinaryExpr, AffineConstantExpr, AffineDimExpr, AffineExpr
from tinycomp.affine.simplify import linearize

Box = Sequence[tuple[int, int]]
"""One half-open range ``(lo, hi)`` per dimension: the part of the iteration space."""


@dataclass(frozen=True)
class ValueRange:
    """The half-open range ``lo <= value < hi`` of an expression over a box.

    ``exact``: ``lo`` and ``hi - 1`` are both reached, so no smaller range is correct.
    ``dense``: every value in the range is reached. With neither, it is a sound bound.

    >>> ValueRange(0, 4, exact=True, dense=True).size
    4
    """

    lo: int
    hi: int
    exact: bool
    dense: bool

    @property
    def size(self) -> int:
        """Number of integers in the range.

        >>> ValueRange(-2, 3, exact=True, dense=False).size
        5
        """
        return self.hi - self.lo


def expr_range(expr: AffineExpr, box: Box, symbols: Sequence[int] = ()) -> ValueRange:
    """The range of ``expr`` while each ``di`` runs over ``box[i]`` (steps 1-4 above).

    >>> from tinycomp.affine import dim
    >>> expr_range((dim(0) + 2) % 4, [(0, 2)])
    ValueRange(lo=2, hi=4, exact=True, dense=True)
    """
    for position, (lo, hi) in enumerate(box):
        if lo >= hi:
            raise ValueError(f"expected a non-empty range for d{position}, got [{lo}, {hi})")
    constants = [AffineConstantExpr(value) for value in symbols]
    # Step 1: the symbols become constants, the expression a constant plus terms.
    form = linearize(expr.replace_dims_and_symbols([], constants))
    lo = hi = form.constant
    exact = dense = True
    pieces: list[tuple[int, ValueRange]] = []  # (|coefficient|, range of the term)
    seen_dims: set[int] = set()
    for term, coefficient in form.terms.items():
        term_range = _term_range(term, box)  # step 2
        low_end, high_end = term_range.lo, term_range.hi - 1
        if coefficient > 0:  # step 3
            lo, hi = lo + coefficient * low_end, hi + coefficient * high_end
        else:
            lo, hi = lo + coefficient * high_end, hi + coefficient * low_end
        dims = set(term.used_dims())  # step 4
        exact = exact and term_range.exact and not (dims & seen_dims)
        dense = dense and term_range.dense
        seen_dims |= dims
        pieces.append((abs(coefficient), term_range))
    dense = exact and dense and _steps_cover(pieces)
    return ValueRange(lo, hi + 1, exact, dense)


def _term_range(term: AffineExpr, box: Box) -> ValueRange:
    """Step 2: the range of one term (a dimension, or a division by a constant)."""
    if isinstance(term, AffineDimExpr):
        if term.position >= len(box):
            raise ValueError(f"expected a range for d{term.position}, got {len(box)} ranges")
        lo, hi = box[term.position]
        return ValueRange(lo, hi, exact=True, dense=True)
    if not (isinstance(term, AffineBinaryExpr) and isinstance(term.rhs, AffineConstantExpr)):
        raise ValueError(f"expected a dimension or a division by a constant, got '{term}'")
    k = term.rhs.value
    inner = expr_range(term.lhs, box)
    a, b = inner.lo, inner.hi - 1  # inclusive ends of the operand's range
    if term.kind == "floordiv":
        return ValueRange(a // k, b // k + 1, inner.exact, inner.dense)
    if term.kind == "ceildiv":
        return ValueRange(-(-a // k), -(-b // k) + 1, inner.exact, inner.dense)
    assert term.kind == "mod"
    if inner.dense and b - a + 1 >= k:  # a whole period: every remainder
        return ValueRange(0, k, exact=True, dense=True)
    if a // k == b // k:  # within one period, mod is a shift
        return ValueRange(a % k, b % k + 1, inner.exact, inner.dense)
    # Wraps around once or more: 0 and k - 1 are reached when every value is.
    return ValueRange(0, k, exact=inner.dense, dense=False)


def _steps_cover(pieces: list[tuple[int, ValueRange]]) -> bool:
    """Step 4: do the sums of ``c * t`` fill an interval with no gaps?

    Taking terms by growing step ``c``: if the values so far fill ``[0, width]`` with no
    gap, adding ``c * {0, 1, ..., n - 1}`` fills ``[0, width + c * (n - 1)]`` when
    ``c <= width + 1``.
    """
    width = 0
    for step, term_range in sorted(pieces, key=lambda piece: piece[0]):
        if term_range.size == 1:
            continue  # a term with one value only shifts the sum
        if step > width + 1:
            return False
        width += step * (term_range.size - 1)
    return True
