"""Python statements of a kernel: assignments, stores, augmented assignments, calls;
``if``, ``for`` and ``while`` go to ``control_flow.py``.

* ``x = expr`` names the value ``%x`` (a literal becomes an ``arith.constant``: ``i32``,
  ``f32`` or ``i1``); ``a, b, c, d = vload(...)`` unpacks a tuple;
* ``a[i, j] = expr`` is ``memref.store``, after converting the value to the array's
  element type (``arith.truncf``, ``arith.sitofp``...: the IR shows each conversion);
* ``x += expr`` rebinds ``x``; ``a[i] += expr`` loads, computes and stores;
* ``break``, ``continue``, and ``return`` other than ``if cond: return`` at the top
  level are errors that say what to write instead.

>>> sorted(UNSUPPORTED)[:3]
['Assert', 'AsyncFor', 'AsyncFunctionDef']
"""

from __future__ import annotations

import ast

from tinycomp.dialects import memref
from tinycomp.frontend.simt import markers
from tinycomp.frontend.simt.conversions import constant, convert, is_number_type, literal_type
from tinycomp.frontend.simt.expressions import OPERATORS, ShapeOf, array_indices, describe, number
from tinycomp.frontend.simt.generator import KernelGenerator
from tinycomp.frontend.simt.operators import OperatorError, binary
from tinycomp.ir.types import MemRefType
from tinycomp.ir.values import Value

__all__ = ["UNSUPPORTED", "assign", "store", "translate_statement"]

UNSUPPORTED = {
    "Assert": "`assert`", "AsyncFor": "`async for`", "AsyncFunctionDef": "`async def`",
    "AsyncWith": "`async with`", "ClassDef": "a class definition", "Delete": "`del`",
    "FunctionDef": "a nested function", "Global": "`global`", "Import": "`import`",
    "ImportFrom": "`import`", "Lambda": "`lambda`", "Match": "`match`",
    "Nonlocal": "`nonlocal`", "Raise": "`raise`", "Try": "`try`", "With": "`with`",
}  # fmt: skip
"""Statements a kernel may not contain, as the messages name them."""


def store(gen: KernelGenerator, target: ast.Subscript, value: object) -> None:
    """``target = value`` for ``target`` an element of an array."""
    array = gen.expression(target.value)
    if not (isinstance(array, Value) and isinstance(array.type, MemRefType)):
        raise gen.error(target, f"expected an array to store into, got {describe(array)}")
    indices = array_indices(gen, array, target.slice, target)
    element = array.type.element_type
    if isinstance(value, Value) and not is_number_type(value.type):
        raise gen.error(target, f"expected a {element} value to store, got {describe(value)}")
    if not isinstance(value, bool | int | float | Value):
        raise gen.error(target, f"expected a {element} value to store, got {describe(value)}")
    if not isinstance(value, Value):
        value = constant(gen.builder, value, literal_type(value, element))
    converted = convert(gen.builder, value, element)
    gen.builder.insert(memref.StoreOp.build(converted, array, indices))


def assign(gen: KernelGenerator, target: ast.expr, value: object, node: ast.stmt) -> None:
    """``target = value``: bind a name, unpack a tuple, or store to an array element."""
    if isinstance(target, ast.Name):
        if value is None:
            raise gen.error(node, f"the right-hand side gives no value to assign to '{target.id}'")
        if isinstance(value, bool | int | float):
            value = constant(gen.builder, value, literal_type(value))
            value.name_hint = target.id
        gen.bind(target.id, value, node)
        return
    if isinstance(target, ast.Tuple | ast.List):
        if not isinstance(value, tuple) or len(value) != len(target.elts):
            count = len(target.elts)
            raise gen.error(node, f"expected a tuple of {count} to unpack, got {describe(value)}")
        for element, part in zip(target.elts, value, strict=True):
            assign(gen, element, part, node)
        return
    if isinstance(target, ast.Subscript):
        store(gen, target, value)
        return
    if isinstance(target, ast.Attribute):
        base = gen.expression(target.value)
        if isinstance(base, markers.Dim3Marker):
            raise gen.error(node, f"cannot assign to {base.name}.{target.attr}: a thread index "
                            "is read-only")  # fmt: skip
        if isinstance(base, ShapeOf) or target.attr == "shape":
            raise gen.error(node, "cannot assign to an array's shape")
        raise gen.error(node, f"cannot assign to the attribute '.{target.attr}' in a kernel")
    raise gen.error(node, f"cannot assign to {ast.unparse(target)}")


