"""Bad input: the parser raises ``ParseError`` (and nothing else) with a position, a
message saying what was expected and what was found, and a caret under the spot.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinycomp.ir import ParseError, VerifyError, parse, parse_attribute, parse_type, print_ir
from tinycomp.ir.lexer import Lexer

from .helpers import GOLDEN_FILES
from .strategies import functions

# (input, line, column, part of the message)
BAD_INPUTS = [
    ("func.func @f( {", 1, 15, "expected a type, found '{'"),
    ('"t.x"() : () -> tensor<4xf32', 1, 29, "expected '>', found end of input"),
    ("func.func @f() {\n  return %x : f32\n}", 2, 10, "use of undeclared SSA value name '%x'"),
    (
        "func.func @f(%a: f32) {\n  %0 = arith.addf %a, %a : f16\n  return\n}",
        2,
        19,
        "use of value '%a' expects different type than prior uses: 'f16' vs 'f32'",
    ),
    ('%0 = "t.a"() : () -> i32\n%0 = "t.b"() : () -> i32', 2, 1, "redefinition of SSA value '%0'"),
    ("func.func @f() {\n  cf.br ^bb9\n}", 2, 9, "reference to an undefined block '^bb9'"),
    ("func.func @f() {\n  arith.bogus\n}", 2, 3, "custom op 'arith.bogus' is unknown"),
    ('"t.x"() {a = 1 : i8, a = 2 : i8} : () -> ()', 1, 22, "duplicate attribute 'a'"),
    ('"t.x"() {a = 300 : i8} : () -> ()', 1, 14, "integer constant 300 is out of range for i8"),
    ('"t.x"() {a = 1 : f32} : () -> ()', 1, 14, "expected a float literal"),
    ('"t.x"() {a = #nope} : () -> ()', 1, 14, "undefined attribute alias '#nope'"),
    ('"t.x"() : () -> !nope', 1, 17, "undefined type alias '!nope'"),
    ('"t.x"() {m = affine_map<(d0) -> (d1)>} : () -> ()', 1, 24, "invalid affine_map"),
    ('"t.x"(%a) : () -> ()\n', 1, 11, "expected 1 operand type, got 0"),
    ('%0:2 = "t.x"() : () -> i32', 1, 1, "defines 1 results but was provided 2 to bind"),
    ('"t.x"() {s = "no end} : () -> ()', 1, 14, "unterminated string literal"),
    ('"t.x"() : () -> i32 $', 1, 21, "unexpected character '$'"),
    ('"t.x"() : () -> vector<0xf32>', 1, 17, "expected vector dimensions > 0"),
    ('"t.x"() : () -> tensor<*xf32>', 1, 24, "unranked types"),
    ("%c = arith.cmpi less, %a, %b : i32", 1, 17, "expected one of eq, ne, slt"),
    ("func.func @f(i32) {\n  return\n}", 1, 19, "expected named arguments"),
    ('"t.x"() ({' * 120, 1, 1, "nesting deeper than 100 levels"),
]


@pytest.mark.parametrize("text, line, column, message", BAD_INPUTS)
def test_error_says_where_and_what(text, line, column, message):
    with pytest.raises(ParseError) as caught:
        parse(text)
    error = caught.value
    assert message in error.message
    if "nesting" not in message:
        assert (error.line, error.column) == (line, column), str(error)
    assert str(error).startswith(f"{error.line}:{error.column}: ")
    source_line, caret_line = error.excerpt.splitlines()
    assert caret_line.index("^") == error.column + 1  # both lines are indented by 2
    assert source_line.strip() in text


def test_parse_type_and_attribute_reject_trailing_text():
    with pytest.raises(ParseError, match="expected end of input, found 'f32'"):
        parse_type("i32 f32")
    with pytest.raises(ParseError, match="expected an attribute"):
        parse_attribute(")")


def test_undefined_location_alias():
    with pytest.raises(ParseError, match="undefined location alias '#loc9'"):
        parse('"t.x"() : () -> () loc(#loc9)')


def check_only_parse_errors(text: str) -> None:
    """Parse ``text``: success, a ``ParseError`` with a position and a caret, or a
    ``VerifyError`` naming an op. Anything else fails the test."""
    try:
        parse(text)
    except ParseError as error:
        assert re.match(r"\d+:\d+: ", str(error)), str(error)
        assert "^" in error.excerpt
    except VerifyError as error:
        assert str(error).startswith("'"), str(error)


TOKEN_SOUP = st.lists(
    st.sampled_from(
        list('%^@#!"(){}[]<>=,:-.?*x0123456789 \n')
        + [
            "func.func",
            "arith.addf",
            "module",
            "dense",
            "f32",
            "i32",
            "index",
            "tensor<",
            "memref<",
            "vector<",
            "affine_map<",
            "loc(",
            "->",
            "return",
            "%0",
            "%a",
            "^bb0",
            '"t.op"',
            "@f",
            "{a = 1}",
            "cf.br",
            "0x1F",
            "1.5e3",
            "array<i64:",
        ]  # fmt: skip
    ),
    max_size=40,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=80), TOKEN_SOUP))
def test_random_text_raises_only_parse_errors(text):
    check_only_parse_errors(text)


REPLACEMENTS = [
    "f32", "i1", "%undefined", "^bb9", "{", "}", "(", ")", "<", ">", "->", ":", "=", ",",
    '"x"', "0x", "dense<", "affine_map<(d0", "loc(", "#map", "!t", "tensor<?x", "[", "]",
    "@f", "-", "1.5e", "%0#9", "%arg0", "tensor<4xi64>", "index", "",
]  # fmt: skip


def mutate(data, text: str) -> str:
    """Truncate, swap two tokens, replace or delete a token, or duplicate a line."""
    try:
        tokens = list(Lexer(text).tokens())
    except ParseError:
        tokens = []
    kind = data.draw(st.sampled_from(["truncate", "swap", "replace", "drop_char", "dup_line"]))
    if kind == "truncate" or len(tokens) < 2:
        return text[: data.draw(st.integers(0, len(text)))]
    if kind == "swap":
        i = data.draw(st.integers(0, len(tokens) - 2))
        a, b = tokens[i], tokens[i + 1]
        return (
            text[: a.pos] + b.text + text[a.pos + len(a.text) : b.pos] + a.text
            + text[b.pos + len(b.text) :]
        )  # fmt: skip
    if kind == "replace":
        token = data.draw(st.sampled_from(tokens))
        new = data.draw(st.sampled_from(REPLACEMENTS))
        return text[: token.pos] + new + text[token.pos + len(token.text) :]
    if kind == "drop_char":
        position = data.draw(st.integers(0, len(text) - 1))
        return text[:position] + text[position + 1 :]
    lines = text.splitlines()
    lines.insert(data.draw(st.integers(0, len(lines))), data.draw(st.sampled_from(lines)))
    return "\n".join(lines)


GOLDEN_TEXTS = [path.read_text() for path in GOLDEN_FILES]


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_mutated_golden_text_raises_only_parse_or_verify_errors(data):
    text = data.draw(st.sampled_from(GOLDEN_TEXTS))
    for _ in range(data.draw(st.integers(1, 3))):
        text = mutate(data, text)
    check_only_parse_errors(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_random_functions_raise_only_parse_or_verify_errors(data):
    module = data.draw(functions())
    text = print_ir(module, generic=data.draw(st.booleans()))
    check_only_parse_errors(mutate(data, text))
