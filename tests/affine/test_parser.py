"""The parser: round trips, what mlir-opt prints, and errors that point at the fault."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.affine import (
    AffineMap,
    AffineParseError,
    dim,
    parse_affine_expr,
    parse_affine_map,
    parse_integer_set,
    sym,
)

from .strategies import affine_maps, exprs, integer_sets

ERROR_FORMAT = re.compile(r"^(\d+):(\d+): (expected .+)\n(.*)\n([ \t]*)\^$")


@settings(max_examples=800)
@given(affine_maps())
def test_map_round_trip(m):
    text = str(m)
    parsed = parse_affine_map(text)
    assert parsed == m
    assert str(parsed) == text


@settings(max_examples=500)
@given(integer_sets())
def test_set_round_trip(integer_set):
    text = str(integer_set)
    parsed = parse_integer_set(text)
    assert parsed == integer_set
    assert str(parsed) == text


@settings(max_examples=500)
@given(exprs(3, 2))
def test_expr_round_trip(expr):
    assert parse_affine_expr(str(expr), 3, 2) == expr


@pytest.mark.parametrize(
    "text",
    [
        "()[s0] -> (s0)",
        "(d0) -> ()",
        "() -> ()",
        "(d0, d1) -> (d0 * 16 + d1, 0)",
        "(d0) -> (-d0 + 5)",
        "(d0, d1, d2) -> (d0 + d1 + d2)",
        "(d0, d1) -> (d0 - d1 * 3, -d0 + 5, -d0, d0 * -2 + 5, d0 * 3, d0 * 2, d0 + 2)",
        "(d0)[s0] -> (d0 mod 4, d0 floordiv s0, (d0 floordiv 2) * s0, -(d0 floordiv 2))",
        "(d0)[s0] -> ((-d0) floordiv 2, -(d0 + s0), d0 - (d0 + 1), d0 - (d0 * 3 + 1) * 2)",
        "(d0, d1)[s0] -> (d0 + d1 floordiv 4 + s0 * 2 + d1 * 3 - d0)",
        "(d0)[s0] -> (d0 * s0, -(d0 * s0), (d0 + 1) * s0, d0 - 2)",
        "(d0)[s0] -> ((d0 * s0) * 2)",
    ],
)
def test_accepts_what_mlir_opt_prints(text):
    assert str(parse_affine_map(text)) == text


def test_names_and_spacing_are_free():
    m = parse_affine_map("(i,j)[n]->(i*n+j ,\n  j floordiv 2)")
    assert m == AffineMap(2, 1, (dim(0) * sym(0) + dim(1), dim(1) // 2))
    conv = parse_affine_map("(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)")
    assert str(conv) == "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)"


def test_precedence_and_associativity():
    e = parse_affine_expr("-d0 * 2 + 7 mod 4 - d1 floordiv 2 * 3", 2, 0)
    assert e == ((-dim(0)) * 2 + (7 % 4)) - ((dim(1) // 2) * 3)
    assert parse_affine_expr("d0 - d1 - 1", 2, 0) == (dim(0) - dim(1)) - 1


def test_integer_sets():
    s = parse_integer_set("(d0, d1)[s0] : (d0 - 10 >= 0, d0 == 0, d0 >= d1, d1 <= s0 + 3)")
    assert str(s) == "(d0, d1)[s0] : (d0 - 10 >= 0, d0 == 0, d0 - d1 >= 0, s0 + 3 - d1 >= 0)"
    assert s.eq_flags == (False, True, False, False)
    assert str(parse_integer_set("(d0) : ()")) == "(d0) : ()"
    assert str(parse_integer_set("()[s0] : (0 == 0)")) == "()[s0] : (0 == 0)"


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("(d0) -> (d0 +)", (1, 14), "expected an expression but found ')'"),
        ("(d0, d1) -> (d0 + d1", (1, 21), "expected ')' but found end of input"),
        ("(d0) -> (d0) (d0)", (1, 14), "expected end of input but found '('"),
        ("(d0) -> (d1)", (1, 10), "expected a declared name (d0) but found 'd1'"),
        ("(d0, d0) -> ()", (1, 6), "expected a name not declared before but found 'd0'"),
        ("(d0 -> (d0)", (1, 5), "expected ')' but found '->'"),
        ("(d0) (d0)", (1, 6), "expected '->' but found '('"),
        ("(mod) -> ()", (1, 2), "expected a dimension or symbol name but found 'mod'"),
        ("(d0) -> (d0 * d0)", (1, 13), "expected a constant or symbolic operand for '*'"),
        ("(d0) -> (d0 floordiv 0)", (1, 13), "expected a positive divisor for 'floordiv'"),
        ("(d0) -> (d0 mod d0)", (1, 13), "expected a constant or symbolic divisor for 'mod'"),
        ("(d0) -> (d0 % 2)", (1, 13), "expected a token but found character '%'"),
        ("(d0)\n  -> (d0 +\n  )", (3, 3), "expected an expression but found ')'"),
        ("affine_map<(d0) -> (d0)>", (1, 1), "expected the text inside affine_map<...>"),
        ("(d0) : (d0 > 0)", (1, 12), "expected a token but found character '>'"),
        ("(d0) : (d0 >= 0", (1, 16), "expected ')' but found end of input"),
        ("(d0) -> (d0 + 9223372036854775808)", (1, 15), "expected an integer that fits in 64"),
        ("(d0) -> (" + "9" * 5000 + ")", (1, 10), "expected an integer that fits in 64 bits"),
    ],
)
def test_errors_point_at_the_fault(text, position, message):
    parse = parse_integer_set if " : " in text else parse_affine_map
    with pytest.raises(AffineParseError) as info:
        parse(text)
    error = info.value
    assert (error.line, error.column) == position
    assert message in error.message
    match = ERROR_FORMAT.match(str(error))
    assert match, str(error)
    assert match.group(4) == text.split("\n")[error.line - 1]
    assert len(match.group(5)) == error.column - 1


def test_error_caret_example():
    with pytest.raises(AffineParseError) as info:
        parse_affine_map("(d0, d1) -> (d0 d1)")
    assert str(info.value) == (
        "1:17: expected ')' but found 'd1'\n(d0, d1) -> (d0 d1)\n                ^"
    )


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(AffineParseError, match="expected at most 100 levels of nesting"):
        parse_affine_map("(d0) -> (" + "(" * 500 + "d0" + ")" * 500 + ")")
    with pytest.raises(AffineParseError, match="expected at most 100 levels of nesting"):
        parse_affine_map("(d0) -> (" + "-" * 500 + "d0)")


def _check_only_parse_errors(text):
    for parse in (parse_affine_map, parse_integer_set, lambda t: parse_affine_expr(t, 2, 1)):
        try:
            parse(text)
        except AffineParseError as error:
            match = ERROR_FORMAT.match(str(error))
            assert match, str(error)
            assert int(match.group(1)) == error.line and int(match.group(2)) == error.column
            assert len(match.group(5)) == error.column - 1


AFFINE_ALPHABET = "()[],+-*:<=> \n\tds0123456789xfloordivceilmod_->"


@settings(max_examples=1000)
@given(st.text(alphabet=AFFINE_ALPHABET, max_size=40) | st.text(max_size=30))
def test_garbage_raises_only_parse_errors(text):
    _check_only_parse_errors(text)


@st.composite
def mutated_texts(draw):
    text = str(draw(affine_maps() | integer_sets()))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete":
            text = text[:i] + text[i + 1 :]
        elif action == "insert":
            text = text[:i] + draw(st.sampled_from(AFFINE_ALPHABET)) + text[i:]
        else:
            text = text[:i] + text[i : i + 4] + text[i:]
    return text


@settings(max_examples=1000)
@given(mutated_texts())
def test_mutations_of_valid_text_raise_only_parse_errors(text):
    _check_only_parse_errors(text)
