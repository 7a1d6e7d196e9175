"""The interpreter: walk the ops in order, keep a value for every SSA value.

The algorithm is the one a student would write on a whiteboard:

1. ``call(name, args)``: find ``func.func @name`` in the module, push a fresh *frame*
   (a dict from SSA values to run-time values), and run the function's body region.
2. ``run_region(region, args)``: bind the entry block's arguments, then run its ops one
   by one. The block's terminator decides what happens next: a branch (``cf.br``)
   names the next block and the values for its arguments; a "return-like" terminator
   (``func.return``, ``scf.yield``, ``linalg.yield``...) leaves the region with its
   operand values, which the op owning the region (a call, a loop) takes as results.
3. ``run_op(op)``: read the operands' values from the frame, look up the *rule* for
   ``op.name`` (a plain function in ``tinycomp/interp/rules/<dialect>.py``), run it,
   check every result against its declared type, and store the results in the frame.

Ops with regions (``scf.for``, ``linalg.generic``...) have rules that call back into
``run_region``. Everything the interpreter knows about a dialect is in its rule table;
an op without a rule is an ``InterpreterError`` that names it.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @main(%x: f32) -> f32 {
...   %y = arith.mulf %x, %x : f32
...   return %y : f32
... }''')
>>> import numpy as np
>>> (y,) = Interpreter(module).call("main", [np.float32(3.0)])
>>> float(y), y.dtype
(9.0, dtype('float32'))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tinycomp.interp.conformance import mismatch
from tinycomp.interp.control import Branch, Exit
from tinycomp.interp.errors import InterpreterError, describe_value, format_index, op_error
from tinycomp.interp.memory import Buffer
from tinycomp.interp.rules import ALL_RULES, PASSES_UNINITIALIZED
from tinycomp.interp.tensors import PartialTensor, first_uninitialized
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.values import Value

MAX_CALL_DEPTH = 100
"""Deeper ``func.call`` nesting than this is reported (runaway recursion)."""


Outcome = list[Any] | Branch | Exit
"""A rule returns the values of the op's results, or a ``Branch``/``Exit`` (terminators)."""

Rule = Callable[[Operation, list[Any], "Interpreter"], Outcome]
"""``rule(op, operand_values, interpreter) -> outcome``: how one op runs."""


@dataclass
class Frame:
    """The values of one function activation."""

    function: Operation
    """The ``func.func`` being run."""
    values: dict[Value, Any] = field(default_factory=dict)
    """SSA value -> run-time value (numpy scalar, array, ``MemRefValue``...)."""
    stack_buffers: list[Buffer] = field(default_factory=list)
    """``memref.alloca`` memory, released when the function returns."""


