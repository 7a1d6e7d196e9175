"""Python expressions of a kernel, as IR: names, literals, operators, loads, ``shape[k]``,
conditional expressions; calls go to ``intrinsics.py``.

An expression evaluates to an IR ``Value``, a literal (``2``, ``0.5``, a global
``TILE``), a tuple (a ``vload``'s lanes), or a compile-time object (``math``, a marker,
``a.shape``). A few choices:

* ``a[i, j]`` is ``memref.load`` with one ``index`` per axis (ints are cast);
  ``a.shape[k]`` is ``memref.dim`` (a constant for a shared or local array);
* ``x if c else y`` is an ``scf.if`` with one result: only the branch taken runs, so
  ``a[i] if i < n else 0.0`` never reads out of bounds;
* ``and``/``or`` give a ``bool`` (``i1``); they short-circuit (an ``scf.if``) when the
  right side reads memory or calls a function, and are ``arith.andi``/``ori`` of both
  sides otherwise; comparisons chain (``0 <= i < n``).

>>> OPERATORS[ast.FloorDiv], OPERATORS[ast.BitXor]
('//', '^')
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tinycomp.dialects import gpu, memref, scf
from tinycomp.frontend.simt import markers
from tinycomp.frontend.simt.conversions import (
    Operand,
    common_type,
    constant,
    convert,
    is_number_type,
    literal_type,
)
from tinycomp.frontend.simt.generator import KernelGenerator
from tinycomp.frontend.simt.operators import OperatorError, binary, truth, unary
from tinycomp.ir.block import Block
from tinycomp.ir.builder import InsertionPoint
from tinycomp.ir.region import Region
from tinycomp.ir.types import DYNAMIC, FloatType, MemRefType, Type, i1, index
from tinycomp.ir.values import Value

__all__ = [
    "OPERATORS", "ShapeOf", "in_block", "index_operand", "number", "to_index",
    "translate_expression",
]  # fmt: skip

OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
    ast.NotEq: "!=", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not",
}  # fmt: skip
"""Python's operator nodes and the symbols ``operators.py`` takes."""
ID_OPS = {"gpu.thread_id": gpu.ThreadIdOp, "gpu.block_id": gpu.BlockIdOp,
          "gpu.block_dim": gpu.BlockDimOp, "gpu.grid_dim": gpu.GridDimOp}  # fmt: skip


@dataclass(frozen=True)
class ShapeOf:
    """``a.shape`` for an array ``a``: subscripted, it gives ``memref.dim``."""

    array: Value


@contextmanager
def in_block(gen: KernelGenerator, block: Block) -> Iterator[None]:
    """Within the ``with``, insert at the end of ``block``."""
    saved = gen.builder.insertion_point
    gen.builder.insertion_point = InsertionPoint.at_end(block)
    try:
        yield
    finally:
        gen.builder.insertion_point = saved


def describe(value: object) -> str:
    """How a message names a binding: ``an f32 value``, ``the array memref<?xf32>``."""
    if isinstance(value, Value):
        if isinstance(value.type, MemRefType):
            return f"the array {value.type}"
        return f"a {value.type} value"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)}"
    if isinstance(value, ShapeOf):
        return "an array's shape"
    return repr(value)


def number(gen: KernelGenerator, node: ast.expr, what: str = "a number") -> Operand:
    """``node`` as an operand of arithmetic: a number-typed ``Value`` or a literal."""
    value = gen.expression(node)
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, Value) and is_number_type(value.type):
        return value
    raise gen.error(node, f"expected {what}, got {describe(value)}")


def index_operand(gen: KernelGenerator, node: ast.expr, what: str = "an index") -> Value:
    """``node`` as an ``index`` value (integers are cast; floats are an error)."""
    return to_index(gen, number(gen, node, what), node, what)


def to_index(gen: KernelGenerator, value: Operand, node: ast.expr, what: str) -> Value:
    """An operand of ``node`` as an ``index`` value (see ``index_operand``)."""
    with gen.at(node):
        if not isinstance(value, Value):
            if isinstance(value, float):
                raise gen.error(node, f"expected an integer for {what}, got {value!r}")
            return constant(gen.builder, value, index)
        if isinstance(value.type, FloatType):
            raise gen.error(node, f"expected an integer for {what}, got a {value.type} value")
        return convert(gen.builder, value, index)


