"""The fusion graph: which ops end up in which kernel, and which tensors stop going to memory.

Before fusion every linalg op is a kernel of its own: it reads its operands from memory
and writes its result back. After fusion several ops share one kernel, and a tensor
passed between two ops of the same kernel is never written at all. This module draws
that, and counts the bytes. The algorithm:

1. Name the ops as the printer does (``%exp``, ``%3``) and list the tensors the
   function moves: each tensor a linalg op or ``func.return`` reads, with the op or
   argument that made it.
2. Fuse a copy with ``FusionPass`` itself, with the rule given and a listener that
   follows every replacement: each new op takes over the original ops its predecessors
   held.
3. A tensor whose producer and reader ended in one kernel is not written any more.
4. Draw one box per original op, saying what it computes, boxes of one fused kernel in
   one coloured frame (every frame its own colour); each tensor is a small ellipse with
   its shape and bytes, dashed and inside the frame when it is no longer written.

Bytes moved are ``tinycomp.perf.kernel_cost``'s compulsory traffic of each kernel; a
tensor's own size is its elements times ``ceil(bitwidth / 8)`` bytes each. Steps 1 and 4
are here; steps 2 and 3, fusing with a record, are ``fusion_record.py``; the byte
counts and bars are ``bytes_chart.py`` (both re-exported here).

>>> import numpy as np
>>> from tinycomp.frontend import exp, trace
>>> from tinycomp.perf import program_bytes
>>> m = trace(lambda a: exp(a) * 2.0, np.ones((4, 8), np.float32))
>>> program_bytes(m)  # exp: read 128 B, write 128 B; multiply: the same
512
>>> record = fuse_and_record(m)
>>> record.kernels, record.not_written, program_bytes(m)
({'%mul': ('%exp', '%mul')}, {'%exp': 128}, 256)
"""

from __future__ import annotations

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.types import ShapedType
from tinycomp.ir.values import Value
from tinycomp.passes.fusion import why_not_fusable
from tinycomp.perf.kernel_cost import program_bytes
from tinycomp.viz.bytes_chart import bytes_moved_chart, format_bytes, text_table
from tinycomp.viz.fusion_record import (
    FusionRecord,
    FusionRule,
    fuse_and_record,
    linalg_op_names,
    tensor_bytes,
)
from tinycomp.viz.graph import Graph, GraphError
from tinycomp.viz.graph_style import (
    CONSTANT,
    FUSED_TENSOR,
    INPUT,
    KERNEL_COLORS,
    OP,
    TENSOR,
    TERMINATOR,
)
from tinycomp.viz.kernel_graph import kernel_summary
from tinycomp.viz.palette import swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.render import render_svg

__all__ = [
    "FusionRecord",
    "FusionRule",
    "bytes_moved_chart",
    "format_bytes",
    "fuse_and_record",
    "fusion_graph",
]


# -- the picture ------------------------------------------------------------------------------
def fusion_graph(
    module: Operation,
    name: str | None = None,
    *,
    rule: FusionRule = why_not_fusable,
    renderer: str = "auto",
) -> Picture:
    """The fusion graph of function ``name`` (default: the only one) of ``module``, which
    is left unchanged: a copy is fused with ``rule``. The module docstring has the steps.

    >>> import numpy as np
    >>> from tinycomp.frontend import exp, trace
    >>> m = trace(lambda a: exp(a) * 2.0, np.ones((4, 8), np.float32))
    >>> print(fusion_graph(m, renderer="text"))
    fusion graph of @main: 2 kernels -> 1 kernel; bytes moved 512 B -> 256 B
      kernel  ops         bytes moved
      %mul    %exp, %mul  256 B
      tensor  type             bytes  from  to      memory
      %a      tensor<4x8xf32>  128 B  %a    %exp    read
      %exp    tensor<4x8xf32>  128 B  %exp  %mul    not written (fused)
      %mul    tensor<4x8xf32>  128 B  %mul  return  written
    """
    function = _find_function(module, name)
    for op in function.walk():
        for value in op.operands:
            if isinstance(value.type, ShapedType) and not value.type.has_static_shape:
                raise GraphError(
                    f"fusion_graph counts bytes, so it needs static shapes: '{op.name}' "
                    f"reads a value of type {value.type}"
                )
    copy = function.clone()
    drawing = _Drawing(copy)
    before = program_bytes(copy)
    record = fuse_and_record(copy, rule)
    title = (
        f"fusion graph of @{symbol_name(function)}: {record.kernels_before} kernels -> "
        f"{_count(len(record.kernels), 'kernel')}; bytes moved {format_bytes(before)} -> "
        f"{format_bytes(program_bytes(copy))}"
    )
    text = drawing.text(title, record)
    svg, _ = render_svg(drawing.graph(record, title).source, renderer, text=text)
    return Picture(text=text, svg=svg)


def _find_function(module: Operation, name: str | None) -> Operation:
    functions = [op for op in module.walk() if op.name == "func.func"]
    if module.name == "func.func":
        functions = [module]
    if name is not None:
        functions = [f for f in functions if symbol_name(f) == name]
    if len(functions) != 1:
        known = [symbol_name(op) for op in module.walk() if op.name == "func.func"]
        wanted = f"a function @{name}" if name else "exactly one function (or pass name=)"
        raise GraphError(f"fusion_graph: expected {wanted}, got functions {known}")
    return functions[0]


