"""The rule tables: one module per dialect, each exporting ``RULES``.

A rule is a plain function ``run_x(op, operands, interp) -> results``: ``operands`` are
the run-time values of ``op.operands``, and it returns the values of ``op.results`` (or
a ``Branch``/``Exit`` for terminators). Rules read attributes by their MLIR names from
``op.attributes``, so they run ops in MLIR's generic form as well as registered ones.

>>> sorted({name.split(".")[0] for name in ALL_RULES})  # doctest: +NORMALIZE_WHITESPACE
['affine', 'arith', 'bufferization', 'cf', 'func', 'linalg', 'math', 'memref', 'scf', 'tensor',
 'vector']
>>> ALL_RULES["arith.addf"].__name__
'run_addf'
"""

from tinycomp.interp.rules import (
    affine,
    arith,
    bufferization,
    cf,
    func,
    linalg,
    math,
    memref,
    scf,
    tensor,
    vector,
)

ALL_RULES = {
    **arith.RULES,
    **math.RULES,
    **func.RULES,
    **cf.RULES,
    **scf.RULES,
    **affine.RULES,
    **memref.RULES,
    **tensor.RULES,
    **linalg.RULES,
    **bufferization.RULES,
    **vector.RULES,
}
"""Op name -> rule, for every op the interpreter runs."""

PASSES_UNINITIALIZED = frozenset(
    [
        *linalg.RULES,  # the linalg engine checks the elements the body reads
        "tensor.extract",  # checks the one element it reads
        "tensor.insert",
        "tensor.extract_slice",
        "tensor.insert_slice",
        "tensor.parallel_insert_slice",
        "tensor.dim",
        "tensor.rank",
        "tensor.cast",
        "tensor.collapse_shape",
        "tensor.expand_shape",
        "tensor.pad",
        "tensor.concat",
        "scf.for",
        "scf.if",
        "scf.while",
        "scf.forall",
        "scf.index_switch",
        "scf.execute_region",
        "scf.yield",
        "scf.condition",
        "affine.for",
        "affine.if",
        "affine.yield",
        "func.call",
        "func.return",
        "cf.br",
        "cf.cond_br",
        "bufferization.to_buffer",
        "bufferization.to_memref",
        "bufferization.alloc_tensor",
        "bufferization.materialize_in_destination",
        "bufferization.dealloc_tensor",
    ]
)
"""Ops that may take a tensor with uninitialised elements as an operand: they only move
it around, or check the elements they read themselves. Any other op reading such a
tensor is an error."""

__all__ = ["ALL_RULES", "PASSES_UNINITIALIZED"]