def array_indices(gen: KernelGenerator, array: Value, node: ast.expr, where: ast.AST) -> list:
    """The ``index`` values of a subscript ``node`` (``i`` or ``i, j``) into ``array``."""
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    if any(isinstance(element, ast.Slice) for element in elements):
        raise gen.error(where, "slices are not supported in a kernel (index one element)")
    rank = array.type.rank
    if len(elements) != rank:
        raise gen.error(
            where, f"expected {rank} indices for the array {array.type}, got {len(elements)}"
        )
    return [index_operand(gen, element) for element in elements]


def _attribute(gen: KernelGenerator, node: ast.Attribute) -> object:
    base = gen.expression(node.value)
    if isinstance(base, Value):
        if isinstance(base.type, MemRefType) and node.attr == "shape":
            return ShapeOf(base)
        raise gen.error(node, f"'.{node.attr}' is not supported on {describe(base)}")
    if isinstance(base, bool | int | float | tuple | ShapeOf):
        raise gen.error(node, f"'.{node.attr}' is not supported on {describe(base)}")
    if not hasattr(base, node.attr):
        raise gen.error(node, f"unknown name '{node.attr}' in {base!r}")
    found = getattr(base, node.attr)
    if isinstance(found, markers.DimComponent):
        op_class = ID_OPS[found.marker.op_name]
        return gen.builder.insert(op_class.build(found.dimension)).result
    return found


def _subscript(gen: KernelGenerator, node: ast.Subscript) -> object:
    base = gen.expression(node.value)
    if isinstance(base, ShapeOf | tuple):
        position = gen.expression(node.slice)
        size = len(base) if isinstance(base, tuple) else base.array.type.rank
        if isinstance(position, bool) or not isinstance(position, int):
            raise gen.error(node, f"expected a constant position, got {describe(position)}")
        if not -size <= position < size:
            raise gen.error(node, f"expected a position in [0, {size}), got {position}")
        if isinstance(base, tuple):
            return base[position]
        axis = position % size
        static = base.array.type.shape[axis]
        if static is not DYNAMIC:
            return constant(gen.builder, static, index)
        axis_value = constant(gen.builder, axis, index)
        return gen.builder.insert(memref.DimOp.build(base.array, axis_value)).result
    if isinstance(base, Value) and isinstance(base.type, MemRefType):
        indices = array_indices(gen, base, node.slice, node)
        return gen.builder.insert(memref.LoadOp.build(base, indices)).result
    raise gen.error(node, f"expected an array to index, got {describe(base)}")


def _operator_error(gen: KernelGenerator, node: ast.AST, error: OperatorError) -> Exception:
    return gen.error(node, str(error))


def _binary(gen: KernelGenerator, node: ast.BinOp) -> Operand:
    left, right = number(gen, node.left), number(gen, node.right)
    try:
        return binary(gen.builder, OPERATORS[type(node.op)], left, right)
    except OperatorError as error:
        raise _operator_error(gen, node, error) from None


def _unary(gen: KernelGenerator, node: ast.UnaryOp) -> Operand:
    try:
        return unary(gen.builder, OPERATORS[type(node.op)], number(gen, node.operand))
    except OperatorError as error:
        raise _operator_error(gen, node, error) from None


def _compare(gen: KernelGenerator, node: ast.Compare) -> Operand:
    left = number(gen, node.left)
    result: Operand | None = None
    for op_node, right_node in zip(node.ops, node.comparators, strict=True):
        if type(op_node) not in OPERATORS:
            raise gen.error(node, f"'{type(op_node).__name__}' comparisons are not supported")
        right = number(gen, right_node)
        step = binary(gen.builder, OPERATORS[type(op_node)], left, right)
        result = step if result is None else binary(gen.builder, "&", result, step)
        left = right
    return result


