"""The one exception of the interpreter layer, and how messages name values.

Every message says which op failed (with its source line when the IR was parsed), the
value or index at fault, and what was expected versus what was found::

    'memref.load' at line 7: index [4, 0] is out of bounds for %A (shape 4x8):
    expected 0 <= index < 4 in dimension 0, got 4

>>> raise InterpreterError("'arith.divsi' at line 3: division by zero")
Traceback (most recent call last):
...
tinycomp.interp.errors.InterpreterError: 'arith.divsi' at line 3: division by zero
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tinycomp.ir.location import describe_location
from tinycomp.ir.values import BlockArgument, OpResult, Value

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation


class InterpreterError(Exception):
    """IR that cannot be run: an unknown op, a bad argument, an out-of-bounds or
    uninitialised access, a division by zero, a use after free..."""

    def __init__(self, message: str, op: Operation | None = None) -> None:
        self.message = message
        """What went wrong, naming the op and its line."""
        self.op = op
        """The operation at fault, when there is one."""
        super().__init__(message)


def op_error(op: Operation, message: str) -> InterpreterError:
    """An ``InterpreterError`` whose message starts with the op's name and line.

    >>> from tinycomp.ir import Operation
    >>> print(op_error(Operation.create("test.op"), "expected 1, got 2"))
    'test.op': expected 1, got 2
    """
    return InterpreterError(f"'{op.name}'{describe_location(op.location)}: {message}", op)


def describe_value(value: Value) -> str:
    """A short name for a value in a message: ``%A`` when it has a name, otherwise
    ``result #0 of 'memref.alloc' at line 4`` or ``block argument #1``.

    >>> from tinycomp.ir import Block, f32
    >>> describe_value(Block([f32]).arguments[0])
    'block argument #0'
    """
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value, OpResult):
        return f"result #{value.index} of '{value.op.name}'{describe_location(value.op.location)}"
    if isinstance(value, BlockArgument):
        return f"block argument #{value.index}"
    return "a value"


def format_index(index: Sequence[int]) -> str:
    """``[4, 0]``: an element index as MLIR writes subscripts.

    >>> format_index((4, 0))
    '[4, 0]'
    """
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def format_shape(shape: Sequence[int]) -> str:
    """``4x8`` (``scalar`` for rank 0).

    >>> format_shape((4, 8)), format_shape(())
    ('4x8', 'scalar')
    """
    return "x".join(str(int(s)) for s in shape) if len(shape) else "scalar"


__all__ = ["InterpreterError", "describe_value", "format_index", "format_shape", "op_error"]
