"""Translating one tile kernel, Python AST to a ``func.func`` for ONE program instance.

``generate(source, fn, arguments, constexprs)`` builds the module of one launch
signature:

1. one function argument per array (``memref<?xT>``) and scalar (``i32``, ``f32``...)
   parameter, then the six grid arguments ``%program_id_x/y/z`` and
   ``%num_programs_x/y/z`` (``index``); a ``constexpr`` parameter is bound to its
   Python value and is no argument;
2. translate the body statement by statement (``statements``; loops and branches in
   ``control_flow.py``, expressions in ``expressions.py``), each op located at its
   Python line;
3. end with ``func.return``, drop the grid arguments the kernel never read (so the
   function takes exactly what it uses), and verify the module.

``TileGenerator`` holds what every handler needs: the builder (in the
``TileContext``), the *environment* (each Python variable's current kernel value) and
``error``/``attempt``, which turn a mistake into a ``KernelSyntaxError`` at its line.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

from tinycomp.dialects.func import FuncOp, ReturnOp
from tinycomp.frontend.simt.errors import KernelSource, KernelSyntaxError
from tinycomp.frontend.tensor import TraceError
from tinycomp.frontend.tile.arithmetic import binary
from tinycomp.frontend.tile.control_flow import translate_for, translate_if
from tinycomp.frontend.tile.expressions import OPERATORS, evaluate
from tinycomp.frontend.tile.memory_builtins import AXES
from tinycomp.frontend.tile.values import Pointer, Tile, TileContext, TileError, Undefined
from tinycomp.ir import Builder, ModuleOp, TypeAttr
from tinycomp.ir.types import FunctionType, MemRefType, Type, index
from tinycomp.ir.values import BlockArgument, Value

__all__ = ["GRID_ARGUMENTS", "TileGenerator", "generate"]

GRID_ARGUMENTS = tuple(f"{kind}_{axis}" for kind in ("program_id", "num_programs") for axis in AXES)
"""The trailing ``index`` arguments a kernel may use, in their order."""


class TileGenerator:
    """Translates one kernel's body (see the module docstring).

    >>> def k(x):
    ...     y = x + undefined_name
    >>> generator = TileGenerator(KernelSource.from_function(k), k, TileContext.scratch())
    >>> generator.env["x"] = 1
    >>> generator.statements(generator.source.function.body)
    Traceback (most recent call last):
    ...
    tinycomp.frontend.simt.errors.KernelSyntaxError: kernel 'k', <doctest ...>:2: name \
'undefined_name' is not defined
    ...
    """

    def __init__(self, source: KernelSource, fn: Callable, context: TileContext) -> None:
        self.source = source
        self.fn = fn
        self.context = context
        self.env: dict[str, object] = {}
        """Each kernel variable's current value (see ``values.py``)."""

    # -- errors ----------------------------------------------------------------------------
    def error(self, node: ast.AST | None, message: str) -> KernelSyntaxError:
        """A ``KernelSyntaxError`` at ``node``'s line, quoting it."""
        return self.source.error(node, message)

    def attempt(self, node: ast.AST, build: Callable[[], object]) -> object:
        """Run ``build``; a ``TileError`` (or the tensor frontend's ``TraceError``) it
        raises becomes a ``KernelSyntaxError`` at ``node``."""
        try:
            return build()
        except KernelSyntaxError:
            raise
        except (TileError, TraceError) as error:
            message = str(error).split("\n  at ")[0]
            raise self.error(node, message) from None

    # -- names -----------------------------------------------------------------------------
    def lookup(self, node: ast.Name) -> object:
        """The value of a name: a kernel variable, else a global of the kernel's module
        (``tile``, a constant), else one of the allowed Python builtins."""
        name = node.id
        if name in self.env:
            value = self.env[name]
            if isinstance(value, Undefined):
                raise self.error(node, f"variable '{name}' {value.reason}")
            return value
        closure = self._closure()
        if name in closure:
            return closure[name]
        if name in self.fn.__globals__:
            return self.fn.__globals__[name]
        if name in ("range", "min", "max", "int", "float", "bool"):
            return getattr(builtins, name)
        raise self.error(node, f"name '{name}' is not defined")

    def _closure(self) -> dict[str, object]:
        cells = self.fn.__closure__ or ()
        return {
            name: cell.cell_contents
            for name, cell in zip(self.fn.__code__.co_freevars, cells, strict=True)
        }

    # -- statements ------------------------------------------------------------------------
    def statements(self, body: list[ast.stmt]) -> None:
        """Translate a list of statements in order."""
        for position, statement in enumerate(body):
            if isinstance(statement, ast.Return):
                if (
                    statement.value is not None
                    or position != len(body) - 1
                    or (body is not self.source.function.body)
                ):
                    raise self.error(
                        statement,
                        "only a bare 'return' at the end of the "
                        "kernel is supported (a kernel stores its results)",
                    )
                continue
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        """Translate one statement."""
        self.context.location = self.source.location(node)
        if isinstance(node, ast.Assign):
            value = evaluate(self, node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, ast.AugAssign):
            op = OPERATORS.get(type(node.op))
            if op is None or not isinstance(node.target, ast.Name):
                raise self.error(node, "expected 'name op= value' with + - * / // % & | ^")
            current = self.lookup(ast.Name(node.target.id, ast.Load(), **_position(node)))
            value = evaluate(self, node.value)
            self.context.location = self.source.location(node)
            result = self.attempt(node, lambda: binary(self.context, op, current, value))
            self.env[node.target.id] = result
            _name_value(result, node.target.id)
        elif isinstance(node, ast.Expr):
            if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                evaluate(self, node.value)
        elif isinstance(node, ast.For):
            translate_for(self, node)
        elif isinstance(node, ast.If):
            translate_if(self, node)
        elif isinstance(node, ast.Pass):
            pass
        else:
            raise self.error(
                node,
                f"'{type(node).__name__}' statements are not supported in "
                "a tile kernel (use assignments, for-range loops and if)",
            )

    def assign(self, target: ast.expr, value: object) -> None:
        """Bind ``target`` (a name, or a tuple of names for a tuple value)."""
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            _name_value(value, target.id)
            return
        if isinstance(target, ast.Tuple) and isinstance(value, tuple):
            if len(target.elts) != len(value):
                raise self.error(
                    target, f"expected {len(target.elts)} values to unpack, got {len(value)}"
                )
            for element, item in zip(target.elts, value, strict=True):
                self.assign(element, item)
            return
        raise self.error(target, "expected a variable name (or a tuple of names) to assign to")


