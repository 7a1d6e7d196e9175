"""Affine expressions: building with operators, MLIR printing, evaluation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinycomp.affine import (
    AffineBinaryExpr,
    AffineConstantExpr,
    AffineDimExpr,
    c,
    const,
    d,
    dim,
    s,
    sym,
)


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (dim(0) * 4 + sym(0), "d0 * 4 + s0"),
        (dim(0) // 2, "d0 floordiv 2"),
        ((dim(0) + 1) % 3, "(d0 + 1) mod 3"),
        (dim(0).ceildiv(4), "d0 ceildiv 4"),
        (-dim(0) + 5, "-d0 + 5"),
        (dim(0) - 2, "d0 - 2"),
        (dim(0) - dim(1), "d0 - d1"),
        (dim(0) - dim(1) * 3, "d0 - d1 * 3"),
        (dim(0) * -2 + 5, "d0 * -2 + 5"),
        (dim(0) - (dim(1) + 1), "d0 - (d1 + 1)"),
        (dim(0) - (dim(1) * 3 + 1) * 2, "d0 - (d1 * 3 + 1) * 2"),
        (-(dim(0) // 2), "-(d0 floordiv 2)"),
        ((-dim(0)) // 2, "(-d0) floordiv 2"),
        (-(dim(0) + sym(0)), "-(d0 + s0)"),
        ((dim(0) // 2) * sym(0), "(d0 floordiv 2) * s0"),
        (sym(0) * dim(0), "d0 * s0"),
        (dim(0) + (dim(1) + dim(2)), "d0 + (d1 + d2)"),
        (dim(0) + dim(1) // 4, "d0 + d1 floordiv 4"),
        (4 * dim(0), "d0 * 4"),
        (2 + dim(0), "d0 + 2"),
        (3 - dim(0), "-d0 + 3"),
        (const(2) * 3 + 1, "7"),
        ((dim(0) * 2) * 3, "d0 * 6"),
        (d(1) * 16 + s(0) - c(1), "d1 * 16 + s0 - 1"),
    ],
)
def test_prints_like_mlir_opt(expr, text):
    assert str(expr) == text


def test_raw_constructor_builds_exactly_what_it_is_given():
    raw = AffineBinaryExpr("add", const(1), dim(0))
    assert str(raw) == "1 + d0"
    assert raw.lhs == AffineConstantExpr(1)
    assert (const(1) + dim(0)).lhs == AffineDimExpr(0)  # the operator moves the constant


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: dim(0) * dim(1), "expected a constant or symbolic operand for '*'"),
        (lambda: dim(0) // dim(1), "expected a constant or symbolic divisor for 'floordiv'"),
        (lambda: dim(0) % 0, "expected a positive divisor for 'mod', got 0"),
        (lambda: dim(0).ceildiv(-2), "expected a positive divisor for 'ceildiv', got -2"),
        (lambda: const(3) // 0, "expected a positive divisor for 'floordiv', got 0"),
        (lambda: AffineBinaryExpr("pow", dim(0), const(2)), "expected one of add, mul"),
        (lambda: dim(-1), "expected a non-negative dimension position, got -1"),
    ],
)
def test_rejects_non_affine_expressions(build, message):
    with pytest.raises(ValueError, match=message.replace("*", r"\*")):
        build()


def test_rejects_non_expression_operands():
    with pytest.raises(TypeError, match="expected an AffineExpr or int, got float"):
        dim(0) + 1.5  # noqa: B018


@given(st.integers(-100, 100), st.integers(1, 12))
def test_division_semantics_match_mlir(a, k):
    x = dim(0)
    assert (x // k).evaluate([a]) == a // k  # floor
    assert x.ceildiv(k).evaluate([a]) == -((-a) // k)  # ceiling
    remainder = (x % k).evaluate([a])
    assert 0 <= remainder < k and (a - remainder) % k == 0


def test_evaluate_examples():
    assert (dim(0) // 2).evaluate([-7]) == -4
    assert dim(0).ceildiv(2).evaluate([-7]) == -3
    assert (dim(0) % 2).evaluate([-7]) == 1
    assert (dim(0) * sym(1) + 3).evaluate([2], [0, 5]) == 13


def test_evaluate_names_the_missing_value():
    with pytest.raises(ValueError, match="expected a value for d1, got 1 dims"):
        (dim(0) + dim(1)).evaluate([1])
    with pytest.raises(ValueError, match="expected a value for s0, got 0 symbols"):
        sym(0).evaluate([])
    with pytest.raises(ValueError, match="expected a positive divisor for 'floordiv', got -3"):
        (dim(0) // sym(0)).evaluate([4], [-3])


def test_queries():
    e = dim(2) * sym(1) + dim(0) // 4
    assert e.used_dims() == (0, 2)
    assert e.used_symbols() == (1,)
    assert e.is_function_of_dim(2) and not e.is_function_of_dim(1)
    assert (sym(0) + 1).is_symbolic_or_constant()
    assert (
        e.replace_dims_and_symbols([const(8), dim(0), dim(1)], [sym(0), const(3)]).evaluate(
            [7, 5], [0]
        )
        == 5 * 3 + 8 // 4
    )


def test_expressions_are_frozen_values():
    assert dim(0) * 4 + 1 == dim(0) * 4 + 1
    assert len({dim(0) + 1, dim(0) + 1, dim(1)}) == 2
    with pytest.raises(AttributeError):
        dim(0).position = 3  # type: ignore[misc]
