"""The state of one kernel's translation, Python AST to gpu IR, and the entry point.

``generate_kernel(source, fn, types)`` builds ``gpu.module @kernels { gpu.func @name
... kernel }`` for one launch signature:

1. find the ``shared.array`` and ``local.array`` calls (``attributions.py``): they
   become the function's ``workgroup(...)`` and ``private(...)`` buffers;
2. build the ``gpu.func`` and bind each parameter name to its argument;
3. translate the body statement by statement (``statements.py``, ``control_flow.py``),
   each expression by ``expressions.py``, ``operators.py`` and ``intrinsics.py``; each op
   gets the ``Location`` of the Python node it came from;
4. end the body with ``gpu.return`` (and the early-exit block, if a ``return`` needed
   one), wrap it in a module and verify it.

``KernelGenerator`` holds what every handler needs: the builder, the *environment* (each
Python variable's current IR value), name resolution in the function's globals and
closure, and ``error``, which points at the source line.

>>> import numpy as np
>>> from tinycomp.frontend.simt.errors import KernelSource
>>> from tinycomp.frontend.simt.signature import argument_types
>>> def double(x):
...     x[0] = x[0] * 2.0
>>> types = argument_types("double", ["x"], [np.zeros(4, np.float32)])
>>> module = generate_kernel(KernelSource.from_function(double), double, types)
>>> [op.name for op in module.walk()][-4:]
['arith.mulf', 'arith.constant', 'memref.store', 'gpu.return']
"""

from __future__ import annotations

import ast
import builtins
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tinycomp.dialects import gpu
from tinycomp.frontend.simt.attributions import Attributions, find_attributions
from tinycomp.frontend.simt.errors import KernelSource, KernelSyntaxError
from tinycomp.frontend.simt.markers import DimComponent
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.types import FunctionType, Type
from tinycomp.ir.values import Value
from tinycomp.ir.verifier import verify

__all__ = ["ALLOWED_BUILTINS", "KernelGenerator", "Undefined", "generate_kernel"]

ALLOWED_BUILTINS = ("abs", "min", "max", "float", "int", "range", "len", "bool")
"""The Python builtins a kernel may call."""


@dataclass(frozen=True)
class Undefined:
    """A variable that has no value here: assigned in one branch only, or inside a loop."""

    reason: str
    """Why, for the message: ``"is assigned only in the 'if' branch"``."""


class KernelGenerator:
    """Translates one kernel's body; the handlers in the other modules take it first."""

    def __init__(self, source: KernelSource, fn: Callable, attributions: Attributions):
        self.source = source
        self.fn = fn
        self.attributions = attributions
        self.builder = Builder()
        self.env: dict[str, object] = {}
        """Each kernel variable's binding: an IR ``Value``, a literal, a tuple of them,
        an ``Undefined``, or a compile-time object (an array's ``shape``)."""
        self.exit_block: Block | None = None
        """The block of ``gpu.return`` that early exits branch to (made on demand)."""
        self.region_blocks: list[Block] = []
        """The gpu.func body's blocks, in order (early exits add more)."""
        self.depth = 0
        """How deeply nested in ``if``/``for``/``while`` the current statement is."""
        closure = inspect.getclosurevars(fn) if fn is not None else None
        self.nonlocals = dict(closure.nonlocals) if closure else {}
        self.globals = getattr(fn, "__globals__", {})

    # -- errors and locations --------------------------------------------------------------
    def error(self, node: ast.AST | None, message: str) -> KernelSyntaxError:
        """A ``KernelSyntaxError`` at ``node``, quoting its line."""
        return self.source.error(node, message)

    @contextmanager
    def at(self, node: ast.AST) -> Iterator[None]:
        """Ops inserted inside the ``with`` get ``node``'s location."""
        saved = self.builder.location
        self.builder.location = self.source.location(node)
        try:
            yield
        finally:
            self.builder.location = saved

    # -- names ---------------------------------------------------------------------------
    def lookup(self, name: str, node: ast.AST) -> object:
        """What ``name`` means at ``node``: a kernel variable, or a global, closure or
        builtin object (the markers, ``math``, ints like ``TILE``)."""
        if name in self.env:
            binding = self.env[name]
            if isinstance(binding, Undefined):
                raise self.error(node, f"variable '{name}' {binding.reason}")
            return binding
        if name in self.nonlocals:
            return self.nonlocals[name]
        if name in self.globals:
            return self.globals[name]
        if name in ALLOWED_BUILTINS:
            return getattr(builtins, name)
        if hasattr(builtins, name):
            raise self.error(
                node, f"the builtin '{name}' is not supported in a kernel (only "
                f"{', '.join(ALLOWED_BUILTINS)})",
            )  # fmt: skip
        raise self.error(node, f"unknown name '{name}'")

    def bind(self, name: str, value: object, node: ast.AST) -> None:
        """Make ``name`` mean ``value`` from here on; its IR value takes the name."""
        if isinstance(value, DimComponent):
            raise self.error(node, f"expected a value for '{name}', got {value!r}")
        if isinstance(value, Value) and value.name_hint is None:
            value.name_hint = name
        self.env[name] = value

    # -- statements ----------------------------------------------------------------------
    def statements(self, nodes: list[ast.stmt]) -> None:
        """Translate ``nodes`` in order at the builder's insertion point."""
        from tinycomp.frontend.simt.statements import translate_statement

        for node in nodes:
            with self.at(node):
                translate_statement(self, node)

    def expression(self, node: ast.expr) -> object:
        """Translate ``node``; see ``expressions.translate_expression``."""
        from tinycomp.frontend.simt.expressions import translate_expression

        with self.at(node):
            return translate_expression(self, node)


def generate_kernel(source: KernelSource, fn: Callable, types: list[Type]) -> ModuleOp:
    """The ``gpu.module`` of the kernel ``fn`` for parameters of ``types`` (steps 1-4)."""
    attributions = find_attributions(source, fn)
    func = gpu.GPUFuncOp.build(
        source.name,
        FunctionType(types, []),
        kernel=True,
        workgroup=attributions.workgroup_types,
        private=attributions.private_types,
    )
    func.location = source.location(source.function)
    generator = KernelGenerator(source, fn, attributions)
    entry = func.entry_block
    parameters = [argument.arg for argument in source.function.args.args]
    for name, argument in zip(parameters, func.arguments, strict=True):
        argument.name_hint = name
        generator.env[name] = argument
    attributions.bind(func)
    generator.builder.insertion_point = Builder.at_end(entry).insertion_point
    generator.region_blocks.append(entry)
    generator.statements(source.function.body)
    with generator.at(source.function.body[-1]):
        generator.builder.insert(gpu.ReturnOp.build())
    region = func.regions[0]
    for block in generator.region_blocks[1:]:
        region.append_block(block)
    if generator.exit_block is not None:
        region.append_block(generator.exit_block)
    container = gpu.GPUModuleOp.build("kernels")
    container.body.append(func)
    module = ModuleOp.build([container])
    try:
        verify(module)
    except VerifyError as error:
        raise KernelSyntaxError(
            f"kernel {source.name!r}: the generated IR does not verify: {error}", source.name
        ) from error
    return module