class _Drawing:
    """Step 1: the nodes (arguments, linalg ops, the return) and tensors of a function,
    taken before fusion."""

    def __init__(self, function: Operation) -> None:
        self.names = linalg_op_names(function)
        ssa = SSANames(function, use_asm_names=True)
        self.nodes: dict[str, str] = {}  # node name -> label
        self.arguments = [ssa.value_name(a) for a in function.regions[0].entry_block.arguments]
        for argument in self.arguments:
            self.nodes[argument] = argument
        self.kinds = {name: kernel_summary(op) for op, name in self.names.items()}
        self.fills = {name for name, kind in self.kinds.items() if kind == "fill"}
        for op_name, kind in self.kinds.items():
            self.nodes[op_name] = f"{op_name}\n{kind}"
        self.tensors: list[tuple[str, str, int, str, str]] = []  # value, type, bytes, from, to
        for op in function.walk():
            if isinstance(op, StructuredOp):
                read = [*op.inputs]
                read += [v for i, v in enumerate(op.outputs) if op.payload_reads(op.num_inputs + i)]
                reader = self.names[op]
            elif op.name == "func.return":
                read, reader = list(op.operands), "return"
            else:
                continue
            for value in dict.fromkeys(read):
                source = self._source(value, ssa)
                if source is not None and _has_static_shape(value):
                    row = (ssa.value_name(value), str(value.type), tensor_bytes(value))
                    self.tensors.append((*row, source, reader))
        if any(reader == "return" for *_, reader in self.tensors):
            self.nodes["return"] = "return"

    def _source(self, value: Value, ssa: SSANames) -> str | None:
        """The node that made ``value``: an argument or a linalg op (else not drawn)."""
        producer = value.defining_op()
        if producer is None:
            return ssa.value_name(value)
        return self.names.get(producer)

    def text(self, title: str, record: FusionRecord) -> str:
        """The text twin: kernels after fusion, then every tensor and where it lives."""
        kernel_rows = []
        for kernel, ops in record.kernels.items():
            kernel_rows.append([kernel, ", ".join(ops), format_bytes(record.kernel_bytes[kernel])])
        tensor_rows = []
        for value, value_type, size, source, reader in self.tensors:
            if value in record.not_written:
                where = "not written (fused)"
            elif reader == "return":
                where = "written"
            else:
                where = "read" if source not in self.names.values() else "written, read back"
            tensor_rows.append([value, value_type, format_bytes(size), source, reader, where])
        lines = [title]
        lines += text_table(["kernel", "ops", "bytes moved"], kernel_rows)
        lines += text_table(["tensor", "type", "bytes", "from", "to", "memory"], tensor_rows)
        return "\n".join(lines)

    def graph(self, record: FusionRecord, title: str) -> Graph:
        """Step 4: boxes, one coloured frame per fused kernel, tensors as small ellipses."""
        caption = title.removeprefix("fusion graph of ").replace("; ", "\n")
        caption += "\ndashed: a tensor no longer written (it stays inside its kernel)"
        graph = Graph(title, rankdir="TB", nodesep="0.15", ranksep="0.3")
        graph.attrs.update(label=caption, labelloc="t")
        kernel_of = {op: kernel for kernel, ops in record.kernels.items() for op in ops}
        fused = [kernel for kernel, ops in record.kernels.items() if len(ops) > 1]
        colors = dict(zip(fused, swatches(len(fused), KERNEL_COLORS), strict=True))
        clusters = {
            kernel: graph.cluster(
                kernel, f"kernel {kernel}: {self.kinds[kernel]}", color=colors[kernel].color
            )
            for kernel in fused
        }
        for node, label in self.nodes.items():
            if node in self.arguments:
                continue  # drawn as tensors below
            kernel = kernel_of.get(node)
            if node == "return":
                graph.node(node, label, **TERMINATOR.options())
            elif kernel in clusters:
                swatch = colors[kernel]
                graph.node(
                    node, label, color=swatch.color, fill=swatch.fill, cluster=clusters[kernel]
                )
            else:
                graph.node(node, label, **(CONSTANT if node in self.fills else OP).options())
        for value, value_type, size, source in self._values():
            tensor = f"tensor {value}"
            shape = f"{_short_type(value_type)} · {format_bytes(size)}"
            if value in self.arguments:
                graph.node(tensor, f"{value}\n{shape}", **INPUT.options())
                continue
            if value in record.not_written:
                home = clusters.get(kernel_of[source])
                label, style = f"{shape}\nnot written", FUSED_TENSOR
                graph.node(tensor, label, cluster=home, **style.options())
            else:
                graph.node(tensor, shape, **TENSOR.options())
            graph.edge(source, tensor)
        for value, _, _, _, reader in self.tensors:
            graph.edge(f"tensor {value}", reader)
        return graph

    def _values(self) -> list[tuple[str, str, int, str]]:
        """Each tensor once, in the order it is first read: name, type, bytes, maker."""
        seen: dict[str, tuple[str, str, int, str]] = {}
        for value, value_type, size, source, _ in self.tensors:
            seen.setdefault(value, (value, value_type, size, source))
        return list(seen.values())


def _has_static_shape(value: Value) -> bool:
    """A tensor or memref whose every size is known."""
    return isinstance(value.type, ShapedType) and value.type.has_static_shape


def _short_type(type_text: str) -> str:
    """``tensor<4x8xf32>`` -> ``4x8xf32``."""
    return type_text.removeprefix("tensor<").removesuffix(">")


def _count(number: int, noun: str) -> str:
    """``1 kernel``, ``2 kernels``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