def has_effects(node: ast.expr) -> bool:
    """Whether evaluating ``node`` may read memory or call something (then ``and`` and
    ``or`` short-circuit); ``a.shape[k]`` does neither.

    >>> has_effects(ast.parse("i < n and x[i] > 0").body[0].value)
    True
    >>> has_effects(ast.parse("i < a.shape[0]").body[0].value)
    False
    """
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            return True
        is_shape = isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute)
        if isinstance(sub, ast.Subscript) and not (is_shape and sub.value.attr == "shape"):
            return True
    return False


def branch_value(gen: KernelGenerator, cond: Value, then: ast.expr, other: ast.expr) -> Value:
    """``then if cond else other`` as an ``scf.if`` whose branches yield one value."""
    blocks, values = [Block(), Block()], []
    for block, node in zip(blocks, (then, other), strict=True):
        with in_block(gen, block):
            values.append(number(gen, node))
    typed = [v.type for v in values if isinstance(v, Value)]
    target: Type = typed[0] if typed else literal_type(values[0])
    for other_type in typed[1:]:
        target = common_type(target, other_type)
    if not typed and type(values[0]) is not type(values[1]):
        target = common_type(literal_type(values[0]), literal_type(values[1]))
    for block, value, node in zip(blocks, values, (then, other), strict=True):
        with in_block(gen, block), gen.at(node):
            if not isinstance(value, Value):
                value = constant(gen.builder, value, literal_type(value, target))
            gen.builder.insert(scf.YieldOp.build([convert(gen.builder, value, target)]))
    regions = [Region([block]) for block in blocks]
    return gen.builder.insert(scf.IfOp([cond], [target], {}, regions)).result


def _if_expression(gen: KernelGenerator, node: ast.IfExp) -> Operand:
    condition = truth(gen.builder, number(gen, node.test, "a condition"))
    if not isinstance(condition, Value):
        return number(gen, node.body if condition else node.orelse)
    return branch_value(gen, condition, node.body, node.orelse)


def _bool_operation(gen: KernelGenerator, node: ast.BoolOp) -> Operand:
    is_and = isinstance(node.op, ast.And)
    result = truth(gen.builder, number(gen, node.values[0], "a condition"))
    for right in node.values[1:]:
        if not isinstance(result, Value):  # a literal decides now
            if result is not is_and:
                return result
            result = truth(gen.builder, number(gen, right, "a condition"))
            continue
        if has_effects(right):
            then, other = (right, ast.Constant(False)) if is_and else (ast.Constant(True), right)
            ast.copy_location(then, right)
            ast.copy_location(other, right)
            result = branch_value(gen, result, then, other)
            continue
        operand = truth(gen.builder, number(gen, right, "a condition"))
        result = binary(gen.builder, "&" if is_and else "|", result, operand)
    if isinstance(result, Value) and result.type != i1:
        result = convert(gen.builder, result, i1)
    return result


def _constant(gen: KernelGenerator, node: ast.Constant) -> object:
    if isinstance(node.value, bool | int | float):
        return node.value
    raise gen.error(node, f"expected a number, got the constant {node.value!r}")


def _tuple(gen: KernelGenerator, node: ast.Tuple) -> tuple:
    return tuple(gen.expression(element) for element in node.elts)


def _call(gen: KernelGenerator, node: ast.Call) -> object:
    from tinycomp.frontend.simt.intrinsics import translate_call

    return translate_call(gen, node)


HANDLERS = {
    ast.Constant: _constant,
    ast.Name: lambda gen, node: gen.lookup(node.id, node),
    ast.Attribute: _attribute,
    ast.Subscript: _subscript,
    ast.BinOp: _binary,
    ast.UnaryOp: _unary,
    ast.Compare: _compare,
    ast.BoolOp: _bool_operation,
    ast.IfExp: _if_expression,
    ast.Tuple: _tuple,
    ast.Call: _call,
}
"""One translation function per kind of expression node."""


def translate_expression(gen: KernelGenerator, node: ast.expr) -> object:
    """The value of ``node`` (see the module docstring for what that can be)."""
    handler = HANDLERS.get(type(node))
    if handler is None:
        kind = type(node).__name__
        raise gen.error(node, f"{kind} expressions are not supported in a kernel")
    return handler(gen, node)