def _augmented(gen: KernelGenerator, node: ast.AugAssign) -> None:
    op = OPERATORS[type(node.op)]
    target = node.target
    if isinstance(target, ast.Name):
        current = number(gen, target, f"a number in '{target.id} {op}='")
        assign(gen, target, _apply(gen, node, op, current, number(gen, node.value)), node)
        return
    if not isinstance(target, ast.Subscript):
        raise gen.error(node, f"cannot apply '{op}=' to {ast.unparse(target)}")
    array = gen.expression(target.value)
    if not (isinstance(array, Value) and isinstance(array.type, MemRefType)):
        raise gen.error(target, f"expected an array to update, got {describe(array)}")
    indices = array_indices(gen, array, target.slice, target)
    current = gen.builder.insert(memref.LoadOp.build(array, indices)).result
    result = _apply(gen, node, op, current, number(gen, node.value))
    converted = convert(gen.builder, result, array.type.element_type)
    gen.builder.insert(memref.StoreOp.build(converted, array, indices))


def _apply(gen: KernelGenerator, node: ast.AST, op: str, a: object, b: object) -> object:
    try:
        return binary(gen.builder, op, a, b)
    except OperatorError as error:
        raise gen.error(node, str(error)) from None


def _return(gen: KernelGenerator, node: ast.Return) -> None:
    if node.value is not None:
        raise gen.error(node, "a kernel returns no value (store results into an array)")
    if gen.depth == 0 and node is gen.source.function.body[-1]:
        return  # a `return` ending the kernel
    raise gen.error(node, "`return` is only supported as an early exit at the top level of "
                    "the kernel: `if cond: return`")  # fmt: skip


def _expression_statement(gen: KernelGenerator, node: ast.Expr) -> None:
    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return  # a docstring or a comment string
    gen.expression(node.value)


def _assign(gen: KernelGenerator, node: ast.Assign) -> None:
    value = gen.expression(node.value)
    for target in node.targets:
        assign(gen, target, value, node)


def _annotated(gen: KernelGenerator, node: ast.AnnAssign) -> None:
    if node.value is None:
        raise gen.error(node, "expected a value in the annotated assignment")
    assign(gen, node.target, gen.expression(node.value), node)


def _loop_exit(gen: KernelGenerator, node: ast.stmt) -> None:
    word = "break" if isinstance(node, ast.Break) else "continue"
    raise gen.error(node, f"`{word}` is not supported in a kernel (use a while loop with a flag)")


def translate_statement(gen: KernelGenerator, node: ast.stmt) -> None:
    """Translate one statement at the builder's insertion point."""
    from tinycomp.frontend.simt import control_flow

    handlers = {
        ast.Assign: _assign,
        ast.AugAssign: _augmented,
        ast.AnnAssign: _annotated,
        ast.Expr: _expression_statement,
        ast.Pass: lambda gen, node: None,
        ast.Break: _loop_exit,
        ast.Continue: _loop_exit,
        ast.Return: _return,
        ast.If: control_flow.translate_if,
        ast.For: control_flow.translate_for,
        ast.While: control_flow.translate_while,
    }
    handler = handlers.get(type(node))
    if handler is None:
        what = UNSUPPORTED.get(type(node).__name__, type(node).__name__)
        raise gen.error(node, f"{what} is not supported in a kernel")
    handler(gen, node)
