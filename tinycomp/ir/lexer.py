"""The lexer: splits MLIR text into tokens, one at a time, on demand.

Token kinds (the names MLIR's own lexer uses):

=================  =============================================  ==================
kind               what                                           example
=================  =============================================  ==================
``bare_id``        keyword, type, op name                          ``arith.addf``
``percent_id``     SSA value (with an optional ``#N`` result)     ``%sum``, ``%0#1``
``caret_id``       block label                                    ``^bb1``
``at_id``          symbol name                                    ``@main``
``hash_id``        attribute alias or dialect attribute           ``#map``
``exclamation_id`` type alias or dialect type                     ``!llvm.ptr``
``integer``        decimal or ``0x`` hexadecimal                  ``42``, ``0x7F``
``float``          digits with a ``.``                            ``1.5e-3``
``string``         double-quoted, with ``\\XX`` escapes            ``"a\\0A"``
``punct``          ``( ) [ ] { } < > , : :: = -> ? * + -``        ``->``
``eof``            end of input
=================  =============================================  ==================

``//`` starts a comment that runs to the end of the line. Some MLIR constructs do not
tokenize cleanly (``4x8xf32`` in a shape, the body of ``affine_map<...>``); the parser
reads those from the raw text and then ``reset``s the lexer after them.

>>> lexer = Lexer("%0 = arith.addf %a, %b : f32 // sum")
>>> [(t.kind, t.text) for t in lexer.tokens()][:4]
[('percent_id', '%0'), ('punct', '='), ('bare_id', 'arith.addf'), ('percent_id', '%a')]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tinycomp.ir.errors import ParseError

_SUFFIX_ID = r"(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)"
_TOKEN_PATTERNS = [
    ("skip", r"(?:\s+|//[^\n]*)+"),
    ("float", r"[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?"),
    ("integer", r"0x[0-9A-Fa-f]+|[0-9]+"),
    ("bare_id", r"[A-Za-z_][A-Za-z0-9_$.]*"),
    ("percent_id", rf"%{_SUFFIX_ID}(?:#[0-9]+)?"),
    ("caret_id", rf"\^{_SUFFIX_ID}"),
    ("at_id", r'@(?:[A-Za-z_][A-Za-z0-9_$.\-]*|"(?:[^"\\\n]|\\.)*")'),
    ("hash_id", rf"#{_SUFFIX_ID}"),
    ("exclamation_id", rf"!{_SUFFIX_ID}"),
    ("string", r'"(?:[^"\\\n]|\\.)*"'),
    ("punct", r"->|::|[()\[\]{}<>,:=?*+\-]"),
]
_TOKEN_RE = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _TOKEN_PATTERNS))
_ESCAPE_RE = re.compile(r"\\([0-9A-Fa-f]{2}|.)")
_NAMED_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Token:
    """One token: its kind, its exact text and where it starts."""

    kind: str
    """One of the kinds in the module docstring."""
    text: str
    """The exact source text."""
    pos: int
    """Offset of the first character in the source."""

    def is_punct(self, text: str) -> bool:
        """True for the punctuation ``text``."""
        return self.kind == "punct" and self.text == text

    def is_keyword(self, text: str) -> bool:
        """True for the bare identifier ``text``."""
        return self.kind == "bare_id" and self.text == text


class Lexer:
    """Hands out tokens of ``source`` from a movable position."""

    def __init__(self, source: str) -> None:
        self.source = source
        """The whole text being lexed."""
        self.pos = 0
        """Where the next token starts (after skipping blanks and comments)."""
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def next_token(self) -> Token:
        """Lex the token at ``pos`` and move past it."""
        match = _TOKEN_RE.match(self.source, self.pos)
        if match is not None and match.lastgroup == "skip":
            self.pos = match.end()
            match = _TOKEN_RE.match(self.source, self.pos)
        if self.pos >= len(self.source):
            return Token("eof", "", self.pos)
        if match is None:
            char = self.source[self.pos]
            if char == '"':
                raise self.error("unterminated string literal", self.pos)
            raise self.error(f"unexpected character {char!r}", self.pos)
        self.pos = match.end()
        return Token(match.lastgroup or "", match.group(), match.start())

    def tokens(self) -> Iterator[Token]:
        """All remaining tokens (for tests and demos)."""
        while True:
            token = self.next_token()
            if token.kind == "eof":
                return
            yield token

    def reset(self, pos: int) -> None:
        """Continue lexing from offset ``pos``."""
        self.pos = pos

    def line_and_column(self, pos: int) -> tuple[int, int]:
        """1-based line and column of offset ``pos``."""
        line = bisect.bisect_right(self._line_starts, pos)
        return line, pos - self._line_starts[line - 1] + 1

    def error(self, message: str, pos: int) -> ParseError:
        """A ``ParseError`` at ``pos`` with the source line and a caret under it."""
        line, column = self.line_and_column(pos)
        start = self._line_starts[line - 1]
        end = self.source.find("\n", start)
        text = self.source[start : end if end >= 0 else len(self.source)]
        excerpt = f"  {text}\n  {' ' * (column - 1)}^"
        return ParseError(message, line, column, excerpt)


def decode_string(token_text: str) -> str:
    """The value of a string token: quotes removed, escapes decoded (``\\0A`` is a
    newline, as are ``\\n``; bytes are decoded as UTF-8).

    >>> decode_string('"a\\\\0Ab\\\\22"')
    'a\\nb"'
    """
    body = token_text[1:-1]

    def byte_of(match: re.Match[str]) -> str:
        escape = match.group(1)
        if len(escape) == 2:
            return chr(int(escape, 16))
        return _NAMED_ESCAPES.get(escape, escape)

    latin = _ESCAPE_RE.sub(byte_of, body.encode("utf-8").decode("latin-1"))
    return latin.encode("latin-1").decode("utf-8", errors="replace")