class Interpreter:
    """Runs the functions of one module. ``rules`` maps op names to rules (default: every
    dialect in ``tinycomp.interp.rules``); ``vectorize_linalg=False`` runs every
    ``linalg`` op point by point (slow, but the simplest possible semantics).

    ``call`` takes and returns run-time values (``interpret`` converts from and to plain
    numpy for you):

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @neg(%x: i8) -> i8 { %z = arith.constant 0 : i8 "
    ...           "%y = arith.subi %z, %x : i8  return %y : i8 }")
    >>> [int(v) for v in Interpreter(m).call("neg", [np.int8(-128)])]  # wraps around
    [-128]
    """

    def __init__(
        self,
        module: Operation,
        rules: dict[str, Rule] | None = None,
        vectorize_linalg: bool = True,
    ) -> None:
        self.module = module
        """The module whose functions are run."""
        self.rules: dict[str, Rule] = ALL_RULES if rules is None else rules
        """Op name -> rule."""
        self.passes_uninitialized: frozenset[str] = PASSES_UNINITIALIZED
        """Ops that may take tensors with uninitialised elements (they only move them)."""
        self.vectorize_linalg = vectorize_linalg
        """Run ``linalg`` bodies on whole numpy arrays when possible."""
        self.symbols: dict[str, Operation] = {}
        """Top-level symbols of the module (functions, ``memref.global``s) by name."""
        for region in module.regions:
            for block in region.blocks:
                for op in block:
                    name = op.attributes.get("sym_name")
                    if isinstance(name, StringAttr):
                        self.symbols.setdefault(name.value, op)
        self.globals: dict[str, Any] = {}
        """Memory of the ``memref.global``s used so far (created on first use)."""
        self.frames: list[Frame] = []
        """The call stack; the last frame is the running function."""
        self.linalg_points: list[list[Any]] = []
        """Loop indices of the ``linalg`` ops being run (read by ``linalg.index``)."""
        self.cache: dict[Any, Any] = {}
        """Things rules build once per run (the bodies of named linalg ops)."""

    # -- functions -------------------------------------------------------------------
    def call(self, name: str, args: Sequence[Any], call_op: Operation | None = None) -> list[Any]:
        """Run ``func.func @name`` on run-time values; returns the returned values.

        Float overflow to ``inf`` and ``0/0 = NaN`` are IEEE results, not errors: numpy's
        warnings about them are silenced while the interpreter runs.
        """
        with np.errstate(all="ignore"):
            return self._call(name, args, call_op)

    def _call(self, name: str, args: Sequence[Any], call_op: Operation | None) -> list[Any]:
        func = self.symbols.get(name)
        where = f"'{call_op.name}' calling @{name}" if call_op is not None else f"@{name}"
        if func is None or func.name != "func.func":
            known = sorted(n for n, op in self.symbols.items() if op.name == "func.func")
            raise self._error(call_op, f"no function @{name} in the module (it has: {known})")
        if not func.regions or not func.regions[0].blocks:
            raise self._error(call_op, f"cannot run @{name}: it is a declaration, no body")
        function_type = func.attributes["function_type"].type
        if len(args) != len(function_type.inputs):
            raise self._error(
                call_op, f"{where}: expected {len(function_type.inputs)} arguments, got {len(args)}"
            )
        for index, (value, arg_type) in enumerate(zip(args, function_type.inputs, strict=True)):
            problem = mismatch(value, arg_type)
            if problem is not None:
                raise self._error(call_op, f"{where}: argument #{index}: {problem}")
        if len(self.frames) >= MAX_CALL_DEPTH:
            raise self._error(call_op, f"calls nest deeper than {MAX_CALL_DEPTH} (recursion?)")
        frame = Frame(func)
        self.frames.append(frame)
        try:
            results = self.run_region(func.regions[0], list(args))
        finally:
            self.frames.pop()
            for buffer in frame.stack_buffers:
                buffer.freed_by = f"the return from @{name} (it was stack memory)"
        if len(results) != len(function_type.results):
            raise InterpreterError(
                f"@{name} returns {len(results)} values, its type says {len(function_type.results)}"
            )
        for index, (value, result_type) in enumerate(
            zip(results, function_type.results, strict=True)
        ):
            problem = mismatch(value, result_type)
            if problem is not None:
                raise InterpreterError(f"@{name} returns a bad result #{index}: {problem}")
        return results

    # -- regions and blocks ------------------------------------------------------------------
    def run_region(self, region: Region, args: Sequence[Any]) -> list[Any]:
        """Run ``region`` from its entry block with ``args`` for the block arguments,
        following branches, until a terminator leaves the region; returns that
        terminator's operand values (``[]`` for a block that ends without one)."""
        block = region.entry_block
        if block is None:
            raise self._error(region.parent_op, "expected a region with a block to run")
        arguments = list(args)
        while True:
            self.bind_block_arguments(block, arguments)
            outcome = None
            for op in block:
                outcome = self.run_op(op)
                if outcome is not None:
                    break
            if isinstance(outcome, Branch):
                if outcome.dest.parent is not region:
                    raise self._error(block.last_op, "expected a branch to a block of its region")
                block, arguments = outcome.dest, outcome.arguments
                continue
            return outcome.values if isinstance(outcome, Exit) else []

    def bind_block_arguments(self, block: Block, values: Sequence[Any]) -> None:
        """Give the block's arguments their values, checking count and types."""
        owner = block.parent_op()
        if len(values) != len(block.arguments):
            raise self._error(
                owner, f"expected {len(block.arguments)} block argument values, got {len(values)}"
            )
        frame = self.frames[-1].values
        for argument, value in zip(block.arguments, values, strict=True):
            problem = mismatch(value, argument.type)
            if problem is not None:
                raise self._error(owner, f"block argument #{argument.index}: {problem}")
            frame[argument] = value

    # -- one op ---------------------------------------------------------------------------
    def run_op(self, op: Operation) -> Branch | Exit | None:
        """Run one op: its rule on its operand values; store and return what it gives."""
        rule = self.rules.get(op.name)
        if rule is None:
            dialects = sorted({name.split(".")[0] for name in self.rules})
            raise op_error(
                op, f"the interpreter has no rule for this op (dialects it runs: {dialects})"
            )
        operands = [self.read(value, op) for value in op.operands]
        if op.name not in self.passes_uninitialized:
            self._check_initialized(op, operands)
        try:
            outcome = rule(op, operands, self)
        except InterpreterError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as exc:
            raise op_error(op, f"cannot run it: {type(exc).__name__}: {exc}") from exc
        if isinstance(outcome, (Branch, Exit)):
            return outcome
        if len(outcome) != len(op.results):
            raise op_error(op, f"expected {len(op.results)} results, the rule gave {len(outcome)}")
        frame = self.frames[-1].values
        for result, value in zip(op.results, outcome, strict=True):
            problem = mismatch(value, result.type)
            if problem is not None:
                raise op_error(op, f"result #{result.index}: {problem}")
            frame[result] = value
        return None

    def _check_initialized(self, op: Operation, operands: list[Any]) -> None:
        for index, value in enumerate(operands):
            if isinstance(value, PartialTensor):
                where = format_index(first_uninitialized(value.initialized))
                raise op_error(
                    op,
                    f"reads operand #{index} ({describe_value(op.operand(index))}), a tensor "
                    f"whose element {where} was never written (tensor.empty leaves its "
                    "elements uninitialised)",
                )

    # -- values -----------------------------------------------------------------------------
    def read(self, value: Value, user: Operation | None = None) -> Any:
        """The run-time value of ``value`` in the running function."""
        try:
            return self.frames[-1].values[value]
        except (KeyError, IndexError):
            raise self._error(
                user, f"reads {describe_value(value)}, which has no value yet"
            ) from None

    def write(self, value: Value, runtime_value: Any) -> None:
        """Set the run-time value of ``value`` (rules that bind values themselves)."""
        self.frames[-1].values[value] = runtime_value

    def _error(self, op: Operation | None, message: str) -> InterpreterError:
        return op_error(op, message) if op is not None else InterpreterError(message)


__all__ = ["MAX_CALL_DEPTH", "Branch", "Exit", "Frame", "Interpreter", "Outcome", "Rule"]
