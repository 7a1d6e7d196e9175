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
tensor's own size is its elements times ``ceil(bitwidth / 8)`` bytes each.

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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.type_helpers import byte_size
from tinycomp.ir.types import ShapedType
from tinycomp.ir.values import Value
from tinycomp.passes.fusion import FusionPass, why_not_fusable
from tinycomp.perf.kernel_cost import kernel_cost, program_bytes
from tinycomp.rewrite.rewriter import PatternRewriter, RewriteListener
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
from tinycomp.viz.plots import figure_to_picture, house_style, new_figure
from tinycomp.viz.render import render_svg

__all__ = [
    "FusionRecord",
    "FusionRule",
    "bytes_moved_chart",
    "format_bytes",
    "fuse_and_record",
    "fusion_graph",
]

FusionRule = Callable[[GenericOp, GenericOp, int], "str | None"]
"""``rule(producer, consumer, operand_index)``: why the pair may not fuse, or ``None``
(``why_not_fusable``'s signature; MLIR's pass takes a ``ControlFusionFn`` likewise)."""


def format_bytes(count: int) -> str:
    """``128 B``, ``1.5 KiB``, ``2 MiB``.

    >>> format_bytes(96), format_bytes(1536), format_bytes(3 << 20)
    ('96 B', '1.5 KiB', '3 MiB')
    """
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.4g} {unit}"
    return f"{count} B"


# -- fusing, and remembering who went where ------------------------------------------------
@dataclass(frozen=True)
class FusionRecord:
    """What ``fuse_and_record`` did, by the names the ops had before fusion."""

    kernels: dict[str, tuple[str, ...]]
    """Each kernel left, by the name of the op that holds it (the last consumer), with the
    original ops it computes, in program order."""
    not_written: dict[str, int]
    """Each tensor no longer materialized, with its size in bytes (0 if dynamic)."""
    reasons: tuple[str, ...]
    """The pairs left unfused, ``'%a -> %b: reason'``, as in ``FusionPass.report``."""
    kernels_before: int
    """Linalg ops before fusion."""
    kernel_bytes: dict[str, int | None]
    """Each kernel's compulsory traffic after fusion (same keys as ``kernels``); ``None``
    when its loop sizes are not all static."""


def fuse_and_record(root: Operation, rule: FusionRule = why_not_fusable) -> FusionRecord:
    """Fuse ``root`` in place with ``FusionPass`` (step 2 of the module docstring), with
    ``rule`` deciding which producer-consumer pairs may fuse, and record who went where.

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> record = fuse_and_record(trace(softmax, TensorSpec((2, 4))))
    >>> record.kernels["%exp"], record.not_written
    (('%sub', '%exp'), {'%sub': 32})
    """
    names = _op_names(root)
    fusion = _RecordingFusion(rule, names)
    fusion.run(root)
    members = fusion.tracker.members
    kernels, kernel_bytes = {}, {}
    for op in root.walk():
        if isinstance(op, StructuredOp):
            held = members.get(op, [op])
            kernels[names[held[-1]]] = tuple(names[member] for member in held)
            static = None not in op.static_loop_sizes()
            kernel_bytes[names[held[-1]]] = int(kernel_cost(op).bytes) if static else None
    return FusionRecord(kernels, fusion.not_written, tuple(fusion.report), len(names), kernel_bytes)


class _ReplacementTracker(RewriteListener):
    """Hands the original ops an op holds over to the op that replaces it."""

    def __init__(self, members: dict[Operation, list[Operation]]) -> None:
        self.members = members

    def notify_op_replaced(self, op: Operation, new_values: Sequence[Value]) -> None:
        if op in self.members and new_values:
            self.members[new_values[0].defining_op()] = self.members.pop(op)


class _RecordingFusion(FusionPass):
    """``FusionPass`` that also notes, at each fusion, which original ops the fused op
    computes and which tensor stopped being written."""

    def __init__(self, rule: FusionRule, names: dict[Operation, str]) -> None:
        self.names = names
        self.order = {op: number for number, op in enumerate(names)}
        self.tracker = _ReplacementTracker({op: [op] for op in names})
        self.not_written: dict[str, int] = {}
        super().__init__(rule=rule, listener=self.tracker)

    def fuse_pair(
        self, producer: GenericOp, consumer: GenericOp, index: int, rewriter: PatternRewriter
    ) -> GenericOp:
        held = self.tracker.members.pop(producer)  # in program order: its result is the last's
        self.not_written[self.names[held[-1]]] = _tensor_bytes(consumer.operands[index])
        fused = super().fuse_pair(producer, consumer, index, rewriter)
        members = self.tracker.members
        members[fused] = sorted(members[fused] + held, key=self.order.__getitem__)
        return fused


