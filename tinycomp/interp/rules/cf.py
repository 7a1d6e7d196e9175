"""Rules for cf: branches between the blocks of a region, and run-time assertions.

A branch is a terminator whose rule returns a ``Branch``: the interpreter binds the
destination block's arguments to the passed values and runs that block next (see
``Interpreter.run_region``).

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import Interpreter
>>> m = parse('''
... func.func @abs(%x: i32) -> i32 {
...   %zero = arith.constant 0 : i32
...   %neg = arith.cmpi slt, %x, %zero : i32
...   cf.cond_br %neg, ^flip, ^done(%x : i32)
... ^flip:
...   %y = arith.subi %zero, %x : i32
...   cf.br ^done(%y : i32)
... ^done(%r: i32):
...   return %r : i32
... }''')
>>> [int(v) for v in Interpreter(m).call("abs", [np.int32(-5)])]
[5]
"""

from __future__ import annotations

from typing import Any

from tinycomp.interp.control import Branch
from tinycomp.interp.errors import op_error
from tinycomp.interp.rules.common import segments
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.operation import Operation


def run_br(op: Operation, operands: list[Any], interp: Any) -> Branch:
    """``cf.br ^dest(values)``."""
    return Branch(op.successors[0], operands)


def run_cond_br(op: Operation, operands: list[Any], interp: Any) -> Branch:
    """``cf.cond_br %c, ^then(values), ^else(values)``."""
    (condition,), true_values, false_values = segments(op, operands, 3)
    if bool(condition):
        return Branch(op.successors[0], true_values)
    return Branch(op.successors[1], false_values)


def run_assert(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``cf.assert %c, "message"``: an error with the message when ``%c`` is false."""
    if not bool(operands[0]):
        message = op.attributes.get("msg")
        text = message.value if isinstance(message, StringAttr) else "assertion failed"
        raise op_error(op, f"assertion failed: {text}")
    return []


RULES = {"cf.br": run_br, "cf.cond_br": run_cond_br, "cf.assert": run_assert}
"""The cf ops the interpreter runs."""

__all__ = ["RULES"]
