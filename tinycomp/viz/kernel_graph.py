"""The kernel graph of a tensor program: kernels, and the tensors they pass through memory.

A traced program (``tinycomp.trace``) is a function of ``linalg`` ops on tensors. Run
as it is, each linalg op is one *kernel*: a loop nest that reads whole tensors from
memory and writes a whole new one. The kernel graph shows the program at that level.
Each kernel is a box that says what kind of loop nest it is::

    %max = linalg.generic
    parallel×1, reduction×1 · 4×8
    payload: maximumf

(the iterator types, the trip counts of the loops, the ops of the payload). Each tensor
is a small ellipse of its own with its shape and size in bytes (``4x8xf32 · 128 B``):
what an unfused program writes to memory and reads back. Arrows run from the kernel
that writes a tensor to the tensor, and from the tensor to each kernel that reads it.
Kernels with a reduction are shaded yellow, ``linalg.fill`` (an init) grey; the
function's arguments are blue ellipses (``tinycomp.viz.graph_style``). Chapter 05 draws
its own picture of the program after fusion.

The algorithm:

1. Take the function (a module holding one, or the one called ``name``) and name its
   values as the printer does, so the picture and ``print_ir`` agree on ``%max``.
2. One tensor node per argument, then one box per op of the function body, in order,
   except ``tensor.empty`` (it has a shape, no data) and scalar constants (the payloads
   capture them), each followed by a tensor node per tensor result. Reshapes
   (``tensor.collapse_shape``/``expand_shape``) move no data and are drawn rounded;
   ``tensor.pad`` copies its input into a larger tensor.
3. One edge per tensor operand whose tensor has a node. An ``outs`` operand is drawn
   dashed, labelled ``init`` when the payload reads it (the kernel starts from its
   values: a reduction's init, matmul's accumulator) and ``outs`` when it only says
   where the result goes; an ``outs`` made by ``tensor.empty`` has no edge.

>>> from tinycomp.frontend import TensorSpec, trace
>>> m = trace(lambda x: x / x.sum(axis=-1, keepdims=True), TensorSpec((4, 8)))
>>> print(kernel_graph(m).text)
graph "kernels of @main: 3 linalg ops" (8 nodes, 8 edges)
  nodes:
    arg0    "%x\\n4x8xf32 · 128 B"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op2     "%1 = linalg.fill\\nparallel×2 · 4×1\\npayload: copy"  color=#888888 fill=#eeeeee
    op2.r0  "4x1xf32 · 16 B"  shape=ellipse color=#777777
    op3     "%sum = linalg.generic\\nparallel×1, reduction×1 · 4×8\\npayload: addf"  fill=#fdf0c8
    op3.r0  "4x1xf32 · 16 B"  shape=ellipse color=#777777
    op5     "%div = linalg.generic\\nparallel×2 · 4×8\\npayload: divf"
    op5.r0  "4x8xf32 · 128 B"  shape=ellipse color=#777777
    return  "func.return"  color=#D55E00 fill=#fbe2d0
  edges:
    op2 -> op2.r0
    arg0 -> op3
    op2.r0 -> op3  "init"  style=dashed
    op3 -> op3.r0
    arg0 -> op5
    op3.r0 -> op5
    op5 -> op5.r0
    op5.r0 -> return
"""

from __future__ import annotations

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.type_helpers import byte_size
from tinycomp.ir.types import ShapedType, Type
from tinycomp.ir.values import Value
from tinycomp.viz.graph import Graph, GraphError
from tinycomp.viz.graph_style import CONSTANT, INPUT, REDUCTION, TENSOR, TERMINATOR

__all__ = [
    "iterator_summary",
    "kernel_graph",
    "kernel_summary",
    "payload_summary",
    "tensor_bytes",
    "tensor_label",
]

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


def tensor_label(value_type: Type) -> str:
    """A tensor's shape and size: ``4x8xf32 · 128 B`` (``? B`` for a dynamic shape).

    >>> from tinycomp.ir import parse_type
    >>> tensor_label(parse_type("tensor<4x8xf32>")), tensor_label(parse_type("tensor<?xf16>"))
    ('4x8xf32 · 128 B', '?xf16 · ? B')
    """
    size = byte_size(value_type) if isinstance(value_type, ShapedType) else None
    return f"{_short_type(value_type)} · {'?' if size is None else size} B"


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


_REDUCTIONS = {"addf": "sum", "addi": "sum", "maximumf": "max", "maxnumf": "max",
               "minimumf": "min", "minnumf": "min", "mulf": "product"}  # fmt: skip


_KINDS = ("fill", "copy", "transpose", "broadcast", "matmul")
"""Summaries that say more than a generic's payload line (``payload: copy``)."""


