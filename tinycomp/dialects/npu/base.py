"""npu: what the dialect's ops share, attribute access and the pipe an op runs on.

Every npu op names its pipe (the op fact the simulator and the sync passes ask):
``execution_pipe()`` is the class's ``pipe``, or computed from the operands where it
depends on them (a copy's pipe is its data path's). Attributes are plain integers,
booleans and strings, read through ``int_attr`` / ``bool_attr`` / ``str_attr`` with
their defaults.

>>> from tinycomp.ir import Operation
>>> op = Operation.create("npu.vadd")
>>> op.execution_pipe(), int_attr(op, "repeat", 1)
('V', 1)
"""

from __future__ import annotations

from tinycomp.dialects.npu.spaces import space_of
from tinycomp.ir.attributes import BoolAttr, IntegerAttr, StringAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import IndexType, MemRefType
from tinycomp.ir.values import Value

__all__ = ["NpuOp", "bool_attr", "check_index", "check_space", "int_attr", "str_attr"]


class NpuOp(Operation):
    """Base of the npu ops: no regions, no successors, a pipe."""

    num_regions = 0
    num_successors = 0
    pipe: str = "S"
    """The pipe that runs this op (``execution_pipe`` may compute it instead)."""

    def execution_pipe(self) -> str:
        """The pipe this op runs on."""
        return self.pipe


def int_attr(op: Operation, name: str, default: int | None = None) -> int:
    """The integer attribute ``name`` of ``op`` (``default`` when absent)."""
    attr = op.attributes.get(name)
    if isinstance(attr, IntegerAttr):
        return attr.value
    if attr is None and default is not None:
        return default
    raise op.error(f"expected an integer attribute '{name}', got {attr}")


def bool_attr(op: Operation, name: str, default: bool = False) -> bool:
    """The boolean attribute ``name`` of ``op`` (``default`` when absent)."""
    attr = op.attributes.get(name)
    if attr is None:
        return default
    if isinstance(attr, BoolAttr):
        return attr.value
    raise op.error(f"expected a boolean attribute '{name}', got {attr}")


def str_attr(op: Operation, name: str, default: str | None = None) -> str:
    """The string attribute ``name`` of ``op`` (``default`` when absent)."""
    attr = op.attributes.get(name)
    if isinstance(attr, StringAttr):
        return attr.value
    if attr is None and default is not None:
        return default
    raise op.error(f"expected a string attribute '{name}', got {attr}")


def check_space(op: Operation, value: Value, what: str, allowed: tuple[str, ...]) -> str:
    """The space of ``value`` (a 1-D memref) when it is one of ``allowed``; else an error
    naming the operand ``what``."""
    where = space_of(value.type)
    if not isinstance(value.type, MemRefType) or len(value.type.shape) != 1 or where is None:
        raise op.error(
            f"expected {what} to be a 1-D memref in GM or an npu space, got {value.type}"
        )
    if where not in allowed:
        raise op.error(f"expected {what} in {' or '.join(allowed)}, got one in {where}")
    return where


def check_index(op: Operation, value: Value, what: str) -> None:
    """An error unless ``value`` is an ``index`` (an offset, an event id)."""
    if not isinstance(value.type, IndexType):
        raise op.error(f"expected {what} to be an index, got {value.type}")
