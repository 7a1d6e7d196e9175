"""The bottom layer of the parser: the current token, expectations, errors.

The parser is split by grammar layer, each a subclass of the one below:
``ParserBase`` (tokens) -> ``TypeParser`` (types) -> ``AttributeParser`` (attributes,
locations) -> ``Parser`` (ops, blocks, regions, SSA names). Every method that can fail
raises ``ParseError`` through ``self.error``/``self.expected``, which point at the
current token: ``3:14: expected ':', found '}'`` plus the line and a caret.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.errors import ParseError
from tinycomp.ir.lexer import Lexer, Token
from tinycomp.ir.location import Location
from tinycomp.ir.types import Type

MAX_NESTING = 100
"""Deeper nesting of brackets or regions is rejected (it would exhaust the stack)."""


class ParserBase:
    """Token-level helpers shared by all parser layers."""

    def __init__(self, source: str, filename: str) -> None:
        self.lexer = Lexer(source)
        """Produces the tokens."""
        self.filename = filename
        """Recorded in the ``Location`` of every parsed op."""
        self.type_aliases: dict[str, Type] = {}
        """``!name = type`` definitions seen so far."""
        self.attr_aliases: dict[str, Attribute] = {}
        """``#name = attribute`` definitions seen so far."""
        self.loc_aliases: dict[str, Location | None] = {}
        """``#loc3 = loc(...)`` definitions (MLIR prints them after the module)."""
        self._depth = 0
        self.token: Token = self.lexer.next_token()
        """The current (not yet consumed) token."""

    # -- moving through tokens -----------------------------------------------------------
    def advance(self) -> Token:
        """Consume the current token and return it."""
        consumed = self.token
        self.token = self.lexer.next_token()
        return consumed

    def reset_to(self, pos: int) -> None:
        """Re-lex from source offset ``pos`` (after reading raw text by hand)."""
        self.lexer.reset(pos)
        self.token = self.lexer.next_token()

    # -- errors ----------------------------------------------------------------------------
    def error(self, message: str, token: Token | None = None) -> ParseError:
        """A ``ParseError`` at ``token`` (default: the current token)."""
        return self.lexer.error(message, (token or self.token).pos)

    def expected(self, what: str) -> ParseError:
        """``expected <what>, found <current token>``."""
        return self.error(f"expected {what}, found {describe_token(self.token)}")

    def location_of(self, token: Token) -> Location:
        """The source location of ``token``."""
        line, column = self.lexer.line_and_column(token.pos)
        return Location(self.filename, line, column)

    @contextmanager
    def nested(self) -> Iterator[None]:
        """Count one level of nesting; fail cleanly instead of overflowing the stack."""
        self._depth += 1
        try:
            if self._depth > MAX_NESTING:
                raise self.error(f"nesting deeper than {MAX_NESTING} levels")
            yield
        finally:
            self._depth -= 1

    # -- punctuation and keywords ----------------------------------------------------------
    def parse_punct(self, text: str) -> Token:
        """Consume the punctuation ``text`` or fail."""
        if not self.token.is_punct(text):
            raise self.expected(f"'{text}'")
        return self.advance()

    def parse_optional_punct(self, text: str) -> bool:
        """Consume the punctuation ``text`` if it is next."""
        if self.token.is_punct(text):
            self.advance()
            return True
        return False

    def parse_keyword(self, keyword: str) -> Token:
        """Consume the bare identifier ``keyword`` or fail."""
        if not self.token.is_keyword(keyword):
            raise self.expected(f"'{keyword}'")
        return self.advance()

    def parse_optional_keyword(self, keyword: str) -> bool:
        """Consume the bare identifier ``keyword`` if it is next."""
        if self.token.is_keyword(keyword):
            self.advance()
            return True
        return False

    def parse_identifier(self, what: str = "an identifier") -> str:
        """Consume any bare identifier and return its text."""
        if self.token.kind != "bare_id":
            raise self.expected(what)
        return self.advance().text

    def parse_integer(self, what: str = "an integer") -> int:
        """Consume an optionally negative integer literal."""
        negative = self.parse_optional_punct("-")
        if self.token.kind != "integer":
            raise self.expected(what)
        value = int(self.advance().text, 0)
        return -value if negative else value

    def parse_comma_separated(self, parse_element, close: str) -> list:
        """``element (, element)*`` up to (not including) ``close``; may be empty."""
        items = []
        if self.token.is_punct(close):
            return items
        items.append(parse_element())
        while self.parse_optional_punct(","):
            items.append(parse_element())
        return items

    # -- raw text ---------------------------------------------------------------------------
    def scan_balanced(self, open_token: Token) -> tuple[str, int]:
        """Read the raw text after the ``<`` or ``(`` token ``open_token`` up to its
        matching closer, skipping strings, ``->``, ``>=`` and ``<=``. Returns the
        inner text and the offset just past the closer (call ``reset_to`` with it)."""
        source = self.lexer.source
        closers = {"<": ">", "(": ")", "[": "]", "{": "}"}
        stack = [closers[open_token.text]]
        pos = open_token.pos + 1
        while pos < len(source):
            char = source[pos]
            if char == '"':
                pos = self._skip_string(pos)
                continue
            if char == ">" and source[pos - 1] == "-":
                pos += 1
                continue
            if char in "<>" and source[pos + 1 : pos + 2] == "=":
                pos += 2  # `>=` and `<=` are comparisons, not brackets
                continue
            if char in closers:
                stack.append(closers[char])
            elif char in ">)]}":
                if char != stack.pop():
                    raise self.lexer.error(f"unbalanced {char!r}", pos)
                if not stack:
                    return source[open_token.pos + 1 : pos], pos + 1
            pos += 1
        raise self.error(
            f"no closing {closers[open_token.text]!r} for this {open_token.text!r}", open_token
        )

    def _skip_string(self, pos: int) -> int:
        """Offset just past the string literal starting at ``pos``."""
        source = self.lexer.source
        pos += 1
        while pos < len(source) and source[pos] not in '"\n':
            pos += 2 if source[pos] == "\\" else 1
        if pos >= len(source) or source[pos] != '"':
            raise self.lexer.error("unterminated string", pos)
        return pos + 1


def describe_token(token: Token) -> str:
    """How an error message shows a token: ``'}'`` or ``end of input``."""
    if token.kind == "eof":
        return "end of input"
    return f"'{token.text}'"
