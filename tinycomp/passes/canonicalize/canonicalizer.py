"""The ``canonicalize`` pass: every canonicalization pattern, applied greedily.

*Canonical* means "the one agreed form": after ``canonicalize``, constants sit on the
right of commutative ops and at the top of the function, identities such as ``x + 0``
are gone, folded constants replace arithmetic on constants, dead ops are erased, and
branches on constants are resolved. Later passes (and people) then need to recognise
one form instead of many.

The patterns live next to this file, one module per dialect; ``canonicalization_patterns``
gathers them. ``extra_patterns`` adds your own (an exercise's pattern, say) to the set.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %c1 = arith.constant 1 : i32
...   %c0 = arith.constant 0 : i32
...   %a = arith.muli %c1, %x : i32
...   %b = arith.addi %a, %c0 : i32
...   return %b : i32
... }''')
>>> canonicalize = CanonicalizePass()
>>> canonicalize.run(m)
>>> print(m.body.first_op)
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
>>> sorted(canonicalize.statistics.items())
[('AddIZero', 1), ('ConstantToRight', 1), ('MulIOne', 1)]
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.passes.canonicalize.arith_casts import cast_patterns
from tinycomp.passes.canonicalize.arith_identities import arith_identity_patterns
from tinycomp.passes.canonicalize.arith_select_compare import select_compare_patterns
from tinycomp.passes.canonicalize.linalg import linalg_patterns
from tinycomp.passes.canonicalize.linalg_dedup import linalg_dedup_patterns
from tinycomp.passes.canonicalize.memref import memref_patterns
from tinycomp.passes.canonicalize.scf import scf_patterns
from tinycomp.passes.canonicalize.tensor import tensor_patterns
from tinycomp.passes.pass_base import PatternPass
from tinycomp.rewrite.pattern import RewritePattern

__all__ = ["CanonicalizePass", "canonicalization_patterns"]


def canonicalization_patterns() -> list[RewritePattern]:
    """A fresh instance of every canonicalization pattern, dialect by dialect."""
    return [
        *arith_identity_patterns(),
        *select_compare_patterns(),
        *cast_patterns(),
        *linalg_patterns(),
        *linalg_dedup_patterns(),
        *tensor_patterns(),
        *scf_patterns(),
        *memref_patterns(),
    ]


class CanonicalizePass(PatternPass):
    """Simplify the IR to its canonical form (see the module docstring)."""

    name = "canonicalize"
    summary = "fold constants, apply algebraic identities, erase dead ops"

    def __init__(
        self, max_iterations: int = 10, extra_patterns: Sequence[RewritePattern] = ()
    ) -> None:
        super().__init__(max_iterations)
        self.extra_patterns = list(extra_patterns)
        """Patterns added to the canonical set."""
        self._patterns = [*canonicalization_patterns(), *self.extra_patterns]

    def patterns(self) -> list[RewritePattern]:
        return self._patterns
