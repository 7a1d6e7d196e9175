"""The kernel graph of a tensor program: one node per linalg op, one edge per tensor.

A traced program (``tinycomp.trace``) is a function of ``linalg`` ops on tensors. Run
as it is, each linalg op is one *kernel*: a loop nest that reads whole tensors from
memory and writes a whole new one. The kernel graph shows the program at that level.
Each kernel is a box that says what kind of loop nest it is::

    %max = linalg.generic
    parallel×1, reduction×1 · 4×8
    payload: maximumf

(the iterator types, the trip counts of the loops, the ops of the payload). Each edge
is a tensor passed from one kernel to the next, labelled with its name, then its shape
and size in bytes (``4x8xf32 · 128 B``): what an unfused program writes to memory and
reads back. Kernels with a reduction are shaded yellow, ``linalg.fill`` (an init)
grey; the function's arguments are blue ellipses. Chapter 05 draws its own picture of
the program after fusion.

The algorithm:

1. Take the function (a module holding one, or the one called ``name``) and name its
   values as the printer does, so the picture and ``print_ir`` agree on ``%max``.
2. One node per argument, then one per op of the function body, in order, except
   ``tensor.empty`` (it has a shape, no data) and scalar constants (the payloads
   capture them). Reshapes (``tensor.collapse_shape``/``expand_shape``) move no data
   and are drawn as ellipses; ``tensor.pad`` copies its input into a larger tensor.
3. One edge per tensor operand whose producer has a node. An ``outs`` operand is drawn
   dashed, labelled ``init`` when the payload reads it (the kernel starts from its
   values: a reduction's init, matmul's accumulator) and ``outs`` when it only says
   where the result goes; an ``outs`` made by ``tensor.empty`` has no edge.

>>> from tinycomp.frontend import TensorSpec, trace
>>> m = trace(lambda x: x / x.sum(axis=-1, keepdims=True), TensorSpec((4, 8)))
>>> print(kernel_graph(m).text)
graph "kernels of @main: 3 linalg ops" (5 nodes, 5 edges)
  nodes:
    arg0    "%x: tensor<4x8xf32>"  shape=ellipse fill=#dcebf5
    op2     "%1 = linalg.fill\\nparallel×2 · 4×1\\npayload: copy"  color=#888888 fill=#eeeeee
    op3     "%sum = linalg.generic\\nparallel×1, reduction×1 · 4×8\\npayload: addf"  fill=#fdf0c8
    op5     "%div = linalg.generic\\nparallel×2 · 4×8\\npayload: divf"
    return  "func.return"  color=#D55E00 fill=#fbe2d0
  edges:
    arg0 -> op3  "%x\\n4x8xf32 · 128 B"
    op2 -> op3  "%1 (init)\\n4x1xf32 · 16 B"  style=dashed
    arg0 -> op5  "%x\\n4x8xf32 · 128 B"
    op3 -> op5  "%sum\\n4x1xf32 · 16 B"
    op5 -> return  "%div\\n4x8xf32 · 128 B"
"""

from __future__ import annotations

from tinycomp.ir.dialects.linalg_base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.type_helpers import byte_size
from tinycomp.ir.types import ShapedType, Type
from tinycomp.ir.values import Value
from tinycomp.viz.graph import Graph, GraphError

__all__ = ["iterator_summary", "kernel_graph", "payload_summary", "tensor_bytes"]

ARGUMENT_FILL = "#dcebf5"  # light blue, as in the def-use graph
REDUCTION_FILL = "#fdf0c8"  # light yellow (Okabe-Ito orange, lightened)
INIT_FILL, INIT_BORDER = "#eeeeee", "#888888"  # grey: linalg.fill
RETURN_FILL, RETURN_BORDER = "#fbe2d0", "#D55E00"  # light vermillion
NO_DATA_OPS = ("tensor.empty",)
"""Ops with a shape and no data: no node, no edge."""
RESHAPE_OPS = ("tensor.collapse_shape", "tensor.expand_shape")
"""Ops that change the shape of a tensor without moving its elements."""


def tensor_bytes(value_type: Type) -> int:
    """The bytes a tensor of ``value_type`` occupies (``i1`` elements take one byte each).

    >>> from tinycomp.ir import parse_type
    >>> tensor_bytes(parse_type("tensor<4x8xf32>")), tensor_bytes(parse_type("tensor<3xbf16>"))
    (128, 6)
    """
    if not isinstance(value_type, ShapedType):
        raise TypeError(f"expected a tensor or memref type, got {value_type}")
    size = byte_size(value_type)
    if size is None:
        raise ValueError(f"expected a static shape, got {value_type}")
    return size


def iterator_summary(op: StructuredOp) -> str:
    """The iterator types, counted: ``parallel×2, reduction×1`` (none: ``no loops``).

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda x: x.max(axis=0), TensorSpec((4, 8)))
    >>> iterator_summary([o for o in m.walk() if o.name == "linalg.generic"][0])
    'reduction×1, parallel×1'
    """
    kinds = op.iterator_types()
    counted = [f"{kind}×{kinds.count(kind)}" for kind in dict.fromkeys(kinds)]
    return ", ".join(counted) if counted else "no loops"