def _hint(value: Value) -> str:
    """FusionPass's way to name a value in its report."""
    return f"%{value.name_hint}" if value.name_hint else f"<{value.type}>"


def _op_names(root: Operation) -> dict[Operation, str]:
    """Every linalg op under ``root``, in walk order, with its printed result name."""
    names: dict[Operation, str] = {}
    functions = [op for op in root.walk() if op.name == "func.func"] or [root]
    for function in functions:
        ssa = SSANames(function, use_asm_names=True)
        for op in function.walk():
            if isinstance(op, StructuredOp):
                names[op] = ssa.value_name(op.results[0]) if op.results else f"<{op.name}>"
    return names


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
        self.names = _op_names(function)
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
                    row = (ssa.value_name(value), str(value.type), _tensor_bytes(value))
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
        lines += _table(["kernel", "ops", "bytes moved"], kernel_rows)
        lines += _table(["tensor", "type", "bytes", "from", "to", "memory"], tensor_rows)
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


def _tensor_bytes(value: Value) -> int:
    """The size of a tensor value in bytes; 0 when its shape is dynamic (as FusionPass)."""
    return (byte_size(value.type) or 0) if isinstance(value.type, ShapedType) else 0


def _has_static_shape(value: Value) -> bool:
    """A tensor or memref whose every size is known."""
    return isinstance(value.type, ShapedType) and value.type.has_static_shape


def _short_type(type_text: str) -> str:
    """``tensor<4x8xf32>`` -> ``4x8xf32``."""
    return type_text.removeprefix("tensor<").removesuffix(">")


def _count(number: int, noun: str) -> str:
    """``1 kernel``, ``2 kernels``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned columns, two spaces apart, indented by two."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


# -- bytes before and after, as bars --------------------------------------------------------------
def bytes_moved_chart(
    bytes_by_program: Mapping[str, Mapping[str, int]], *, title: str | None = None
) -> Picture:
    """Grouped bars: for each program, bytes moved in each setting (``"unfused"``, ...),
    in KiB, or in MiB when some program moves 1 MiB or more. The text twin is the table.

    >>> print(bytes_moved_chart({"softmax": {"unfused": 2048, "fused": 1024}}).text)
    bytes moved (KiB)
      program  unfused  fused
      softmax  2        1
    """
    programs = list(bytes_by_program)
    settings = list(dict.fromkeys(s for row in bytes_by_program.values() for s in row))
    largest = max((v for row in bytes_by_program.values() for v in row.values()), default=0)
    unit, size = ("MiB", 1 << 20) if largest >= 1 << 20 else ("KiB", 1 << 10)
    width = 0.8 / max(len(settings), 1)
    with house_style():
        fig, ax = new_figure()
        for number, (setting, swatch) in enumerate(
            zip(settings, swatches(len(settings)), strict=True)
        ):
            values = [bytes_by_program[p].get(setting, 0) / size for p in programs]
            offset = (number - (len(settings) - 1) / 2) * width
            positions = [i + offset for i in range(len(programs))]
            style = {"color": swatch.color, "hatch": swatch.hatch or None, "edgecolor": "white"}
            ax.bar(positions, values, width=width, label=setting, **style)
        ax.set_xticks(range(len(programs)), programs)
        ax.grid(axis="x", visible=False)
        ax.set_ylabel(f"bytes moved ({unit})")
        if title is not None:
            ax.set_title(title)
        ax.legend()
    rows = [
        [p, *(f"{bytes_by_program[p].get(s, 0) / size:.4g}" for s in settings)] for p in programs
    ]
    heading = f"bytes moved ({unit})" + ("" if title is None else f": {title}")
    return figure_to_picture(fig, "\n".join([heading, *_table(["program", *settings], rows)]))
