"""Scalars of an NPU kernel: Python numbers (compile time) or recorded values.

Index arithmetic on Python ints stays Python (``tile * 2`` is just a number); as soon
as a block-dependent value joins in (``npu.block_idx()``, a loop variable), the
operation is recorded as an ``arith`` op on ``index``. A ``Scalar`` wraps such a value
and has Python's operators; comparisons give an ``i1`` ``Scalar`` for ``npu.if_``.

>>> from tinycomp.frontend.npu.trace import Trace
>>> trace = Trace.begin("k", [], kind="aiv", kernel_type="aiv")
>>> from tinycomp.dialects.npu import BlockIdxOp
>>> block = Scalar(trace.emit(BlockIdxOp.build()).result)
>>> offset = block * 2048 + 16
>>> offset.value.op.name, (offset * 0 if False else 3 * 4)
('arith.addi', 12)
>>> _ = trace.finish()
"""

from __future__ import annotations

from typing import Any

from tinycomp.dialects import arith
from tinycomp.frontend.npu.trace import current_trace
from tinycomp.ir import Type, i1, index
from tinycomp.ir.type_helpers import is_float
from tinycomp.ir.values import Value

__all__ = ["Number", "Scalar", "as_value", "is_static"]

Number = "int | float | Scalar"


def as_value(x: Any, type: Type = index) -> Value:
    """The IR value of ``x`` (a Python number becomes a constant of ``type``)."""
    if isinstance(x, Scalar):
        return x.value
    if isinstance(x, bool):
        return current_trace().constant(bool(x), i1)
    if isinstance(x, (int, float)) or hasattr(x, "dtype"):
        return current_trace().constant(x.item() if hasattr(x, "item") else x, type)
    raise current_trace().error(f"expected a number or a kernel scalar, got {type(x).__name__}")


def is_static(x: Any) -> bool:
    """A Python number, known while tracing."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


_INT_OPS = {
    "+": arith.AddIOp, "-": arith.SubIOp, "*": arith.MulIOp, "//": arith.FloorDivSIOp,
    "%": arith.RemSIOp,
}  # fmt: skip
_FLOAT_OPS = {"+": arith.AddFOp, "-": arith.SubFOp, "*": arith.MulFOp, "/": arith.DivFOp}
_PYTHON = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "/": lambda a, b: a / b,
}  # fmt: skip


def binary(op: str, a: Any, b: Any) -> Any:
    """``a op b``: Python when both are numbers, else a recorded op."""
    if is_static(a) and is_static(b):
        return _PYTHON[op](a, b)
    kind = a.value.type if isinstance(a, Scalar) else b.value.type
    if not is_float(kind):
        if op == "*" and is_static(a) and a == 1:
            return b
        if op in ("*", "//") and is_static(b) and b == 1:
            return a
        if op in ("+", "-") and is_static(b) and b == 0:
            return a
        if op == "+" and is_static(a) and a == 0:
            return b
    table = _FLOAT_OPS if is_float(kind) else _INT_OPS
    if op not in table:
        raise current_trace().error(f"'{op}' is not defined on {kind} scalars")
    trace = current_trace()
    result = trace.emit(table[op].build(as_value(a, kind), as_value(b, kind))).result
    return Scalar(result)


class Scalar:
    """A recorded scalar (module docstring)."""

    def __init__(self, value: Value) -> None:
        self.value = value

    @property
    def type(self) -> Type:
        return self.value.type

    def __add__(self, other: Any) -> Any:
        return binary("+", self, other)

    def __radd__(self, other: Any) -> Any:
        return binary("+", other, self)

    def __sub__(self, other: Any) -> Any:
        return binary("-", self, other)

    def __rsub__(self, other: Any) -> Any:
        return binary("-", other, self)

    def __mul__(self, other: Any) -> Any:
        return binary("*", self, other)

    def __rmul__(self, other: Any) -> Any:
        return binary("*", other, self)

    def __floordiv__(self, other: Any) -> Any:
        return binary("//", self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return binary("//", other, self)

    def __mod__(self, other: Any) -> Any:
        return binary("%", self, other)

    def __rmod__(self, other: Any) -> Any:
        return binary("%", other, self)

    def __truediv__(self, other: Any) -> Any:
        return binary("/", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return binary("/", other, self)

    def __neg__(self) -> Any:
        return binary("-", 0.0 if is_float(self.type) else 0, self)

    def _compare(self, predicate: str, other: Any) -> Scalar:
        trace = current_trace()
        if is_float(self.type):
            raise trace.error("comparisons of float scalars are not supported in npu kernels")
        op = arith.CmpIOp.build(predicate, self.value, as_value(other, self.type))
        return Scalar(trace.emit(op).result)

    def __lt__(self, other: Any) -> Scalar:
        return self._compare("slt", other)

    def __le__(self, other: Any) -> Scalar:
        return self._compare("sle", other)

    def __gt__(self, other: Any) -> Scalar:
        return self._compare("sgt", other)

    def __ge__(self, other: Any) -> Scalar:
        return self._compare("sge", other)

    def __eq__(self, other: Any) -> Scalar:  # type: ignore[override]
        return self._compare("eq", other)

    def __ne__(self, other: Any) -> Scalar:  # type: ignore[override]
        return self._compare("ne", other)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise current_trace().error(
            "a Python `if`/`while` cannot test a value known only on the chip (it depends on "
            "the block or a loop); use `with npu.if_(condition):`"
        )

    def __index__(self) -> int:
        raise current_trace().error(
            "a value known only on the chip cannot be a Python number here (a `range` bound, "
            "a list index); use npu.range for a loop over it"
        )


def minimum(a: Any, b: Any) -> Any:
    """``min(a, b)`` of index scalars (``arith.minsi`` when one is recorded)."""
    if is_static(a) and is_static(b):
        return min(a, b)
    trace = current_trace()
    return Scalar(trace.emit(arith.MinSIOp.build(as_value(a), as_value(b))).result)
