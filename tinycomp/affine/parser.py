"""A recursive-descent parser for MLIR's affine maps, integer sets and expressions.

The grammar, one function per rule (``*`` repeats, ``?`` is optional)::

    map        ::= space '->' '(' (expr (',' expr)*)? ')'
    set        ::= space ':' '(' (constraint (',' constraint)*)? ')'
    space      ::= '(' (name (',' name)*)? ')' ('[' (name (',' name)*)? ']')?
    constraint ::= expr ('>=' | '<=' | '==') expr
    expr       ::= term (('+' | '-') term)*
    term       ::= unary (('*' | 'floordiv' | 'ceildiv' | 'mod') unary)*
    unary      ::= '-' unary | primary
    primary    ::= integer | name | '(' expr ')'

``+``/``-`` bind loosest, then ``*``, ``floordiv``, ``ceildiv``, ``mod`` (all left to
right), then unary minus, so ``-d0 * 2 + 1`` is ``((-d0) * 2) + 1``, as in MLIR. Names
in the space may be anything (``(i, j) -> (j, i)``); the nth dimension becomes ``dn``.
The tree is built with the expression operators, so ``d0 - 2`` folds to ``d0 + -2``.

>>> print(parse_affine_map("(i, j)[n] -> (i * 16 + j, n - i)"))
(d0, d1)[s0] -> (d0 * 16 + d1, s0 - d0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tinycomp.affine.expr import AffineDimExpr, AffineExpr, AffineSymbolExpr, const, dim, sym
from tinycomp.affine.integer_set import IntegerSet
from tinycomp.affine.lexer import AffineParseError, Token, tokenize
from tinycomp.affine.map import AffineMap

MAX_NESTING = 100
"""Deepest nesting of parentheses and unary minus the parser accepts."""

INT64_MAX = 2**63 - 1
"""MLIR keeps affine constants in 64 bits; larger literals are errors."""

Item = TypeVar("Item")


def parse_affine_map(text: str) -> AffineMap:
    """Parse the inner text of ``affine_map<...>``.

    >>> parse_affine_map("(d0, d1) -> (d1, d0)").is_permutation()
    True
    """
    parser = _Parser(text)
    num_dims, num_symbols = parser.space()
    parser.expect("->")
    results = parser.comma_list("(", ")", parser.expr)
    parser.expect_end()
    return AffineMap(num_dims, num_symbols, tuple(results))


def parse_integer_set(text: str) -> IntegerSet:
    """Parse the inner text of ``affine_set<...>``; ``a >= b`` becomes ``a - b >= 0``.

    >>> print(parse_integer_set("(d0)[s0] : (d0 >= 10, d0 <= s0, d0 == 0)"))
    (d0)[s0] : (d0 - 10 >= 0, s0 - d0 >= 0, d0 == 0)
    """
    parser = _Parser(text)
    num_dims, num_symbols = parser.space()
    parser.expect(":")
    constraints = parser.comma_list("(", ")", parser.constraint)
    parser.expect_end()
    exprs = tuple(expr for expr, _ in constraints)
    eq_flags = tuple(is_eq for _, is_eq in constraints)
    return IntegerSet(num_dims, num_symbols, exprs, eq_flags)


def parse_affine_expr(text: str, num_dims: int, num_symbols: int) -> AffineExpr:
    """Parse one expression over ``d0 .. d<num_dims-1>`` and ``s0 .. s<num_symbols-1>``.

    >>> print(parse_affine_expr("(d0 + s0) floordiv 2", 1, 1))
    (d0 + s0) floordiv 2
    """
    parser = _Parser(text)
    parser.names = {f"d{i}": dim(i) for i in range(num_dims)}
    parser.names.update({f"s{i}": sym(i) for i in range(num_symbols)})
    expr = parser.expr()
    parser.expect_end()
    return expr


class _Parser:
    """Holds the tokens, the position in them, and the names declared so far."""

    def __init__(self, text: str) -> None:
        self.text = text
        for wrapper in ("affine_map<", "affine_set<"):  # a common slip: pass the inner text
            if text.lstrip().startswith(wrapper):
                offset = len(text) - len(text.lstrip())
                message = f"expected the text inside {wrapper}...> but found '{wrapper}'"
                raise AffineParseError(message, text, offset)
        self.tokens = tokenize(text)
        self.position = 0
        self.names: dict[str, AffineExpr] = {}  # declared name -> its dim or symbol
        self.depth = 0  # current nesting of parentheses and unary minus

    # -- token helpers -------------------------------------------------------------
    def peek(self) -> Token:
        return self.tokens[self.position]

    def advance(self) -> Token:
        token = self.tokens[self.position]
        if token.kind != "end":
            self.position += 1
        return token

    def at(self, *texts: str) -> bool:
        """Is the next token one of these punctuation marks or keywords?"""
        token = self.peek()
        return token.kind in ("punctuation", "keyword") and token.text in texts

    def accept(self, text: str) -> bool:
        """Consume the next token if it is the punctuation or keyword ``text``."""
        if self.at(text):
            self.advance()
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.error(f"expected '{text}'", self.peek())

    def expect_end(self) -> None:
        if self.peek().kind != "end":
            raise self.error("expected end of input", self.peek())

    def error(self, expected: str, token: Token) -> AffineParseError:
        message = f"{expected} but found {token.describe()}"
        return AffineParseError(message, self.text, token.offset)

    def comma_list(self, opening: str, closing: str, parse_item: Callable[[], Item]) -> list[Item]:
        """``opening (item (',' item)*)? closing``: the items, maybe none."""
        self.expect(opening)
        items: list[Item] = []
        if not self.accept(closing):
            items.append(parse_item())
            while self.accept(","):
                items.append(parse_item())
            self.expect(closing)
        return items

    # -- grammar rules -------------------------------------------------------------
    def space(self) -> tuple[int, int]:
        """``(d0, d1)[s0]``: declare the names; return the dim and symbol counts."""
        num_dims = len(self.comma_list("(", ")", self.declare_dim))
        num_symbols = len(self.comma_list("[", "]", self.declare_symbol)) if self.at("[") else 0
        return num_dims, num_symbols

    def declare_dim(self) -> str:
        dims = [value for value in self.names.values() if isinstance(value, AffineDimExpr)]
        return self.declare(dim(len(dims)))

    def declare_symbol(self) -> str:
        symbols = [value for value in self.names.values() if isinstance(value, AffineSymbolExpr)]
        return self.declare(sym(len(symbols)))

    def declare(self, value: AffineExpr) -> str:
        """Bind the next name to ``value`` (a dimension or a symbol) and return the name."""
        token = self.peek()
        if token.kind != "name":
            raise self.error("expected a dimension or symbol name", token)
        if token.text in self.names:
            raise self.error("expected a name not declared before", token)
        self.names[token.text] = value
        return self.advance().text

    def constraint(self) -> tuple[AffineExpr, bool]:
        """``a >= b``, ``a <= b`` or ``a == b``, as ``(expr, is_eq)``: ``expr >= 0`` or ``== 0``."""
        lhs = self.expr()
        if self.accept(">="):
            return _difference(lhs, self.expr()), False
        if self.accept("=="):
            return _difference(lhs, self.expr()), True
        if self.accept("<="):
            return _difference(self.expr(), lhs), False
        raise self.error("expected '>=', '<=' or '=='", self.peek())

    def expr(self) -> AffineExpr:
        result = self.term()
        while self.at("+", "-"):
            operator = self.advance()
            result = self.combine(operator, result, self.term())
        return result

    def term(self) -> AffineExpr:
        result = self.unary()
        while self.at("*", "floordiv", "ceildiv", "mod"):
            operator = self.advance()
            result = self.combine(operator, result, self.unary())
        return result

    def unary(self) -> AffineExpr:
        token = self.peek()
        if not self.accept("-"):
            return self.primary()
        self.enter(token)
        operand = self.unary()
        self.depth -= 1
        return -operand

    def primary(self) -> AffineExpr:
        token = self.peek()
        if token.kind == "integer":
            if len(token.text) > 19 or int(token.text) > INT64_MAX:
                raise self.error("expected an integer that fits in 64 bits", token)
            self.advance()
            return const(int(token.text))
        if token.kind == "name":
            if token.text not in self.names:
                declared = ", ".join(self.names) or "none"
                raise self.error(f"expected a declared name ({declared})", token)
            self.advance()
            return self.names[token.text]
        if not self.accept("("):
            raise self.error("expected an expression", token)
        self.enter(token)
        inner = self.expr()
        self.expect(")")
        self.depth -= 1
        return inner

    def enter(self, token: Token) -> None:
        """One level deeper; refuse absurd nesting instead of exhausting the stack."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"expected at most {MAX_NESTING} levels of nesting", token)

    def combine(self, operator: Token, lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
        """``lhs <operator> rhs``; a broken affine rule becomes a parse error at the operator."""
        try:
            if operator.text == "+":
                return lhs + rhs
            if operator.text == "-":
                return lhs - rhs
            if operator.text == "*":
                return lhs * rhs
            if operator.text == "ceildiv":
                return lhs.ceildiv(rhs)
            if operator.text == "floordiv":
                return lhs // rhs
            return lhs % rhs
        except ValueError as error:  # d0 * d1, d0 floordiv 0, ...
            raise AffineParseError(str(error), self.text, operator.offset) from None


def _difference(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    """``lhs - rhs``, but just ``lhs`` when ``rhs`` is 0 (so ``x >= 0`` stays ``x``)."""
    return lhs if rhs == const(0) else lhs - rhs
