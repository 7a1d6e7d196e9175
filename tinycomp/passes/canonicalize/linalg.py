"""Canonicalization of ``linalg.transpose``: two transposes make one (or none).

``linalg.transpose ins(%x) outs(%init) permutation = p`` moves dimension ``p[i]`` of the
input to dimension ``i`` of the result: ``result.shape[i] == x.shape[p[i]]``. Transposing
that again by ``q`` gives ``x.shape[p[q[i]]]`` in dimension ``i``, so

    transpose(transpose(x, p), q) == transpose(x, r)   with   r[i] = p[q[i]]

and when ``r`` is the identity the pair does nothing at all. ``[1, 0]`` twice is the
identity; ``[1, 2, 0]`` then ``[2, 0, 1]`` too.

The patterns match ops by name and read the ``permutation`` attribute
(``array<i64: ...>``), so they work whether or not the linalg op classes are loaded.
They apply to transposes on tensors (the op has a result); on memrefs a transpose
writes into its ``outs`` buffer, and removing it would lose that write.

>>> compose_permutations((1, 2, 0), (2, 0, 1))
(0, 1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import i64
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["ComposeTransposes", "TransposeOfTranspose", "compose_permutations", "linalg_patterns"]


def compose_permutations(first: Sequence[int], second: Sequence[int]) -> tuple[int, ...]:
    """The permutation of ``transpose(transpose(x, first), second)``: ``first[second[i]]``."""
    return tuple(first[j] for j in second)


def _permutation(op: Operation) -> tuple[int, ...] | None:
    attr = op.attributes.get("permutation")
    if not isinstance(attr, DenseArrayAttr):
        return None
    return tuple(int(v) for v in attr.values)


def _transpose_pair(op: Operation) -> tuple[Operation, tuple[int, ...], tuple[int, ...]] | None:
    """``(inner, p, q)`` when ``op`` transposes (by ``q``) the tensor result of another
    transpose ``inner`` (by ``p``), else ``None``."""
    if len(op.results) != 1 or not op.operands:
        return None
    inner = op.operands[0].defining_op()
    if inner is None or inner.name != "linalg.transpose" or len(inner.results) != 1:
        return None
    p, q = _permutation(inner), _permutation(op)
    if p is None or q is None or len(p) != len(q):
        return None
    return inner, p, q


class TransposeOfTranspose(RewritePattern):
    """transpose(transpose(x, p), q) -> x  when p[q[i]] == i for all i"""

    root = "linalg.transpose"
    benefit = 2

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        pair = _transpose_pair(op)
        if pair is None:
            return False
        inner, p, q = pair
        x = inner.operands[0]
        if compose_permutations(p, q) != tuple(range(len(p))) or x.type != op.results[0].type:
            return False
        rewriter.replace_op(op, [x])
        return True


class ComposeTransposes(RewritePattern):
    """transpose(transpose(x, p), q) -> transpose(x, r)  with r[i] = p[q[i]]"""

    root = "linalg.transpose"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        pair = _transpose_pair(op)
        if pair is None:
            return False
        inner, p, q = pair
        combined = op.clone()  # keeps the outs operand, the body and other attributes
        combined.set_operand(0, inner.operands[0])
        combined.attributes["permutation"] = DenseArrayAttr(i64, compose_permutations(p, q))
        rewriter.replace_op_with_new(op, combined)
        return True


def linalg_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [TransposeOfTranspose(), ComposeTransposes()]
