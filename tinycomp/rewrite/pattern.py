"""Rewrite patterns: "when you see this, replace it with that".

A pattern is a small class. Its docstring's first line states the algebra it applies;
``root`` says which op it looks at (an op name, or ``None`` for any op); ``benefit``
orders patterns that match the same op (higher first); ``match_and_rewrite`` checks
the op and, if it matches, changes the IR through the rewriter and returns ``True``.
When it returns ``False`` it must not have changed anything.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> class MulByOne(RewritePattern):
...     '''x * 1 -> x'''
...     root = "arith.muli"
...     def match_and_rewrite(self, op, rewriter):
...         x, one = op.operands
...         if not is_constant_int(one, 1):
...             return False
...         rewriter.replace_op(op, [x])
...         return True
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %one = arith.constant 1 : i32
...   %y = arith.muli %x, %one : i32
...   return %y : i32
... }''')
>>> result = apply_patterns_greedily(m, [MulByOne()])
>>> print(m.body.first_op)
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
>>> MulByOne().algebra
'x * 1 -> x'

The patterns of ``canonicalize`` live in ``tinycomp/passes/canonicalize/``, one file per
dialect; read them for many more examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from tinycomp.ir.operation import Operation
from tinycomp.rewrite.matchers import is_constant_int  # noqa: F401  (docstring example)

if TYPE_CHECKING:
    from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["RewritePattern", "pattern_table"]


class RewritePattern:
    """Base class of rewrite patterns (see the module docstring)."""

    root: ClassVar[str | None] = None
    """The op name this pattern matches, or ``None`` to be tried on every op."""
    benefit: ClassVar[int] = 1
    """Patterns with a higher benefit are tried first on the same op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        """If ``op`` matches, rewrite it through ``rewriter`` and return ``True``;
        otherwise change nothing and return ``False``."""
        raise NotImplementedError(f"{self.name} does not implement match_and_rewrite")

    @property
    def name(self) -> str:
        """The class name, used in reports (``AddZero``)."""
        return type(self).__name__

    @property
    def algebra(self) -> str:
        """The first line of the class docstring: the rewrite it performs."""
        doc = type(self).__doc__ or ""
        return doc.strip().splitlines()[0] if doc.strip() else self.name

    def __repr__(self) -> str:
        return f"<{self.name}: {self.algebra}>"


def pattern_table(patterns: Sequence[RewritePattern]) -> str:
    """A plain-text table of patterns: name, root op, benefit and algebra.

    >>> class Twice(RewritePattern):
    ...     '''neg(neg(x)) -> x'''
    ...     root = "arith.negf"
    >>> print(pattern_table([Twice()]))
    pattern  root        benefit  algebra
    Twice    arith.negf  1        neg(neg(x)) -> x
    """
    rows = [("pattern", "root", "benefit", "algebra")]
    for pattern in patterns:
        rows.append((pattern.name, pattern.root or "(any)", str(pattern.benefit), pattern.algebra))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
        lines.append("  ".join([*cells, row[3]]))
    return "\n".join(lines)
