"""Rules for arith's casts. Each rounds at most once, as the LLVM instruction does.

==================  ===========================================================
op                  semantics
==================  ===========================================================
extf                exact (every f16/bf16/f32 value is an f32/f64 value)
truncf              round to nearest, ties to even (``round_float``)
sitofp / uitofp     read the integer signed / unsigned, round to nearest-even
fptosi / fptoui     truncate toward zero; NaN, inf or out of range is an error
                    (LLVM gives poison)
extsi / extui       sign- / zero-extend
trunci              keep the low bits
index_cast(ui)      like extsi (extui) or trunci, between ``index`` and ``iN``
bitcast             same bits, other type (``f32`` <-> ``i32``)
==================  ===========================================================

>>> import numpy as np
>>> from tinycomp.ir import Operation, i32, f32
>>> cast = Operation.create("arith.fptosi", result_types=[i32])
>>> [int(v) for v in run_fptosi(cast, [np.float32(-2.7)], None)]
[-2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.interp.errors import format_index, op_error
from tinycomp.interp.numerics import (
    as_value,
    dtype_of,
    int_range,
    int_to_float,
    int_width,
    round_float,
    signed,
    unsigned,
    wrap_int,
)
from tinycomp.ir.operation import Operation


def _source_width(op: Operation) -> int:
    return int_width(op.operands[0].type)


def _to_result_int(op: Operation, values: Any) -> Any:
    result_type = op.results[0].type
    return wrap_int(values, int_width(result_type), dtype_of(result_type))


def run_extf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Widen a float (exact)."""
    return [round_float(operands[0], dtype_of(op.results[0].type))]


def run_truncf(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Narrow a float, rounding to nearest-even (the only rounding mode supported)."""
    mode = op.attributes.get("roundingmode")
    if mode is not None and "to_nearest_even" not in str(mode):
        raise op_error(op, f"only the default rounding (to_nearest_even) is supported, got {mode}")
    return [round_float(operands[0], dtype_of(op.results[0].type))]


def run_extsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Sign-extend."""
    return [_to_result_int(op, signed(operands[0], _source_width(op)))]


def run_extui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Zero-extend."""
    return [_to_result_int(op, unsigned(operands[0], _source_width(op)))]


def run_trunci(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Keep the low bits."""
    return [_to_result_int(op, signed(operands[0], _source_width(op)))]


def run_index_cast(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``index`` <-> ``iN``: sign-extend or truncate."""
    return [_to_result_int(op, signed(operands[0], _source_width(op)))]


def run_index_castui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``index`` <-> ``iN``: zero-extend or truncate."""
    return [_to_result_int(op, unsigned(operands[0], _source_width(op)))]


def run_sitofp(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Signed integer to float, rounded once (an ``i1`` true is -1.0)."""
    values = signed(operands[0], _source_width(op))
    return [int_to_float(values, dtype_of(op.results[0].type))]


def run_uitofp(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Unsigned integer to float, rounded once."""
    values = unsigned(operands[0], _source_width(op))
    return [int_to_float(values, dtype_of(op.results[0].type))]


def _float_to_int(op: Operation, value: Any, is_signed: bool) -> Any:
    """Truncate toward zero and check the range (out of range is poison in LLVM)."""
    width = int_width(op.results[0].type)
    low, high = int_range(width, is_signed)
    truncated = np.trunc(np.asarray(value).astype(np.float64))
    bad = ~((truncated >= low) & (truncated < high + 1.0))  # False for NaN too
    if np.any(bad):
        where = "" if np.ndim(bad) == 0 else f" at element {format_index(np.argwhere(bad)[0])}"
        example = float(np.asarray(value).reshape(-1)[np.argmax(np.asarray(bad).reshape(-1))])
        raise op_error(
            op,
            f"{example}{where} does not fit in {op.results[0].type} "
            f"(expected {low} <= value <= {high} after truncation; the result would be poison)",
        )
    if is_signed:
        return _to_result_int(op, truncated.astype(np.int64))
    return _to_result_int(op, truncated.astype(np.uint64))


def run_fptosi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Float to signed integer, truncating toward zero."""
    return [_float_to_int(op, operands[0], is_signed=True)]


def run_fptoui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Float to unsigned integer, truncating toward zero."""
    return [_float_to_int(op, operands[0], is_signed=False)]


def run_bitcast(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Reinterpret the bits as another type of the same width."""
    target = dtype_of(op.results[0].type)
    source = np.array(operands[0])  # a contiguous copy (0-d for a scalar)
    if source.dtype.itemsize != target.itemsize:
        raise op_error(op, f"expected types of one width, got {source.dtype} and {target}")
    return [as_value(source.view(target), target)]


CAST_RULES = {
    "arith.extf": run_extf,
    "arith.truncf": run_truncf,
    "arith.extsi": run_extsi,
    "arith.extui": run_extui,
    "arith.trunci": run_trunci,
    "arith.index_cast": run_index_cast,
    "arith.index_castui": run_index_castui,
    "arith.sitofp": run_sitofp,
    "arith.uitofp": run_uitofp,
    "arith.fptosi": run_fptosi,
    "arith.fptoui": run_fptoui,
    "arith.bitcast": run_bitcast,
}
"""arith's casts."""

__all__ = ["CAST_RULES"]
