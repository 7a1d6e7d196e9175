"""Hypothesis strategies for affine expressions, maps, sets, points and boxes.

Expressions are built with the Python operators, the way a user (and the parser)
builds them, so printing and parsing one gives back the same tree. Every expression
drawn here is valid MLIR: constant divisors are positive, and a product or a
divisor that is not constant uses symbols only (MLIR's semi-affine form).
"""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

from tinycomp.affine import AffineExpr, AffineMap, IntegerSet, const, dim, sym

SMALL_INTS = st.integers(min_value=-12, max_value=12)
DIVISORS = st.integers(min_value=1, max_value=9)


@cache
def leaves(num_dims: int, num_symbols: int) -> st.SearchStrategy[AffineExpr]:
    """``d0..``, ``s0..`` and constants, mostly small; dimensions come up most often."""
    choices = [st.builds(const, SMALL_INTS)]
    if num_dims:
        dims = st.builds(dim, st.integers(0, num_dims - 1))
        choices += [dims, dims]
    if num_symbols:
        choices.append(st.builds(sym, st.integers(0, num_symbols - 1)))
    choices.append(st.builds(const, st.integers(-1000, 1000)))
    return st.one_of(*choices)


@cache  # building a recursive strategy is slow; build each one once
def exprs(
    num_dims: int, num_symbols: int, semi_affine: bool = True, max_leaves: int = 16
) -> st.SearchStrategy[AffineExpr]:
    """Random expressions over ``num_dims`` dims and ``num_symbols`` symbols.

    With ``semi_affine``, products with symbols and divisions by a symbol appear too.
    """
    base = leaves(num_dims, num_symbols)
    symbol_factor = st.builds(sym, st.integers(0, num_symbols - 1)) if num_symbols else st.nothing()

    def extend(children: st.SearchStrategy[AffineExpr]) -> st.SearchStrategy[AffineExpr]:
        options = [
            st.builds(lambda a, b: a + b, children, children),
            st.builds(lambda a, b: a - b, children, children),
            st.builds(lambda a: -a, children),
            st.builds(lambda a, k: a * k, children, SMALL_INTS),
            st.builds(lambda a, k: k * a, children, SMALL_INTS),
            st.builds(lambda a, k: a // k, children, DIVISORS),
            st.builds(lambda a, k: a.ceildiv(k), children, DIVISORS),
            st.builds(lambda a, k: a % k, children, DIVISORS),
        ]
        if semi_affine and num_symbols:
            options += [
                st.builds(lambda a, s: a * s, children, symbol_factor),
                st.builds(lambda a, s: a // s, children, symbol_factor),
                st.builds(lambda a, s: a % s, children, symbol_factor),
            ]
        return st.one_of(*options)

    return st.recursive(base, extend, max_leaves=max_leaves)


@st.composite
def affine_maps(
    draw: st.DrawFn,
    max_dims: int = 4,
    max_symbols: int = 2,
    max_results: int = 4,
    semi_affine: bool = True,
) -> AffineMap:
    """Random maps; ``num_dims``, ``num_symbols`` and the number of results vary."""
    num_dims = draw(st.integers(0, max_dims))
    num_symbols = draw(st.integers(0, max_symbols))
    results = draw(
        st.lists(exprs(num_dims, num_symbols, semi_affine), min_size=0, max_size=max_results)
    )
    return AffineMap(num_dims, num_symbols, tuple(results))


@st.composite
def integer_sets(
    draw: st.DrawFn, max_dims: int = 3, max_symbols: int = 2, semi_affine: bool = True
) -> IntegerSet:
    """Random integer sets with up to four constraints."""
    num_dims = draw(st.integers(0, max_dims))
    num_symbols = draw(st.integers(0, max_symbols))
    constraint = exprs(num_dims, num_symbols, semi_affine)
    constraints = draw(st.lists(constraint, min_size=0, max_size=4))
    eq_flags = draw(st.lists(st.booleans(), min_size=len(constraints), max_size=len(constraints)))
    return IntegerSet(num_dims, num_symbols, tuple(constraints), tuple(eq_flags))


def points(size: int, bound: int = 50) -> st.SearchStrategy[list[int]]:
    """``size`` integers in ``[-bound, bound]``: values for dims or symbols."""
    return st.lists(st.integers(-bound, bound), min_size=size, max_size=size)


def boxes(num_dims: int, max_extent: int = 5) -> st.SearchStrategy[list[tuple[int, int]]]:
    """Half-open ranges ``(lo, hi)``, one per dimension, small enough to enumerate."""
    one_range = st.builds(
        lambda lo, extent: (lo, lo + extent),
        st.integers(-20, 20),
        st.integers(1, max_extent),
    )
    return st.lists(one_range, min_size=num_dims, max_size=num_dims)


@st.composite
def maps_and_points(draw: st.DrawFn, semi_affine: bool = True) -> tuple[AffineMap, list, list]:
    """A map and one point for it (dims and symbols)."""
    affine_map = draw(affine_maps(semi_affine=semi_affine))
    dims = draw(points(affine_map.num_dims))
    symbols = draw(points(affine_map.num_symbols))
    return affine_map, dims, symbols
