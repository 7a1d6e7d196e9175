"""Fusing with a record of who went where: which original ops each kernel computes.

``FusionPass`` rewrites the IR: after it, the ops that were fused are gone, and so are
their names. To show a reader what fusion did (``fusion_graph``, the fusion explorer,
chapter 05's exercises), ``fuse_and_record`` runs the real pass on a module and keeps,
by the names the ops had before fusion:

1. Name the ops as the printer does (``%exp``, ``%3``): ``linalg_op_names``.
2. Fuse with ``FusionPass`` itself, with the rule given and a listener that follows
   every replacement: each new op takes over the original ops its predecessors held.
3. At each fusion, note the tensor the producer no longer writes, with its bytes.
4. After the pass, list each kernel left with its original ops and its compulsory
   traffic (``tinycomp.perf.kernel_cost``).

>>> import numpy as np
>>> from tinycomp.frontend import exp, trace
>>> m = trace(lambda a: exp(a) * 2.0, np.ones((4, 8), np.float32))
>>> record = fuse_and_record(m)
>>> record.kernels, record.not_written, record.kernel_bytes
({'%mul': ('%exp', '%mul')}, {'%exp': 128}, {'%mul': 256})
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import byte_size
from tinycomp.ir.types import ShapedType
from tinycomp.ir.values import Value
from tinycomp.passes.fusion import FusionPass, why_not_fusable
from tinycomp.perf.kernel_cost import kernel_cost
from tinycomp.rewrite.rewriter import PatternRewriter, RewriteListener

__all__ = ["FusionRecord", "FusionRule", "fuse_and_record", "linalg_op_names", "tensor_bytes"]

FusionRule = Callable[[GenericOp, GenericOp, int], "str | None"]
"""``rule(producer, consumer, operand_index)``: why the pair may not fuse, or ``None``
(``why_not_fusable``'s signature; MLIR's pass takes a ``ControlFusionFn`` likewise)."""


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
    """Fuse ``root`` in place with ``FusionPass`` (steps 1-4 of the module docstring), with
    ``rule`` deciding which producer-consumer pairs may fuse, and record who went where.

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> record = fuse_and_record(trace(softmax, TensorSpec((2, 4))))
    >>> record.kernels["%exp"], record.not_written
    (('%sub', '%exp'), {'%sub': 32})
    """
    names = linalg_op_names(root)
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
        self.not_written[self.names[held[-1]]] = tensor_bytes(consumer.operands[index])
        fused = super().fuse_pair(producer, consumer, index, rewriter)
        members = self.tracker.members
        members[fused] = sorted(members[fused] + held, key=self.order.__getitem__)
        return fused


def linalg_op_names(root: Operation) -> dict[Operation, str]:
    """Every linalg op under ``root``, in walk order, with its printed result name
    (``%exp``, or ``%3`` for a value without a name hint).

    >>> import numpy as np
    >>> from tinycomp.frontend import exp, trace
    >>> m = trace(lambda a: exp(a) * 2.0, np.ones((4, 8), np.float32))
    >>> list(linalg_op_names(m).values())
    ['%exp', '%mul']
    """
    names: dict[Operation, str] = {}
    functions = [op for op in root.walk() if op.name == "func.func"] or [root]
    for function in functions:
        ssa = SSANames(function, use_asm_names=True)
        for op in function.walk():
            if isinstance(op, StructuredOp):
                names[op] = ssa.value_name(op.results[0]) if op.results else f"<{op.name}>"
    return names


def tensor_bytes(value: Value) -> int:
    """The size of a tensor value in bytes; 0 when its shape is dynamic (as FusionPass
    counts it): elements times ``ceil(bitwidth / 8)``.

    >>> from tinycomp.ir import parse
    >>> f = parse("func.func @f(%x: tensor<4x8xf16>) { return }").body.first_op
    >>> tensor_bytes(f.arguments[0])
    64
    """
    return (byte_size(value.type) or 0) if isinstance(value.type, ShapedType) else 0
