"""Python expressions of a tile kernel, evaluated into kernel values.

``evaluate(generator, node)`` returns what the expression *is* in the kernel: a Python
number for compile-time arithmetic, a scalar ``Value``, a ``Tile`` or a ``Pointer``
(``values.py``), a module or builtin for names such as ``tile.load``. Operators go to
``arithmetic.binary``; calls to a ``Builtin`` run its implementation; ``x[:, None]``
adds a dimension; ``x.to(dtype)`` converts. Everything else (lambdas, comprehensions,
calls to plain Python functions, chained comparisons) is a ``KernelSyntaxError`` at its
line.

>>> import ast
>>> OPERATORS[ast.FloorDiv], COMPARISONS[ast.LtE]
('//', '<=')
"""

from __future__ import annotations

import ast
import inspect
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tinycomp.frontend.tile import arithmetic
from tinycomp.frontend.tile.builtin import Builtin
from tinycomp.frontend.tile.shaping import expand_dims
from tinycomp.frontend.tile.values import Pointer, Tile, kind_of
from tinycomp.ir.types import Type
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.generator import TileGenerator

__all__ = ["COMPARISONS", "OPERATORS", "evaluate"]

OPERATORS: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}  # fmt: skip
"""The binary operators a kernel may use, as ``arithmetic.binary`` names them."""

COMPARISONS: dict[type, str] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
}  # fmt: skip
"""The comparisons a kernel may use."""

_PYTHON_BUILTINS = {"min": min, "max": max, "int": int, "float": float, "bool": bool}
"""Python builtins a kernel may call: on compile-time constants (``float("inf")``);
``min(a, b)`` and ``max(a, b)`` also on scalars and tiles."""


@dataclass(frozen=True)
class Method:
    """A tile's method, looked up but not yet called: ``x.to``."""

    tile: object
    name: str


def evaluate(generator: TileGenerator, node: ast.expr) -> object:
    """The kernel value of the expression ``node`` (see the module docstring)."""
    generator.context.location = generator.source.location(node)
    handler = _HANDLERS.get(type(node))
    if handler is None:
        raise generator.error(
            node, f"{type(node).__name__} expressions are not supported in a tile kernel"
        )
    return handler(generator, node)


def _constant(generator: TileGenerator, node: ast.Constant) -> object:
    if not isinstance(node.value, (bool, int, float, str)) and node.value is not None:
        raise generator.error(node, f"expected a number, got the constant {node.value!r}")
    return node.value


def _name(generator: TileGenerator, node: ast.Name) -> object:
    return generator.lookup(node)


def _attribute(generator: TileGenerator, node: ast.Attribute) -> object:
    owner = evaluate(generator, node.value)
    if isinstance(owner, Tile):
        if node.attr == "to":
            return Method(owner, "to")
        if node.attr == "shape":
            return owner.shape
        if node.attr == "dtype":
            return owner.dtype
        raise generator.error(
            node,
            f"a tile has no attribute '{node.attr}' in a kernel "
            "(it has .to(dtype), .shape and .dtype)",
        )
    if isinstance(owner, Value) and node.attr == "to":
        return Method(owner, "to")
    if isinstance(owner, Pointer) and node.attr == "dtype":
        return owner.element_type
    if isinstance(owner, types.ModuleType):
        if not hasattr(owner, node.attr):
            raise generator.error(node, f"module '{owner.__name__}' has no '{node.attr}'")
        return getattr(owner, node.attr)
    raise generator.error(node, f"cannot read attribute '{node.attr}' of {kind_of(owner)}")


def _binary(generator: TileGenerator, node: ast.BinOp) -> object:
    op = OPERATORS.get(type(node.op))
    if op is None:
        raise generator.error(node, f"the operator {type(node.op).__name__} is not supported")
    lhs, rhs = evaluate(generator, node.left), evaluate(generator, node.right)
    generator.context.location = generator.source.location(node)
    return generator.attempt(node, lambda: arithmetic.binary(generator.context, op, lhs, rhs))


def _compare(generator: TileGenerator, node: ast.Compare) -> object:
    if len(node.ops) != 1:
        raise generator.error(
            node,
            "chained comparisons (a < b < c) are not supported; combine two comparisons with '&'",
        )
    op = COMPARISONS.get(type(node.ops[0]))
    if op is None:
        raise generator.error(node, f"the comparison {type(node.ops[0]).__name__} is not supported")
    lhs, rhs = evaluate(generator, node.left), evaluate(generator, node.comparators[0])
    generator.context.location = generator.source.location(node)
    return generator.attempt(node, lambda: arithmetic.binary(generator.context, op, lhs, rhs))