def _name_value(value: object, name: str) -> None:
    """Name the SSA value behind a kernel variable after it, so the IR reads like the
    kernel (``%offs``, ``%mask``; a pointer's offsets as ``%a_ptrs``); arguments keep
    their own names."""
    if isinstance(value, Pointer):
        value = value.offsets
    if isinstance(value, Tile):
        value = value.value
    if isinstance(value, Value) and not isinstance(value, BlockArgument):
        value.name_hint = name


def _position(node: ast.AST) -> dict[str, int]:
    return {"lineno": node.lineno, "col_offset": node.col_offset}


def generate(
    source: KernelSource,
    fn: Callable,
    argument_types: dict[str, Type],
    constexprs: dict[str, object],
) -> ModuleOp:
    """The verified module of the kernel for these argument types and constexpr values
    (parameter order is the function's).

    >>> from tinycomp.ir.types import i32
    >>> def noop(n, BLOCK):
    ...     m = n * BLOCK
    >>> module = generate(KernelSource.from_function(noop), noop, {"n": i32}, {"BLOCK": 4})
    >>> print(module.body.first_op.function_type)
    (i32) -> ()
    """
    names = [a.arg for a in source.function.args.args]
    runtime = [n for n in names if n in argument_types]
    inputs = [argument_types[n] for n in runtime] + [index] * len(GRID_ARGUMENTS)
    function = FuncOp.build(source.name, FunctionType(tuple(inputs), ()))
    entry = function.body.entry_block
    for argument, hint in zip(entry.arguments, [*runtime, *GRID_ARGUMENTS], strict=True):
        argument.name_hint = hint
    grid = dict(zip(GRID_ARGUMENTS, entry.arguments[len(runtime) :], strict=True))
    context = TileContext(Builder.at_end(entry), program_ids=grid)
    context.builder.location = source.location(source.function)
    generator = TileGenerator(source, fn, context)
    for name, argument in zip(runtime, entry.arguments, strict=False):
        is_array = isinstance(argument.type, MemRefType)
        generator.env[name] = Pointer(argument, None) if is_array else argument
    generator.env.update(constexprs)
    generator.statements(source.function.body)
    context.location = source.location(source.function)
    context.insert(ReturnOp.build([]))
    for position in reversed(range(len(runtime), len(entry.arguments))):
        if not entry.arguments[position].has_uses:
            entry.erase_argument(position)
    kept = tuple(a.type for a in entry.arguments)
    function.attributes["function_type"] = TypeAttr(FunctionType(kept, ()))
    module = ModuleOp.build([function])
    module.verify()
    return module