def payload_summary(op: StructuredOp) -> str:
    """The ops of the payload, without their dialect: ``mulf, addf``; ``copy`` when the
    payload only yields an element it read (``linalg.fill``, ``linalg.transpose``).

    >>> from tinycomp.frontend import TensorSpec, trace, exp
    >>> m = trace(lambda x: exp(-x), TensorSpec((4,)))
    >>> [payload_summary(o) for o in m.walk() if o.name == "linalg.generic"]
    ['negf', 'exp']
    """
    names = [nested.name.split(".", 1)[-1] for nested in op.body if nested.name != "linalg.yield"]
    return ", ".join(names) if names else "copy"


def kernel_graph(op: Operation, name: str | None = None, *, rankdir: str = "TB") -> Graph:
    """The kernel graph of the function in ``op`` (see the module docstring).

    ``op`` is a module holding one function, a ``func.func``, or a module and the
    ``name`` of one of its functions. Display the result in a notebook, or call
    ``.picture()`` for a :class:`~tinycomp.viz.Picture`.
    """
    function = _find_function(op, name)
    names = SSANames(naming_root(function), use_asm_names=True)
    ops = list(function.regions[0].entry_block)
    kernels = sum(isinstance(o, StructuredOp) for o in ops)
    graph = Graph(f"kernels of @{symbol_name(function)}: {_count(kernels)}", rankdir=rankdir)
    graph.attrs.update(nodesep="0.6", ranksep="0.45")
    node_of: dict[Value, str] = {}
    for position, argument in enumerate(function.regions[0].entry_block.arguments):  # step 2
        label = f"{names.value_name(argument)}: {argument.type}"
        node_of[argument] = graph.node(f"arg{position}", label, shape="ellipse", fill=ARGUMENT_FILL)
    drawn: list[tuple[Operation, str]] = []
    for position, nested in enumerate(ops):
        if nested.name in NO_DATA_OPS or _is_scalar_constant(nested):
            continue
        node_name, label, style = _node(nested, position, names)
        node = graph.node(node_name, label, **style)
        drawn.append((nested, node))
        for result in nested.results:
            node_of[result] = node
    for nested, node in drawn:  # step 3
        for position, value in enumerate(nested.operands):
            if value not in node_of or not isinstance(value.type, ShapedType):
                continue
            size = f"{_short_type(value.type)} · {tensor_bytes(value.type)} B"
            if isinstance(nested, StructuredOp) and position >= nested.num_inputs:
                role = "init" if nested.payload_reads(position) else "outs"
                label = f"{names.value_name(value)} ({role})\n{size}"
                graph.edge(node_of[value], node, label, style="dashed")
            else:
                graph.edge(node_of[value], node, f"{names.value_name(value)}\n{size}")
    return graph


def _node(op: Operation, position: int, names: SSANames) -> tuple[str, str, dict[str, str]]:
    """``(name, label)`` and the styling keywords of the node drawing ``op``."""
    title = op.name
    if op.results:
        title = f"{names.result_group_name(op)} = {op.name}"
    if op.is_terminator:
        return "return", title, {"color": RETURN_BORDER, "fill": RETURN_FILL}
    if isinstance(op, StructuredOp):
        sizes = "×".join("?" if s is None else str(s) for s in op.static_loop_sizes())
        label = f"{title}\n{iterator_summary(op)}" + (f" · {sizes}" if sizes else "")
        label += f"\npayload: {payload_summary(op)}"
        if op.name == "linalg.fill":
            return f"op{position}", label, {"color": INIT_BORDER, "fill": INIT_FILL}
        if op.reduction_dims():
            return f"op{position}", label, {"fill": REDUCTION_FILL}
        return f"op{position}", label, {}
    if op.name in RESHAPE_OPS:
        return f"op{position}", f"{title}\n(no data moved)", {"shape": "ellipse"}
    if op.name == "tensor.pad":
        return f"op{position}", f"{title}\n(a copy inside a border)", {}
    return f"op{position}", title, {}


def _find_function(op: Operation, name: str | None) -> Operation:
    """The ``func.func`` to draw (step 1)."""
    if op.name == "func.func" and name is None:
        return op
    candidates = [o for o in op.walk() if o.name == "func.func"]
    if name is not None:
        candidates = [o for o in candidates if symbol_name(o) == name]
    if len(candidates) != 1:
        found = [symbol_name(o) for o in op.walk() if o.name == "func.func"]
        wanted = f"a function @{name}" if name else "a module holding one function"
        raise GraphError(f"expected {wanted}, got functions {found} in '{op.name}'")
    return candidates[0]


def _is_scalar_constant(op: Operation) -> bool:
    return op.name == "arith.constant" and not isinstance(op.results[0].type, ShapedType)


def _short_type(value_type: ShapedType) -> str:
    """``4x8xf32`` for ``tensor<4x8xf32>`` (``f32`` for a 0-d tensor)."""
    return str(value_type).split("<", 1)[1].rstrip(">")


def _count(kernels: int) -> str:
    return "1 linalg op" if kernels == 1 else f"{kernels} linalg ops"