def kernel_summary(op: StructuredOp) -> str:
    """What a kernel computes, in a word or a few: ``fill``, ``transpose``, ``matmul``,
    ``sum``, ``max``, or the payload's ops for an elementwise kernel (``subf, exp``).

    A named op says its name (``linalg.batch_matmul``: ``batch_matmul``); a generic is
    read from its payload, maps and iterators, so the same op has the same summary before
    and after ``linalg-generalize-named-ops``, except that a batched matmul is ``matmul``.

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> from tinycomp.passes import GeneralizePass
    >>> m = trace(lambda a, b: (a @ b).T.sum(axis=0), TensorSpec((2, 3)), TensorSpec((3, 4)))
    >>> [kernel_summary(o) for o in m.walk() if isinstance(o, StructuredOp)]
    ['fill', 'matmul', 'transpose', 'fill', 'sum']
    >>> GeneralizePass().run(m)
    >>> [kernel_summary(o) for o in m.walk() if isinstance(o, StructuredOp)]
    ['fill', 'matmul', 'transpose', 'fill', 'sum']
    """
    if op.name != "linalg.generic":
        return op.name.removeprefix("linalg.")
    steps = [nested.name.split(".", 1)[-1] for nested in op.body if not nested.is_terminator]
    maps = op.indexing_maps()
    if not steps:
        shaped = [i for i, v in enumerate(op.inputs) if isinstance(v.type, ShapedType)]
        if not shaped:
            return "fill"
        first = maps[shaped[0]]
        if first == maps[-1]:
            return "copy"
        return "transpose" if first.is_permutation() else "broadcast"
    if op.reduction_dims():
        if steps == ["mulf", "addf"] and op.num_inputs == 2:
            return "matmul"
        if len(steps) == 1 and steps[0] in _REDUCTIONS:
            return _REDUCTIONS[steps[0]]
        return ", ".join(steps[:4]) + (", ..." if len(steps) > 4 else "") + " (reduction)"
    return ", ".join(steps[:4]) + (", ..." if len(steps) > 4 else "")


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
    graph.attrs.update(nodesep="0.3", ranksep="0.3")
    node_of: dict[Value, str] = {}
    for position, argument in enumerate(function.regions[0].entry_block.arguments):  # step 2
        label = f"{names.value_name(argument)}\n{tensor_label(argument.type)}"
        if not isinstance(argument.type, ShapedType):
            label = f"{names.value_name(argument)}: {argument.type}"
        node_of[argument] = graph.node(f"arg{position}", label, **INPUT.options())
    drawn: list[tuple[Operation, str]] = []
    for position, nested in enumerate(ops):
        if nested.name in NO_DATA_OPS or _is_scalar_constant(nested):
            continue
        node_name, label, style = _node(nested, position, names)
        drawn.append((nested, graph.node(node_name, label, **style)))
        for result in nested.results:
            if isinstance(result.type, ShapedType):
                tensor = f"{node_name}.r{result.index}"
                node_of[result] = graph.node(tensor, tensor_label(result.type), **TENSOR.options())
    for nested, node in drawn:  # step 3: what each kernel reads, then what it writes
        for position, value in enumerate(nested.operands):
            if value not in node_of or not isinstance(value.type, ShapedType):
                continue
            if isinstance(nested, StructuredOp) and position >= nested.num_inputs:
                role = "init" if nested.payload_reads(position) else "outs"
                graph.edge(node_of[value], node, role, style="dashed")
            else:
                graph.edge(node_of[value], node)
        for result in nested.results:
            if result in node_of:
                graph.edge(node, node_of[result])
    return graph


def _node(op: Operation, position: int, names: SSANames) -> tuple[str, str, dict[str, object]]:
    """``(name, label)`` and the styling keywords of the node drawing ``op``."""
    title = op.name
    if op.results:
        title = f"{names.result_group_name(op)} = {op.name}"
    if op.is_terminator:
        return "return", title, TERMINATOR.options()
    if isinstance(op, StructuredOp):
        kind = kernel_summary(op)
        if op.name == "linalg.generic" and kind in _KINDS:
            title += f" ({kind})"  # what a generic computes, when it has a name
        sizes = "×".join("?" if s is None else str(s) for s in op.static_loop_sizes())
        label = f"{title}\n{iterator_summary(op)}" + (f" · {sizes}" if sizes else "")
        label += f"\npayload: {payload_summary(op)}"
        if op.name == "linalg.fill":
            return f"op{position}", label, CONSTANT.options()
        if op.reduction_dims():
            return f"op{position}", label, REDUCTION.options()
        return f"op{position}", label, {}
    if op.name in RESHAPE_OPS:
        return f"op{position}", f"{title}\n(no data moved)", {"outline": "rounded"}
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


def _short_type(value_type: Type) -> str:
    """``4x8xf32`` for ``tensor<4x8xf32>`` (``f32`` for a 0-d tensor)."""
    return str(value_type).split("<", 1)[1].rstrip(">")


def _count(kernels: int) -> str:
    return "1 linalg op" if kernels == 1 else f"{kernels} linalg ops"
