"""Integer sets: printing, membership, simplification."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.affine import IntegerSet, dim, parse_integer_set, sym

from .strategies import integer_sets, points


def test_prints_inner_text_without_the_wrapper():
    s = IntegerSet(1, 1, (dim(0) - 10, dim(0)), (False, True))
    assert str(s) == "(d0)[s0] : (d0 - 10 >= 0, d0 == 0)"


def test_contains():
    tile_guard = parse_integer_set("(d0)[s0] : (d0 >= 0, s0 - d0 - 1 >= 0)")  # 0 <= d0 < s0
    assert [x for x in range(-2, 6) if tile_guard.contains([x], [4])] == [0, 1, 2, 3]
    diagonal = parse_integer_set("(d0, d1) : (d0 - d1 == 0)")
    assert diagonal.contains([3, 3]) and not diagonal.contains([3, 4])
    assert IntegerSet(2, 0, (), ()).contains([1, 2])  # no constraints: everything


@settings(max_examples=300)
@given(integer_sets(), st.data())
def test_contains_is_every_constraint(integer_set, data):
    dims = data.draw(points(integer_set.num_dims))
    symbols = data.draw(
        st.lists(
            st.integers(1, 9), min_size=integer_set.num_symbols, max_size=integer_set.num_symbols
        )
    )
    values = [c.evaluate(dims, symbols) for c in integer_set.constraints]
    expected = all(
        (v == 0) if eq else (v >= 0) for v, eq in zip(values, integer_set.eq_flags, strict=True)
    )
    assert integer_set.contains(dims, symbols) == expected
    assert integer_set.simplify().contains(dims, symbols) == expected


def test_errors():
    with pytest.raises(ValueError, match="expected one eq flag per constraint, got 0 flags"):
        IntegerSet(1, 0, (dim(0),), ())
    with pytest.raises(ValueError, match="expected symbols s0..s-1, got s0"):
        IntegerSet(1, 0, (sym(0),), (False,))
    with pytest.raises(ValueError, match="expected 1 dims and 0 symbols, got 2 and 0"):
        IntegerSet(1, 0, (dim(0),), (False,)).contains([1, 2])
