"""Rules for arith: constants, float arithmetic, comparisons, ``select``.

Every rule is elementwise: operands are numpy scalars or arrays (vectors, tensors, or a
vectorized ``linalg.generic`` body), and the result has the op's dtype. Float ops run in
the op's own type (``f16 + f16`` is rounded to ``f16`` once), with IEEE semantics: an
overflow gives ``inf``, ``0/0`` gives NaN, and no warning is printed.

Integer ops live in ``arith_int.py`` and casts in ``arith_cast.py``; ``RULES`` below
merges all three.

==============================  ===================================================
op                              semantics (numpy)
==============================  ===================================================
addf subf mulf divf negf        ``+ - * / -x`` in the op's dtype
remf                            ``np.fmod``: C's ``fmod``, sign of the dividend
maximumf / minimumf             NaN if either is NaN; ``-0.0 < +0.0``
maxnumf / minnumf               the other operand if one is NaN (``np.fmax``/``fmin``)
cmpf                            ordered predicates (``o..``) are false on NaN,
                                unordered ones (``u..``) true
select                          ``np.where(cond, a, b)``
==============================  ===================================================

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import Interpreter
>>> m = parse('''func.func @f(%a: f32, %b: f32) -> (f32, f32) {
...   %x = arith.maximumf %a, %b : f32
...   %y = arith.maxnumf %a, %b : f32
...   return %x, %y : f32, f32
... }''')
>>> [float(v) for v in Interpreter(m).call("f", [np.float32(np.nan), np.float32(1.0)])]
[nan, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.dialects.arith.compare import CMPF_PREDICATES
from tinycomp.interp.errors import op_error
from tinycomp.interp.numerics import as_value, dtype_of, round_float, wrap_int
from tinycomp.interp.rules.arith_cast import CAST_RULES
from tinycomp.interp.rules.arith_int import INT_RULES
from tinycomp.ir.attributes import BoolAttr, FloatAttr, IntegerAttr
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import bitwidth, element_type


def result_dtype(op: Operation) -> np.dtype:
    """The numpy dtype of the op's (first) result's elements."""
    return dtype_of(op.results[0].type)


# -- constants ----------------------------------------------------------------------------
def run_constant(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``arith.constant``: the ``value`` attribute as a numpy scalar or a read-only array."""
    value = op.attributes.get("value")
    dtype = result_dtype(op)
    if isinstance(value, DenseElementsAttr):
        return [value.values]  # already read-only, of the right dtype and shape
    if isinstance(value, BoolAttr):
        return [np.bool_(value.value)]
    if isinstance(value, IntegerAttr):
        return [wrap_int(np.int64(value.value), bitwidth(element_type(value.type)), dtype)]
    if isinstance(value, FloatAttr):
        return [round_float(np.float64(value.value), dtype)]  # exact: value fits the type
    raise op_error(op, f"expected an integer, float or dense 'value', got {value}")


# -- float arithmetic -------------------------------------------------------------------------
def run_addf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a + b``."""
    return [as_value(np.add(*operands), result_dtype(op))]


def run_subf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a - b``."""
    return [as_value(np.subtract(*operands), result_dtype(op))]


def run_mulf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a * b``."""
    return [as_value(np.multiply(*operands), result_dtype(op))]


def run_divf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a / b`` (IEEE: ``1/0 = inf``, ``0/0 = NaN``)."""
    return [as_value(np.divide(*operands), result_dtype(op))]


def run_remf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """C's ``fmod(a, b)``: the remainder has the sign of ``a`` (exact in any dtype)."""
    return [as_value(np.fmod(*operands), result_dtype(op))]


