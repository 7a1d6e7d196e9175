"""What each tensor op does to buffers: which operand it reads, which it writes, and
which result may take an operand's buffer (MLIR's ``BufferizableOpInterface``).

Tensor IR in *destination-passing style* names, for every result, the operand whose
buffer it may reuse: its *destination*. Bufferizing "in place" means the result gets
the destination's buffer and the op writes into it; "out of place" means a new
buffer (a copy of the destination's contents first, when they are needed).

==========================  =========================  =====  =====  =======================
op                          operand                    reads  writes result that aliases it
==========================  =========================  =====  =====  =======================
linalg (tensors)            ``ins``                    yes    no     -
                            ``outs`` #i                [1]    yes    result #i (in place)
``tensor.insert_slice``     source                     yes    no     -
                            dest                       [2]    yes    the result (in place)
``tensor.insert``           dest                       yes    yes    the result (in place)
``scf.for``                 init #i                    yes    [3]    result #i, iter_arg #i
``tensor.extract_slice``    source                     no     no     the result (a view)
``tensor.collapse_shape``,  source                     no     no     the result (a view)
``expand_shape``, ``cast``
``tensor.extract``, ``pad``  source                     yes    no     -
``scf.yield``,              every tensor               yes    no     -
``func.return``
``tensor.dim``              source                     no     no     -
==========================  =========================  =====  =====  =======================

[1] only when the payload uses the output element (``C += A * B``, a reduction).
[2] the elements outside the window survive, so the old value is read.
[3] counted as a write, as in MLIR: the body may write the iter_arg's buffer.

``tensor.empty``, ``tensor.pad`` and ``tensor.generate`` results always get new buffers,
and a ``tensor.empty`` has no contents to speak of: reading it (directly or through a
view) never conflicts with a write, and copying it copies nothing.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: tensor<4xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
...   %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
...                        iterator_types = ["parallel"]}
...       ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>) {
...   ^bb0(%a: f32, %b: f32):
...     linalg.yield %a : f32
...   } -> tensor<4xf32>
...   return %r : tensor<4xf32>
... }''')
>>> op = m.body.first_op.entry_block.first_op
>>> [reads_operand(op, i) for i in range(2)], writable_operands(op), aliasing_values(op, 1)
([True, False], [1], [<OpResult #0 of 'linalg.generic': tensor<4xf32>>])
"""

from __future__ import annotations

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import RankedTensorType
from tinycomp.ir.values import Value

__all__ = [
    "NEW_BUFFER_OPS",
    "SUPPORTED_OPS",
    "VIEW_OPS",
    "aliasing_values",
    "for_init_index",
    "has_undefined_contents",
    "is_tensor",
    "reads_operand",
    "writable_operands",
]

VIEW_OPS = (
    "tensor.extract_slice",
    "tensor.collapse_shape",
    "tensor.expand_shape",
    "tensor.cast",
)
"""Ops whose result is a view of operand #0: same memory, never written by the op."""

NEW_BUFFER_OPS = ("tensor.empty", "tensor.pad", "tensor.generate")
"""Ops whose tensor result always gets a buffer of its own."""

UNDEFINED_CONTENTS_OPS = ("tensor.empty",)
"""Ops whose result has no defined contents: only its shape matters."""

_READ_ONLY_USERS = ("tensor.extract", "tensor.pad", "scf.yield", "func.return")
SUPPORTED_OPS = (
    *VIEW_OPS, *NEW_BUFFER_OPS, *_READ_ONLY_USERS,
    "tensor.insert_slice", "tensor.insert", "tensor.dim", "scf.for",
)  # fmt: skip
"""The tensor ops (besides linalg) one-shot-bufferize knows how to bufferize."""

INSERT_SLICE_SOURCE, INSERT_SLICE_DEST = 0, 1
"""Operand positions of ``tensor.insert_slice``."""
_FOR_FIRST_INIT = 3  # scf.for operands: lb, ub, step, *inits


def is_tensor(value: Value) -> bool:
    """Whether ``value`` is a ranked tensor (what bufferization turns into a memref).

    >>> from tinycomp.ir import Block, RankedTensorType, f32
    >>> [is_tensor(v) for v in Block([RankedTensorType((2,), f32), f32]).arguments]
    [True, False]
    """
    return isinstance(value.type, RankedTensorType)


def has_undefined_contents(value: Value) -> bool:
    """Whether ``value`` (or the tensor it is a view of) comes from ``tensor.empty``:
    reading it reads nothing anyone defined, so no write can spoil it, and a copy of
    it need not copy anything (MLIR's ``hasUndefinedContents``).

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f() -> tensor<2xf32> { %e = tensor.empty() : tensor<2xf32> "
    ...           "return %e : tensor<2xf32> }")
    >>> has_undefined_contents(m.body.first_op.entry_block.first_op.result)
    True
    """
    op = value.defining_op()
    while op is not None and op.name in VIEW_OPS:
        op = op.operands[0].defining_op()
    return op is not None and op.name in UNDEFINED_CONTENTS_OPS


def reads_operand(op: Operation, index: int) -> bool:
    """Whether bufferized ``op`` reads the memory of its tensor operand ``index``
    (MLIR's ``bufferizesToMemoryRead``)."""
    if not is_tensor(op.operands[index]):
        return False
    if isinstance(op, StructuredOp):
        return index < op.num_inputs or op.payload_reads(index)
    if op.name in VIEW_OPS or op.name == "tensor.dim":
        return False
    return True  # insert_slice (both operands), insert, extract, pad, for, yield, return


def writable_operands(op: Operation) -> list[int]:
    """The tensor operands that ``op`` writes when it bufferizes in place: the ones the
    analysis decides about (MLIR's ``bufferizesToMemoryWrite``)."""
    if isinstance(op, StructuredOp):
        return [i for i in range(op.num_inputs, len(op.operands)) if is_tensor(op.operands[i])]
    if op.name == "tensor.insert_slice":
        return [INSERT_SLICE_DEST]
    if op.name == "tensor.insert":
        return [1]
    if op.name == "scf.for":
        return [i for i in range(_FOR_FIRST_INIT, len(op.operands)) if is_tensor(op.operands[i])]
    return []


def aliasing_values(op: Operation, index: int) -> list[Value]:
    """The values that get the buffer of operand ``index`` when it is written in place
    (or always, for a view): the result, and for ``scf.for`` the iter_arg too."""
    if isinstance(op, StructuredOp):
        if index < op.num_inputs:
            return []
        return [op.results[index - op.num_inputs]] if op.results else []
    if op.name in ("tensor.insert_slice", "tensor.insert"):
        return [op.results[0]] if index == writable_operands(op)[0] else []
    if op.name in VIEW_OPS:
        return [op.results[0]] if index == 0 else []
    if op.name == "scf.for" and index >= _FOR_FIRST_INIT:
        position = index - _FOR_FIRST_INIT
        return [op.results[position], op.body.arguments[1 + position]]
    return []


def for_init_index(position: int) -> int:
    """The operand index of the ``position``-th init of an ``scf.for`` (after the
    lower bound, upper bound and step).

    >>> for_init_index(0)
    3
    """
    return _FOR_FIRST_INIT + position
