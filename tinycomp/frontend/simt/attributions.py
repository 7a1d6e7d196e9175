"""A kernel's ``shared.array`` and ``local.array`` calls, found before translation.

CUDA's ``__shared__`` and per-thread arrays have static shapes and live for the whole
kernel; MLIR writes them as the ``gpu.func``'s *attributions*, extra arguments of its
body after the parameters::

    gpu.func @transpose(...) workgroup(%tile : memref<32x33xf32, #gpu.address_space<workgroup>>)

So the function can be built only once every such call is known. ``find_attributions``
walks the kernel's AST for calls whose callee resolves (through the function's globals
and closure) to ``shared.array`` or ``local.array``, and evaluates their ``shape`` and
``dtype`` as compile-time constants: literals, global ints (``TILE``), ``+ - * //`` of
those, tuples, and dtype names (``gpu.float32``, ``np.float16``).

>>> from tinycomp.frontend.simt.errors import KernelSource
>>> from tinycomp.frontend.simt import markers
>>> TILE = 16
>>> def k(a):
...     tile = markers.shared.array((TILE, TILE + 1), markers.float32)
>>> found = find_attributions(KernelSource.from_function(k), k)
>>> [str(t) for t in found.workgroup_types]
['memref<16x17xf32, #gpu.address_space<workgroup>>']
"""

from __future__ import annotations

import ast
import builtins
import inspect
import operator
from collections.abc import Callable
from dataclasses import dataclass, field

from tinycomp.dialects.gpu import GPUFuncOp, address_space
from tinycomp.frontend.simt import markers
from tinycomp.frontend.simt.errors import KernelSource
from tinycomp.frontend.simt.signature import SUPPORTED, element_type_of
from tinycomp.ir.types import MemRefType, Type
from tinycomp.ir.values import Value

__all__ = ["Attributions", "compile_time_value", "find_attributions"]

_FOLDS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
          ast.FloorDiv: operator.floordiv}  # fmt: skip


class NotConstant(Exception):
    """The expression is not a compile-time constant."""


def compile_time_value(node: ast.expr, scope: dict[str, object]) -> object:
    """The value of ``node`` computed now, from literals and the names of ``scope``.

    >>> compile_time_value(ast.parse("(N, N * 2 + 1)", mode="eval").body, {"N": 4})
    (4, 9)
    """
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in scope:
            return scope[node.id]
        if hasattr(builtins, node.id):
            return getattr(builtins, node.id)
        raise NotConstant(node.id)
    if isinstance(node, ast.Attribute):
        base = compile_time_value(node.value, scope)
        if not hasattr(base, node.attr):
            raise NotConstant(node.attr)
        return getattr(base, node.attr)
    if isinstance(node, ast.Tuple | ast.List):
        return tuple(compile_time_value(element, scope) for element in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -compile_time_value(node.operand, scope)
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDS:
        left = compile_time_value(node.left, scope)
        right = compile_time_value(node.right, scope)
        return _FOLDS[type(node.op)](left, right)
    raise NotConstant(ast.unparse(node))


@dataclass
class Attributions:
    """The kernel's workgroup and private buffers, and which call makes which."""

    workgroup_types: list[Type] = field(default_factory=list)
    private_types: list[Type] = field(default_factory=list)
    calls: dict[int, tuple[str, int]] = field(default_factory=dict)
    """``id`` of each call node -> (``"workgroup"`` or ``"private"``, position)."""
    values: dict[str, tuple[Value, ...]] = field(default_factory=dict)

    def bind(self, func: GPUFuncOp) -> None:
        """Remember ``func``'s attribution arguments, once it is built."""
        self.values = {
            "workgroup": func.workgroup_attributions,
            "private": func.private_attributions,
        }

    def value_for(self, call: ast.Call) -> Value:
        """The buffer that ``call`` (one of the calls found) stands for."""
        space, position = self.calls[id(call)]
        return self.values[space][position]


def _array_type(source: KernelSource, call: ast.Call, scope: dict, space: str) -> MemRefType:
    what = "shared.array" if space == "workgroup" else "local.array"
    arguments = list(call.args) + [keyword.value for keyword in call.keywords]
    if len(arguments) != 2:
        raise source.error(call, f"expected {what}(shape, dtype), got {len(arguments)} arguments")
    try:
        shape = compile_time_value(arguments[0], scope)
        dtype = compile_time_value(arguments[1], scope)
    except (NotConstant, TypeError) as error:
        raise source.error(
            call, f"expected {what}'s shape and dtype to be constants, got '{error}'"
        ) from None
    shape = (shape,) if isinstance(shape, int) else shape
    if not (isinstance(shape, tuple) and shape and all(isinstance(s, int) for s in shape)):
        raise source.error(call, f"expected {what}'s shape to be ints, got {shape!r}")
    if any(size <= 0 for size in shape):
        raise source.error(call, f"expected {what}'s sizes to be positive, got {shape}")
    element = element_type_of(dtype)
    if element is None:
        raise source.error(call, f"expected {what}'s dtype to be one of {SUPPORTED}, got {dtype!r}")
    return MemRefType(shape, element, memory_space=address_space(space))


def find_attributions(source: KernelSource, fn: Callable | None) -> Attributions:
    """Every ``shared.array``/``local.array`` call of the kernel (outer statements first)."""
    scope: dict[str, object] = dict(getattr(fn, "__globals__", {}))
    if fn is not None:
        scope.update(inspect.getclosurevars(fn).nonlocals)
    found = Attributions()
    for node in ast.walk(source.function):
        if not isinstance(node, ast.Call):
            continue
        try:
            callee = compile_time_value(node.func, scope)
        except (NotConstant, TypeError):
            continue
        for space, namespace, types in (
            ("workgroup", markers.shared, found.workgroup_types),
            ("private", markers.local, found.private_types),
        ):
            if callee is namespace.array:
                found.calls[id(node)] = (space, len(types))
                types.append(_array_type(source, node, scope, space))
    return found
