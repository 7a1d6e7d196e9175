"""Rules for func: calling a function by its symbol and returning from it.

A ``func.call`` runs the callee in a fresh frame (``Interpreter.call``), so recursion
works and values never leak between activations. ``func.return`` leaves the function's
body with its operands, which become the call's results.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import Interpreter
>>> m = parse('''
... func.func @square(%x: i32) -> i32 {
...   %y = arith.muli %x, %x : i32
...   return %y : i32
... }
... func.func @main(%x: i32) -> i32 {
...   %y = call @square(%x) : (i32) -> i32
...   %z = call @square(%y) : (i32) -> i32
...   return %z : i32
... }''')
>>> (y,) = Interpreter(m).call("main", [np.int32(3)])
>>> int(y), y.dtype
(81, dtype('int32'))
"""

from __future__ import annotations

from typing import Any

from tinycomp.interp.control import Exit
from tinycomp.interp.errors import op_error
from tinycomp.ir.attributes import SymbolRefAttr
from tinycomp.ir.operation import Operation


def run_call(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``func.call @f(args)``: run ``@f`` and take its returned values."""
    callee = op.attributes.get("callee")
    if not isinstance(callee, SymbolRefAttr):
        raise op_error(op, f"expected a 'callee' attribute like @f, got {callee}")
    return interp.call(callee.root, operands, op)


def run_return(op: Operation, operands: list[Any], interp: Any) -> Exit:
    """``func.return``: leave the function with these values."""
    return Exit(operands)


RULES = {"func.call": run_call, "func.return": run_return}
"""The func ops the interpreter runs (``func.func`` itself is entered by a call)."""

__all__ = ["RULES"]
