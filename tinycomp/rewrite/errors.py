"""The exception class of the rewrite layer.

``RewriteError`` is raised when a rewrite cannot be carried out as asked: a pattern
replaces an op with the wrong number or types of values, erases an op that is still
used, or the greedy driver keeps finding work after its iteration cap (the patterns do
not converge). The message names the op (and its source line) or the patterns at fault.

>>> raise RewriteError("'arith.addi' at line 3: expected 1 replacement value, got 2")
Traceback (most recent call last):
...
tinycomp.rewrite.errors.RewriteError: 'arith.addi' at line 3: expected 1 replacement value, got 2
"""

from __future__ import annotations

__all__ = ["RewriteError"]


class RewriteError(Exception):
    """A rewrite that cannot be done, or a pattern set that does not converge."""