def _bool_op(generator: TileGenerator, node: ast.BoolOp) -> object:
    op = "&" if isinstance(node.op, ast.And) else "|"
    result = evaluate(generator, node.values[0])
    for value_node in node.values[1:]:
        rhs = evaluate(generator, value_node)
        result = generator.attempt(
            node, lambda lhs=result, rhs=rhs: arithmetic.binary(generator.context, op, lhs, rhs)
        )
    return result


def _unary(generator: TileGenerator, node: ast.UnaryOp) -> object:
    operand = evaluate(generator, node.operand)
    if isinstance(node.op, ast.UAdd):
        return operand
    if isinstance(node.op, ast.USub):
        return generator.attempt(node, lambda: arithmetic.unary(generator.context, "-", operand))
    if isinstance(node.op, ast.Not):
        return generator.attempt(node, lambda: arithmetic.unary(generator.context, "not", operand))
    raise generator.error(node, f"the operator {type(node.op).__name__} is not supported")


def _sequence(generator: TileGenerator, node: ast.Tuple | ast.List) -> tuple:
    return tuple(evaluate(generator, element) for element in node.elts)


def _subscript(generator: TileGenerator, node: ast.Subscript) -> object:
    value = evaluate(generator, node.value)
    entries = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if isinstance(value, tuple):
        index = evaluate(generator, node.slice)
        if not isinstance(index, int):
            raise generator.error(node, f"expected a compile-time int index, got {kind_of(index)}")
        return value[index]
    if not isinstance(value, Tile):
        raise generator.error(
            node, f"only tiles (x[:, None]) and tuples can be indexed, got {kind_of(value)}"
        )
    index: list[object] = []
    for entry in entries:
        if isinstance(entry, ast.Slice) and entry.lower is entry.upper is entry.step is None:
            index.append(slice(None))
        elif isinstance(entry, ast.Constant) and entry.value is None:
            index.append(None)
        else:
            raise generator.error(
                node,
                "a tile is indexed only with ':' and 'None' "
                "(x[:, None]); use tile.load for elements",
            )
    return generator.attempt(node, lambda: expand_dims(value, index))


def _call(generator: TileGenerator, node: ast.Call) -> object:
    callee = evaluate(generator, node.func)
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        raise generator.error(node, "*args and **kwargs are not supported in a kernel call")
    args = [evaluate(generator, a) for a in node.args]
    kwargs = {k.arg: evaluate(generator, k.value) for k in node.keywords}
    generator.context.location = generator.source.location(node)
    if isinstance(callee, Builtin):
        _check_call(generator, node, callee, args, kwargs)
        return generator.attempt(
            node, lambda: callee.implementation(generator.context, *args, **kwargs)
        )
    if isinstance(callee, Method):
        if len(args) != 1 or kwargs or not isinstance(args[0], Type):
            raise generator.error(node, "expected .to(dtype) with one dtype, e.g. tile.float32")
        return generator.attempt(
            node, lambda: arithmetic.convert(generator.context, callee.tile, args[0])
        )
    python = next((f for f in _PYTHON_BUILTINS.values() if f is callee), None)
    if python in (min, max) and len(args) == 2 and not kwargs:
        op = "minimum" if python is min else "maximum"
        return generator.attempt(
            node, lambda: arithmetic.binary(generator.context, op, args[0], args[1])
        )
    if python is not None:
        if not all(isinstance(a, (int, float, bool, str)) for a in (*args, *kwargs.values())):
            raise generator.error(
                node,
                f"{python.__name__}() takes compile-time constants "
                "in a kernel; use .to(dtype) to convert scalars and "
                "tiles",
            )
        return python(*args, **kwargs)
    name = getattr(callee, "__name__", kind_of(callee))
    raise generator.error(
        node,
        f"cannot call '{name}' in a tile kernel: only tile.* builtins, "
        "tile methods (.to) and min/max/int/float on numbers",
    )


def _check_call(
    generator: TileGenerator, node: ast.Call, callee: Builtin, args: list, kwargs: dict
) -> None:
    """An error at ``node`` unless the builtin takes these arguments (its first
    parameter, the context, is not the user's)."""
    signature = inspect.signature(callee.implementation)
    parameters = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
    shown = signature.replace(parameters=parameters[1:], return_annotation=signature.empty)
    try:
        shown.bind(*args, **kwargs)
    except TypeError as error:
        raise generator.error(node, f"tile.{callee.name}{shown}: {error}") from None


_HANDLERS = {
    ast.Constant: _constant, ast.Name: _name, ast.Attribute: _attribute, ast.BinOp: _binary,
    ast.Compare: _compare, ast.BoolOp: _bool_op, ast.UnaryOp: _unary, ast.Tuple: _sequence,
    ast.List: _sequence, ast.Subscript: _subscript, ast.Call: _call,
}  # fmt: skip