def run_negf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``-a`` (flips the sign bit, also of zeros and NaNs)."""
    return [as_value(np.negative(operands[0]), result_dtype(op))]


def run_maximumf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """IEEE ``maximum``: NaN if either operand is NaN; ``+0.0`` beats ``-0.0``."""
    a, b = operands
    larger = np.maximum(a, b)  # propagates NaN
    both_zero = (a == 0) & (b == 0)
    positive_zero = np.where(np.signbit(a) & np.signbit(b), -0.0, 0.0)
    larger = np.where(both_zero, positive_zero.astype(np.asarray(larger).dtype), larger)
    return [as_value(larger, result_dtype(op))]


def run_minimumf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """IEEE ``minimum``: NaN if either operand is NaN; ``-0.0`` beats ``+0.0``."""
    a, b = operands
    smaller = np.minimum(a, b)
    both_zero = (a == 0) & (b == 0)
    negative_zero = np.where(np.signbit(a) | np.signbit(b), -0.0, 0.0)
    smaller = np.where(both_zero, negative_zero.astype(np.asarray(smaller).dtype), smaller)
    return [as_value(smaller, result_dtype(op))]


def run_maxnumf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """IEEE ``maxNum``: a NaN operand is ignored (NaN only if both are NaN)."""
    return [as_value(np.fmax(*operands), result_dtype(op))]


def run_minnumf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """IEEE ``minNum``: a NaN operand is ignored."""
    return [as_value(np.fmin(*operands), result_dtype(op))]


# -- comparisons and select ----------------------------------------------------------------------
def _unordered(a: Any, b: Any) -> Any:
    return np.isnan(a) | np.isnan(b)


CMPF_FUNCTIONS = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, dtype=bool),
    "oeq": lambda a, b: a == b,
    "ogt": lambda a, b: a > b,
    "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b,
    "ole": lambda a, b: a <= b,
    "one": lambda a, b: (a != b) & ~_unordered(a, b),
    "ord": lambda a, b: ~_unordered(a, b),
    "ueq": lambda a, b: (a == b) | _unordered(a, b),
    "ugt": lambda a, b: ~(a <= b),
    "uge": lambda a, b: ~(a < b),
    "ult": lambda a, b: ~(a >= b),
    "ule": lambda a, b: ~(a > b),
    "une": lambda a, b: a != b,
    "uno": _unordered,
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, dtype=bool),
}
"""``cmpf`` predicates. numpy's comparisons are false whenever a NaN is involved (except
``!=``), which is exactly the *ordered* meaning; an unordered predicate is the negation
of the opposite ordered one (``ugt`` = not ``ole``)."""


def run_cmpf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``arith.cmpf <predicate>``: elementwise, giving ``i1``."""
    predicate = op.attributes.get("predicate")
    if not isinstance(predicate, IntegerAttr) or not 0 <= predicate.value < len(CMPF_PREDICATES):
        raise op_error(op, f"expected a cmpf predicate 0..15, got {predicate}")
    a, b = operands
    return [as_value(CMPF_FUNCTIONS[CMPF_PREDICATES[predicate.value]](a, b), np.dtype(bool))]


def run_select(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``cond ? a : b``, elementwise when ``cond`` is a vector/tensor of ``i1``."""
    condition, if_true, if_false = operands
    return [as_value(np.where(condition, if_true, if_false), result_dtype(op))]


FLOAT_RULES = {
    "arith.constant": run_constant,
    "arith.addf": run_addf,
    "arith.subf": run_subf,
    "arith.mulf": run_mulf,
    "arith.divf": run_divf,
    "arith.remf": run_remf,
    "arith.negf": run_negf,
    "arith.maximumf": run_maximumf,
    "arith.minimumf": run_minimumf,
    "arith.maxnumf": run_maxnumf,
    "arith.minnumf": run_minnumf,
    "arith.cmpf": run_cmpf,
    "arith.select": run_select,
}

RULES = {**FLOAT_RULES, **INT_RULES, **CAST_RULES}
"""Every arith op the interpreter runs."""

__all__ = ["CMPF_FUNCTIONS", "RULES", "result_dtype"]
