"""Pipeline text: ``"canonicalize,cse,dce"`` and MLIR's nested form.

A pipeline is a comma-separated list of pass names. A name followed by parentheses is
an *op name* with a nested pipeline that runs on each op of that name directly inside
the current one, as in ``mlir-opt --pass-pipeline``::

    builtin.module(func.func(canonicalize,cse),dce)

runs ``canonicalize`` then ``cse`` on every function of the module, then ``dce`` on the
module. The grammar::

    pipeline := element (',' element)*
    element  := NAME | NAME '(' pipeline? ')'
    NAME     := letters, digits, '_', '-', '.'

>>> [str(element) for element in parse_pipeline("builtin.module(func.func(cse), dce)")]
['builtin.module(func.func(cse),dce)']
>>> parse_pipeline("canonicalize,,cse")
Traceback (most recent call last):
...
tinycomp.passes.errors.PassError: expected a pass name, found ',' at column 14:
  canonicalize,,cse
               ^
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tinycomp.passes.errors import PassError

__all__ = ["PipelineElement", "parse_pipeline"]

_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z0-9_.\-]+)|(?P<punct>[(),{}])|(?P<other>\S))")


@dataclass(frozen=True)
class PipelineElement:
    """One entry of a pipeline: a pass (``nested is None``) or an op name with the
    pipeline to run on each op of that name."""

    name: str
    """The pass name, or the op name (``func.func``) of a nested pipeline."""
    nested: tuple[PipelineElement, ...] | None = None
    """The nested pipeline, or ``None`` for a pass."""

    def __str__(self) -> str:
        if self.nested is None:
            return self.name
        return f"{self.name}({','.join(str(element) for element in self.nested)})"


def parse_pipeline(text: str) -> tuple[PipelineElement, ...]:
    """Parse pipeline ``text`` (see the module docstring); raises ``PassError`` with the
    column of the first problem."""
    return _PipelineParser(text, _tokenize(text)).parse_list(closing=None)


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    """``(kind, text, column)`` triples; kind is ``name``, ``punct`` or ``other``."""
    tokens = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind is None:
            continue
        tokens.append((kind, match.group(kind), match.start(kind) + 1))
    return tokens


class _PipelineParser:
    """A recursive-descent parser over the token list."""

    def __init__(self, text: str, tokens: list[tuple[str, str, int]]) -> None:
        self.text = text
        self.tokens = tokens
        self.position = 0

    def error(self, expected: str) -> PassError:
        """``expected ..., found ... at column N``, with the text and a caret."""
        if self.position < len(self.tokens):
            _, found, column = self.tokens[self.position]
            found = f"'{found}'"
        else:
            found, column = "the end", len(self.text) + 1
        caret = " " * (column - 1) + "^"
        return PassError(
            f"expected {expected}, found {found} at column {column}:\n  {self.text}\n  {caret}"
        )

    def peek(self) -> tuple[str, str]:
        """The next token's kind and text (``("end", "")`` past the last one)."""
        if self.position < len(self.tokens):
            kind, token, _ = self.tokens[self.position]
            return kind, token
        return "end", ""

    def parse_list(self, closing: str | None) -> tuple[PipelineElement, ...]:
        """``pipeline``, up to the end of the text (``closing`` None) or a ``)``."""
        elements: list[PipelineElement] = []
        if self.peek() == ("end", "") and closing is None:
            return ()
        if closing is not None and self.peek() == ("punct", closing):
            return ()
        while True:
            elements.append(self.parse_element())
            kind, token = self.peek()
            if (kind, token) == ("punct", ","):
                self.position += 1
                continue
            if closing is None and kind == "end":
                return tuple(elements)
            if closing is not None and (kind, token) == ("punct", closing):
                return tuple(elements)
            raise self.error(f"',' or '{closing}'" if closing else "',' or the end")

    def parse_element(self) -> PipelineElement:
        """``element``: a pass name, or an op name with a nested pipeline."""
        kind, token = self.peek()
        if kind != "name":
            raise self.error("a pass name")
        self.position += 1
        if self.peek() == ("punct", "{"):
            raise self.error(f"',' after '{token}' (pass options in '{{...}}' are not supported)")
        if self.peek() != ("punct", "("):
            return PipelineElement(token)
        if "." not in token:
            raise self.error(
                f"',' after pass '{token}' (only an op name such as 'func.func' takes a "
                "nested pipeline)"
            )
        self.position += 1
        nested = self.parse_list(closing=")")
        self.position += 1  # the ')'
        return PipelineElement(token, nested)
