"""Views and aliasing: which memrefs may share memory (MLIR's ``ViewLikeOpInterface``).

A view op (``memref.subview``, ``cast``, ``collapse_shape``...) makes no copy: its
result is another window on the memory of one operand, which its class names with
``view_source`` (``view_source = 0``). A store through the view writes the source's
memory, so the alias questions follow views back to the buffer they came from.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%a: memref<8xf32>) {
...   %v = memref.subview %a[2] [4] [1]
...       : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
...   return }''')
>>> view = m.body.first_op.entry_block.first_op
>>> viewed_operand(view) is m.body.first_op.arguments[0], "memref.subview" in MEMREF_VIEW_OPS
(True, True)
"""

from __future__ import annotations

from tinycomp.ir.op_traits import DeclaredNames
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import BlockArgument, OpResult, Value

__all__ = ["MEMREF_VIEW_OPS", "may_alias", "underlying_buffer", "viewed_operand"]

MEMREF_VIEW_OPS = DeclaredNames(
    lambda op_class: op_class.view_source is not None, "ops whose result views an operand"
)
"""The names of the registered ops whose result views the memory of an operand (read
from each class's ``view_source``; ``"memref.subview" in MEMREF_VIEW_OPS``)."""


def viewed_operand(op: Operation) -> Value | None:
    """The operand whose memory ``op``'s result views, or ``None`` when ``op`` is no view.

    >>> from tinycomp.ir import Operation
    >>> viewed_operand(Operation.create("test.op")) is None
    True
    """
    source = op.view_source
    if source is None or source >= len(op.operands):
        return None
    return op.operands[source]


def underlying_buffer(value: Value) -> Value:
    """The buffer a memref value views: follow view ops (``subview``, ``cast``,
    ``collapse_shape``...) back to an allocation, an argument or a ``get_global``.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<8xf32>) {
    ...   %v = memref.subview %a[2] [4] [1]
    ...       : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
    ...   return }''')
    >>> f = m.body.first_op
    >>> underlying_buffer(f.entry_block.first_op.result) is f.arguments[0]
    True
    """
    while True:
        op = value.defining_op()
        source = viewed_operand(op) if op is not None else None
        if source is None:
            return value
        value = source


def may_alias(a: Value, b: Value) -> bool:
    """Whether memrefs ``a`` and ``b`` may share memory. Two views of one buffer may;
    a fresh allocation never aliases another allocation or an argument; two function
    arguments may (the caller can pass the same array twice).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
    ...   %n = memref.alloc() : memref<4xf32>
    ...   return }''')
    >>> f = m.body.first_op
    >>> a, b = f.arguments
    >>> new = f.entry_block.first_op.result
    >>> may_alias(a, b), may_alias(a, new), may_alias(new, new)
    (True, False, True)
    """
    root_a, root_b = underlying_buffer(a), underlying_buffer(b)
    if root_a is root_b:
        return True
    if _is_allocation(root_a) or _is_allocation(root_b):
        return False
    if isinstance(root_a, BlockArgument) and isinstance(root_b, BlockArgument):
        return True
    globals_ = [root.defining_op() for root in (root_a, root_b)]
    if all(g is not None and g.name == "memref.get_global" for g in globals_):
        return globals_[0].attributes.get("name") == globals_[1].attributes.get("name")
    return True  # anything else: we cannot tell, so assume they may


def _is_allocation(value: Value) -> bool:
    """The op defining ``value`` declares that it allocates it (``memref.alloc``)."""
    if not isinstance(value, OpResult):
        return False
    effects = value.op.get_effects() or []
    return any(effect.kind == "allocate" and effect.value is value for effect in effects)
