"""A Pygments lexer for MLIR's textual IR, and the colour of each kind of token.

Pygments has no MLIR lexer, so this is a small one: enough to colour what tinycomp
prints (custom and generic forms), not a parser. It knows MLIR's sigils:

| token                | example                       | Pygments type        |
|----------------------|-------------------------------|----------------------|
| comment              | ``// CHECK: ...``              | ``Comment``          |
| string               | ``"parallel"``, ``"test.op"``  | ``String``           |
| SSA value            | ``%0``, ``%arg0``, ``%x#1``     | ``Name.Variable``    |
| block label          | ``^bb0``                       | ``Name.Label``       |
| symbol               | ``@main``                      | ``Name.Function``    |
| attribute, alias     | ``#map1``, ``#linalg.x<..>``    | ``Name.Constant``    |
| type alias, dialect  | ``!llvm.ptr``                  | ``Keyword.Type``     |
| op name              | ``arith.addf``, ``return``      | ``Name.Builtin``     |
| builtin type         | ``f32``, ``index``, ``tensor``  | ``Keyword.Type``     |
| shape                | ``4x?x8x`` in ``tensor<4x?x8xf32>`` | ``Number``       |
| number               | ``42``, ``1.5e-3``, ``0xFF80``  | ``Number``           |
| keyword              | ``ins``, ``outs``, ``to``, ``step`` | ``Keyword``      |

>>> [(str(kind), text) for kind, text in MlirLexer().get_tokens("%0 = arith.addf %a, %b : f32")
...  if text.strip()][:4]
[('Token.Name.Variable', '%0'), ('Token.Operator', '='), ('Token.Name.Builtin', 'arith.addf'), \
('Token.Name.Variable', '%a')]
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Token,
    Whitespace,
)

__all__ = ["COLOURS", "MlirLexer", "TokenType", "colour_of"]

TokenType = type(Token)
"""The type of a Pygments token kind such as ``Number.Integer``."""

_ID = r"[A-Za-z_$.][\w$.\-]*"  # MLIR's bare identifier, and suffix-id characters
_BUILTIN_TYPES = r"(?:bf16|tf32|f\d+(?:E\w+)?|[su]?i\d+|index|none)(?![\w$.])"
_SHAPED_TYPES = ("tensor", "memref", "vector", "complex", "tuple")
_KEYWORDS = (
    "ins",
    "outs",
    "to",
    "step",
    "iter_args",
    "attributes",
    "loc",
    "dense",
    "true",
    "false",
    "unit",
    "affine_map",
    "affine_set",
    "strided",
    "offset",
    "symbols",
    "init",
    "dimensions",
    "permutation",
    "into",
    "from",
    "then",
    "else",
    "do",
    "by",
    "max",
    "min",
    "floordiv",
    "ceildiv",
    "mod",
    "private",
    "public",
    "nested",
)
_BARE_OPS = ("return", "module", "func", "yield")


class MlirLexer(RegexLexer):
    """Tokens of MLIR's textual IR (see the module docstring for the kinds).

    >>> [text for _, text in MlirLexer().get_tokens("tensor<4x?xf32>") if text != "\\n"]
    ['tensor', '<', '4x?x', 'f32', '>']
    """

    name = "MLIR"
    aliases = ["mlir"]
    filenames = ["*.mlir"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r'"(?:[^"\\\n]|\\.)*"', String.Double),
            (rf"%(?:\d+|{_ID})(?:#\d+)?", Name.Variable),
            (rf"\^(?:\d+|{_ID})", Name.Label),
            (rf'@(?:{_ID}|"(?:[^"\\\n]|\\.)*")', Name.Function),
            (rf"#{_ID}", Name.Constant),
            (rf"!{_ID}", Keyword.Type),
            (r"0x[0-9A-Fa-f]+(?![\w$.])", Number.Hex),
            (r"(?:(?:\d+|\?)x)+", Number.Integer),  # the dimensions of a shaped type
            (words(_SHAPED_TYPES, suffix=r"(?=<)"), Keyword.Type),
            (_BUILTIN_TYPES, Keyword.Type),
            (r"[-+]?\d+\.\d*(?:[eE][-+]?\d+)?", Number.Float),
            (r"[-+]?\d+", Number.Integer),
            (r"[a-z_][\w$]*(?:\.[\w$]+)+", Name.Builtin),  # a dialect op: arith.addf
            (words(_BARE_OPS, suffix=r"(?![\w$.])"), Name.Builtin),
            (words(_KEYWORDS, suffix=r"(?![\w$.])"), Keyword),
            (r"[A-Za-z_][\w$]*", Text),  # any other bare word (an attribute name)
            (r"->|=|:|\*|\+|-", Operator),
            (r"[()\[\]{}<>,?]", Punctuation),
            (r".", Text),
        ]
    }


COLOURS: dict[TokenType, str] = {
    Comment: "#6e7781",
    String: "#0a3069",
    Name.Variable: "#953800",
    Name.Label: "#953800",
    Name.Function: "#8250df",
    Name.Constant: "#0550ae",
    Name.Builtin: "#cf222e",
    Keyword.Type: "#116329",
    Keyword: "#cf222e",
    Number: "#0550ae",
}
"""Text colour of each token kind (GitHub's light palette, readable on a light
background); a kind not listed inherits its parent's colour, and plain text has none."""


def colour_of(kind: TokenType) -> str | None:
    """The colour of a token kind, looked up through its parents; ``None`` for plain text.

    >>> colour_of(Number.Integer), colour_of(Punctuation)
    ('#0550ae', None)
    """
    while kind is not None:
        if kind in COLOURS:
            return COLOURS[kind]
        kind = kind.parent
    return None
