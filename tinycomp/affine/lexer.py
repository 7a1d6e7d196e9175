"""Tokens of MLIR's affine syntax, and the parse error that points at one of them.

The lexer turns ``(d0)[s0] -> (d0 floordiv 2 - s0)`` into a flat list of tokens:
names (``d0``, ``s0``, any ``[A-Za-z_][A-Za-z0-9_$.]*``), keywords (``floordiv``,
``ceildiv``, ``mod``), integers (``2``) and punctuation (``( ) [ ] , + - * : -> >= <= ==``),
then one ``end`` token. Spaces, tabs and newlines only separate tokens.

>>> [token.text for token in tokenize("(d0) -> (d0 mod 2)")]
['(', 'd0', ')', '->', '(', 'd0', 'mod', '2', ')', '']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TokenKind = Literal["name", "keyword", "integer", "punctuation", "end"]

KEYWORDS: tuple[str, ...] = ("floordiv", "ceildiv", "mod")
TWO_CHARACTER_PUNCTUATION: tuple[str, ...] = ("->", ">=", "<=", "==")
ONE_CHARACTER_PUNCTUATION = "()[],+-*:"


class AffineParseError(ValueError):
    """A syntax error in affine text, with its place: ``line:column: message``, the line, a caret.

    >>> from tinycomp.affine import parse_affine_map
    >>> parse_affine_map("(d0) -> (d0 +)")
    Traceback (most recent call last):
    ...
    tinycomp.affine.lexer.AffineParseError: 1:14: expected an expression but found ')'
    (d0) -> (d0 +)
                 ^
    """

    def __init__(self, message: str, text: str, offset: int) -> None:
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = text.find("\n", offset)
        source_line = text[line_start : line_end if line_end != -1 else len(text)]
        self.message = message
        """What was expected and what was found."""
        self.line = text.count("\n", 0, offset) + 1
        """1-based line of the offending token."""
        self.column = offset - line_start + 1
        """1-based column of the offending token."""
        # Keep tabs in the caret line so that the caret lines up under the token.
        padding = "".join("\t" if ch == "\t" else " " for ch in source_line[: self.column - 1])
        super().__init__(f"{self.line}:{self.column}: {message}\n{source_line}\n{padding}^")


@dataclass(frozen=True)
class Token:
    """One token: its kind, its text and where it starts in the input.

    >>> tokenize("d0")[0]
    Token(kind='name', text='d0', offset=0)
    """

    kind: TokenKind
    text: str
    offset: int

    def describe(self) -> str:
        """How error messages name this token.

        >>> [token.describe() for token in tokenize("d0 +")]
        ["'d0'", "'+'", 'end of input']
        """
        return "end of input" if self.kind == "end" else f"'{self.text}'"


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, ending with an ``end`` token.

    >>> [(t.kind, t.text) for t in tokenize("d0 >= -12")]
    [('name', 'd0'), ('punctuation', '>='), ('punctuation', '-'), ('integer', '12'), ('end', '')]
    """
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in " \t\r\n":
            i += 1
        elif ch.isascii() and ch.isdigit():
            start = i
            while i < len(text) and text[i].isascii() and text[i].isdigit():
                i += 1
            tokens.append(Token("integer", text[start:i], start))
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            start = i
            while i < len(text) and _continues_name(text[i]):
                i += 1
            word = text[start:i]
            tokens.append(Token("keyword" if word in KEYWORDS else "name", word, start))
        elif text[i : i + 2] in TWO_CHARACTER_PUNCTUATION:
            tokens.append(Token("punctuation", text[i : i + 2], i))
            i += 2
        elif ch in ONE_CHARACTER_PUNCTUATION:
            tokens.append(Token("punctuation", ch, i))
            i += 1
        else:
            raise AffineParseError(f"expected a token but found character {ch!r}", text, i)
    tokens.append(Token("end", "", len(text)))
    return tokens


def _continues_name(ch: str) -> bool:
    """Characters allowed after the first one of a name (MLIR's bare-id)."""
    return ch.isascii() and (ch.isalnum() or ch in "_$.")
