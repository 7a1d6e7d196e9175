"""The trace an NPU kernel is recorded into, and the DSL's one error.

The Ascend-C-style DSL runs the kernel's Python function once per core kind (the cube
half and the vector half of a MIX kernel are traced apart, as Ascend's compiler builds
them apart); every DSL call the function makes appends npu ops at the trace's insertion
point, located at the caller's line. Python code around the calls (helper functions,
classes, ``range`` loops, arithmetic on Python ints) runs at trace time and leaves no
op: it is the kernel's compile time. ``npu.range`` loops and values that depend on the
block are recorded as ``scf`` and ``arith`` ops.

Constants go to the top of the function, once each, so the IR reads like the kernel.

>>> from tinycomp.ir import index
>>> trace = Trace.begin("k", [], kind="aiv", kernel_type="aiv")
>>> trace.constant(4, index) is trace.constant(4, index)
True
>>> trace.finish().entry_block.ops[0].name
'arith.constant'
"""

from __future__ import annotations

import linecache
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.func import FuncOp, ReturnOp
from tinycomp.frontend.simt.errors import display_file
from tinycomp.ir import Builder, FunctionType, InsertionPoint, Type
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.location import Location
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value

__all__ = ["NpuKernelError", "Trace", "current_trace"]

_DSL = (str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[2] / "npu"))
"""The DSL's own files: a kernel's line is the first frame outside them."""
_ACTIVE = threading.local()


class NpuKernelError(ValueError):
    """A kernel the DSL cannot record: names the kernel, the file and line, and quotes
    the line."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.location = location


def caller_location() -> tuple[Location | None, str]:
    """Where the kernel's code called the DSL (the first frame outside the package),
    and the text of that line."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_DSL) and "importlib" not in path:
            text = linecache.getline(path, frame.f_lineno).strip()
            return Location(display_file(path), frame.f_lineno, 1), text
        frame = frame.f_back
    return None, ""


class Trace:
    """One kernel function being recorded (module docstring)."""

    def __init__(self, name: str, func: FuncOp, kind: str, kernel_type: str) -> None:
        self.name = name
        self.func = func
        self.kind = kind
        """``"aic"`` or ``"aiv"``: the core this half runs on."""
        self.kernel_type = kernel_type
        self.builder = Builder.at_end(func.entry_block)
        self.constants: dict[tuple[Any, Type], Value] = {}
        self.last_constant: Operation | None = None
        self.carried: list[Any] = []
        """Objects with state carried through loops (queues): see ``npu.range``."""
        self.pipes: list[Any] = []
        self.finishers: list[Any] = []
        """Called when the body ends (queues drain their flags)."""

    @classmethod
    def begin(cls, name: str, inputs: Sequence[Type], *, kind: str, kernel_type: str) -> Trace:
        """A fresh function ``@name`` taking ``inputs``, made the active trace."""
        func = FuncOp.build(name, FunctionType(tuple(inputs), ()))
        func.attributes["npu.kernel_type"] = StringAttr(kernel_type)
        func.attributes["npu.core"] = StringAttr(kind)
        trace = cls(name, func, kind, kernel_type)
        _ACTIVE.trace = trace
        return trace

    def error(self, message: str) -> NpuKernelError:
        """A ``NpuKernelError`` at the kernel line that called the DSL."""
        location, text = caller_location()
        where = ""
        if location is not None:
            where = f", {location.file}:{location.line}"
        quoted = f"\n    {location.line} | {text}" if location is not None and text else ""
        return NpuKernelError(f"kernel '{self.name}'{where}: {message}{quoted}", location)

    def emit(self, op: Operation) -> Operation:
        """Insert ``op`` at the insertion point, located at the caller's line."""
        op.location = caller_location()[0]
        return self.builder.insert(op)

    def at_top(self, op: Operation) -> Operation:
        """Insert ``op`` at the top of the function, after the ops already there."""
        point = (
            InsertionPoint.after(self.last_constant)
            if self.last_constant is not None
            else InsertionPoint.at_start(self.func.entry_block)
        )
        op.location = caller_location()[0]
        with self.builder.at(point):
            self.builder.insert(op)
        self.last_constant = op
        return op

    def constant(self, value: Any, type: Type) -> Value:
        """An ``arith.constant`` at the top of the function (one per value and type)."""
        key = (value, type)
        if key not in self.constants:
            self.constants[key] = self.at_top(ConstantOp.build(value, type)).result
        return self.constants[key]

    def finish(self) -> FuncOp:
        """End the body (queues' last waits, ``return``); the function, no longer active."""
        for finisher in self.finishers:
            finisher()
        self.builder.insert(ReturnOp.build([]))
        _ACTIVE.trace = None
        return self.func


def current_trace() -> Trace:
    """The trace being recorded; an error outside a kernel."""
    trace = getattr(_ACTIVE, "trace", None)
    if trace is None:
        raise NpuKernelError(
            "this npu DSL call records into a kernel: call it inside an @npu.kernel "
            "function while it is being launched or specialised"
        )
    return trace
