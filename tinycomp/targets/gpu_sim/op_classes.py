"""Which instruction class (``INSTRUCTION_CLASSES`` in ``counters.py``) each op counts as.

The class follows from the op's name and, for arithmetic, from its element type: an
``arith.addf`` on ``f32`` is ``fp32``, on ``f16`` or ``bf16`` it is ``fp16``;
transcendental ``math`` functions go to the special-function unit (``sfu``); casts are
``conversion``; memory ops are classed by their memory space. Constants, ``memref.dim``
and terminators are free (``None``): a compiler folds them into other instructions.

>>> from tinycomp.ir import Operation, f16, f32, index
>>> instruction_class(Operation.create("arith.addf", result_types=[f16]))
'fp16'
>>> instruction_class(Operation.create("math.exp", result_types=[f32]))
'sfu'
>>> instruction_class(Operation.create("arith.constant", result_types=[index])) is None
True
"""

from __future__ import annotations

from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import FloatType, Type

__all__ = ["FREE_OPS", "SFU_FUNCTIONS", "float_class", "instruction_class", "memory_space"]

FREE_OPS = frozenset(
    [
        "arith.constant", "memref.dim", "scf.yield", "scf.condition", "memref.atomic_yield",
        "gpu.return", "cf.br", "gpu.terminator", "scf.for", "scf.while",
        "vector.extract", "vector.insert", "vector.from_elements",
    ]
)  # fmt: skip
"""Ops that issue no instruction of their own (a loop's condition tests are counted as
branches each time they run). The vector ops only name registers: a ``float4`` load
writes four consecutive registers, and taking one of them, or storing four, moves
nothing."""

SFU_FUNCTIONS = frozenset(
    [
        "math.exp", "math.exp2", "math.expm1", "math.log", "math.log2", "math.log10",
        "math.log1p", "math.sqrt", "math.rsqrt", "math.sin", "math.cos", "math.tan",
        "math.tanh", "math.erf", "math.erfc", "math.powf", "math.atan", "math.atan2",
        "math.asin", "math.acos", "math.sinh", "math.cosh", "math.cbrt", "math.fpowi",
    ]
)  # fmt: skip
"""``math`` functions the special-function unit evaluates."""

CONVERSIONS = frozenset(
    [
        "arith.extf", "arith.truncf", "arith.extsi", "arith.extui", "arith.trunci",
        "arith.index_cast", "arith.index_castui", "arith.sitofp", "arith.uitofp",
        "arith.fptosi", "arith.fptoui", "arith.bitcast",
    ]
)  # fmt: skip

FIXED_CLASSES = {
    "gpu.barrier": "barrier",
    "nvvm.bar.warp.sync": "barrier",
    "gpu.shuffle": "shuffle",
    "nvvm.shfl.sync": "shuffle",
    "nvvm.vote.sync": "vote",
    "nvvm.redux.sync": "vote",
    "nvvm.elect.sync": "vote",
    "gpu.subgroup_reduce": "vote",
    "scf.if": "branch",
    "cf.cond_br": "branch",
}

MEMORY_OPS = {
    "memref.load": "ld",
    "vector.load": "ld",
    "memref.store": "st",
    "vector.store": "st",
    "memref.atomic_rmw": "atomic",
    "memref.generic_atomic_rmw": "atomic",
}


def float_class(t: Type) -> str:
    """``fp32``, ``fp16`` (f16, bf16) or ``fp64`` for a float type (or vector of one).

    >>> from tinycomp.ir import f64
    >>> float_class(f64)
    'fp64'
    """
    width = getattr(element_type(t), "width", 32)
    return "fp64" if width == 64 else "fp16" if width == 16 else "fp32"


def memory_space(memref_type: Type) -> str:
    """``global``, ``shared`` (workgroup) or ``local`` (private) for a memref type.

    >>> from tinycomp.ir import parse_type
    >>> memory_space(parse_type("memref<4xf32, #gpu.address_space<workgroup>>"))
    'shared'
    """
    space = str(getattr(memref_type, "memory_space", None) or "")
    if "workgroup" in space or space == "3":
        return "shared"
    if "private" in space or space == "5":
        return "local"
    return "global"


def instruction_class(op: Operation) -> str | None:
    """The class ``op`` counts as, or ``None`` for a free op."""
    name = op.name
    if name in FREE_OPS:
        return None
    if name in FIXED_CLASSES:
        return FIXED_CLASSES[name]
    if name in MEMORY_OPS:
        memref = op.operands[1] if name in ("memref.store", "vector.store") else None
        if name == "memref.atomic_rmw":
            memref = op.operands[1]
        memref = memref if memref is not None else op.operands[0]
        space = memory_space(memref.type)
        kind = MEMORY_OPS[name]
        if kind == "atomic":
            return "atomic_shared" if space == "shared" else "atomic_global"
        return f"{kind}_{space}"
    if name in CONVERSIONS:
        return "conversion"
    if name in SFU_FUNCTIONS:
        return "sfu"
    dialect = name.split(".")[0]
    if dialect in ("arith", "math"):
        typed = op.operands[0].type if op.operands else op.results[0].type
        if name in ("arith.select",) or not isinstance(element_type(typed), FloatType):
            return "int"
        return float_class(typed)
    return "misc"
