"""Canonicalization: the patterns, one module per dialect, and the ``canonicalize`` pass.

================================  ======================================================
module                            what it simplifies
================================  ======================================================
``arith_identities``              ``x + 0``, ``x * 1``, ``x * 0`` (ints), ``x - x`` (ints),
                                  ``-(-x)``, constants to the right of commutative ops
``arith_select_compare``          ``select`` on a constant or of equal values, ``cmpi x, x``
``arith_casts``                   ``index_cast`` and ``truncf(extf)`` round trips
``linalg``                        ``transpose(transpose(x))``
``linalg_dedup``                  ``linalg.generic`` inputs read twice or never
``tensor``                        ``extract_slice`` of the whole tensor
``scf``                           ``scf.for`` that never runs, ``scf.if`` on a constant
``memref``                        a buffer that is only written and freed
``canonicalizer``                 the pass, gathering all of the above
================================  ======================================================

>>> from tinycomp.rewrite import pattern_table
>>> print(pattern_table([AddIZero(), MulIOne()]))
pattern   root        benefit  algebra
AddIZero  arith.addi  1        x + 0 -> x
MulIOne   arith.muli  1        x * 1 -> x
"""

from tinycomp.passes.canonicalize.arith_casts import (
    IndexCastRoundTrip,
    IndexCastUIRoundTrip,
    TruncFOfExtF,
)
from tinycomp.passes.canonicalize.arith_identities import (
    AddFNegativeZero,
    AddIZero,
    ConstantToRight,
    DivFOne,
    DivSIOne,
    DivUIOne,
    MulFOne,
    MulFZeroFast,
    MulIOne,
    MulIZero,
    NegFNegF,
    RightIdentity,
    SubFZero,
    SubISelf,
    SubIZero,
)
from tinycomp.passes.canonicalize.arith_select_compare import (
    CmpISameOperands,
    SelectConstantCondition,
    SelectSameValues,
)
from tinycomp.passes.canonicalize.canonicalizer import CanonicalizePass, canonicalization_patterns
from tinycomp.passes.canonicalize.linalg import (
    ComposeTransposes,
    TransposeOfTranspose,
    compose_permutations,
)
from tinycomp.passes.canonicalize.linalg_dedup import DeduplicateAndRemoveDeadOperands
from tinycomp.passes.canonicalize.memref import DeadAlloc, DeadAlloca
from tinycomp.passes.canonicalize.scf import ForZeroTripCount, IfConstantCondition
from tinycomp.passes.canonicalize.tensor import ExtractSliceOfWholeTensor

__all__ = [
    "CanonicalizePass", "canonicalization_patterns",
    # arith
    "ConstantToRight", "RightIdentity", "AddIZero", "AddFNegativeZero", "SubIZero", "SubFZero",
    "MulIOne", "MulFOne", "DivSIOne", "DivUIOne", "DivFOne", "MulIZero", "MulFZeroFast",
    "SubISelf", "NegFNegF", "SelectConstantCondition", "SelectSameValues", "CmpISameOperands",
    "IndexCastRoundTrip", "IndexCastUIRoundTrip", "TruncFOfExtF",
    # other dialects (matched by op name)
    "TransposeOfTranspose", "ComposeTransposes", "compose_permutations",
    "DeduplicateAndRemoveDeadOperands",
    "ExtractSliceOfWholeTensor", "ForZeroTripCount", "IfConstantCondition",
    "DeadAlloc", "DeadAlloca",
]  # fmt: skip
