"""Per-op bufferization: the memref ops that do what each tensor op did.

Each rule gets the ``Bufferizer`` (``b``: the buffers so far, the in-place decisions,
a rewriter positioned before the op) and the tensor op, inserts the memref version
and records where each tensor result now lives:

===========================  ===================================================================
tensor op                    memref ops
===========================  ===================================================================
linalg on tensors            the same op on buffers: ``outs`` = the chosen destinations
``tensor.empty``             ``memref.alloc``
``tensor.extract_slice``     ``memref.subview`` (a strided view: no copy)
``tensor.insert_slice``      ``memref.subview`` of the destination + ``memref.copy``, unless
                             the source was computed in place in that very subview
``tensor.collapse_shape``,   ``memref.collapse_shape`` / ``expand_shape`` / ``cast`` (views; a
``expand_shape``, ``cast``   collapse of a non-contiguous view copies first)
``tensor.extract``/``insert``  ``memref.load`` / ``memref.store``
``tensor.dim``               ``memref.dim``
``tensor.pad``, ``generate``  ``memref.alloc``, ``linalg.fill`` (or a generic computing each
                             element), then a copy of the source into the interior subview
``scf.for``                  a loop without tensor iter_args, working on the iter buffers; a
                             yielded buffer that is not the iter buffer is copied into it
``func.return``              returns the buffers (``function_boundary.py`` makes out-params)
===========================  ===================================================================

A tile computed in a buffer of its own is copied into its window of the destination
(here a function argument, so the destination itself is a copy first: arguments are
read-only):

>>> from tinycomp.ir import parse
>>> from tinycomp.passes.bufferize.bufferizer import Bufferizer
>>> from tinycomp.passes.bufferize.inplace_analysis import analyze_in_place
>>> m = parse('''func.func @f(%t: tensor<8xf32>, %v: f32) -> tensor<8xf32> {
...   %e = tensor.empty() : tensor<4xf32>
...   %tile = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
...   %r = tensor.insert_slice %tile into %t[2] [4] [1] : tensor<4xf32> into tensor<8xf32>
...   return %r : tensor<8xf32> }''')
>>> f = m.body.first_op
>>> Bufferizer(f, analyze_in_place(f)).run()
>>> print(f)
func.func @f(%t: memref<8xf32>, %v: f32) -> memref<8xf32> {
  %alloc = memref.alloc() : memref<4xf32>
  linalg.fill ins(%v : f32) outs(%alloc : memref<4xf32>)
  %alloc_0 = memref.alloc() : memref<8xf32>
  memref.copy %t, %alloc_0 : memref<8xf32> to memref<8xf32>
  %subview = memref.subview %alloc_0[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  memref.copy %alloc, %subview : memref<4xf32> to memref<4xf32, strided<[1], offset: 2>>
  return %alloc_0 : memref<8xf32>
}
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable

from tinycomp.affine import AffineMap
from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.func import ReturnOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.dialects.linalg.named import FillOp
from tinycomp.dialects.memref.access import DimOp, LoadOp, StoreOp
from tinycomp.dialects.memref.alloc import AllocOp
from tinycomp.dialects.memref.cast import CastOp
from tinycomp.dialects.memref.layout import collapsed_type, expanded_type
from tinycomp.dialects.memref.reshape import CollapseShapeOp, ExpandShapeOp
from tinycomp.dialects.memref.view import SubViewOp
from tinycomp.dialects.scf.control import YieldOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.types import MemRefType, index
from tinycomp.ir.values import Value
from tinycomp.passes.bufferize.aliasing import for_init_index, is_tensor
from tinycomp.passes.bufferize.memref_types import memref_type_for, subview_result_type
from tinycomp.passes.errors import PassError

__all__ = ["RULES", "bufferize_linalg"]

Rule = Callable[..., None]


def bufferize_linalg(b, op: StructuredOp) -> None:
    """The op on buffers: inputs' buffers, and per output the destination the analysis
    chose (its own buffer in place, else a new one). The payload moves over as is."""
    inputs = [b.buffer(v) for v in op.inputs]
    outputs = [b.destination(op, op.num_inputs + i) for i in range(op.num_outputs)]
    region = Region()
    region.take_body(op.regions[0])
    new_op = type(op)([*inputs, *outputs], [], dict(op.attributes), [region])
    b.rewriter.insert(new_op)
    for result, buffer in zip(op.results, outputs, strict=True):
        b.set_result_buffer(result, buffer)
    b.retire(op)


def _empty(b, op: Operation) -> None:
    memref_type = memref_type_for(op.result.type)
    alloc = b.rewriter.insert(AllocOp.build(memref_type, list(op.operands)))
    b.allocations[alloc] = f"tensor.empty {b.analysis.name(op.result)}"
    b.set_result_buffer(op.result, alloc.result)
    b.retire(op)


def _subview(b, source: Value, window_op: Operation, result_shape) -> Value:
    """``memref.subview`` of ``source`` at ``window_op``'s offsets, sizes and strides."""
    statics = [window_op.static_list(i) for i in range(3)]
    result_type = subview_result_type(source.type, *statics, result_shape)
    view = SubViewOp.build(
        source, window_op.offsets, window_op.sizes, window_op.strides, result_type
    )
    return b.rewriter.insert(view).result


def _extract_slice(b, op: Operation) -> None:
    b.set_result_buffer(op.result, _subview(b, b.buffer(op.source), op, op.result.type.shape))
    b.retire(op)


def _insert_slice(b, op: Operation) -> None:
    dest = b.destination(op, 1)
    source = b.buffer(op.source)
    if not _is_window(source, dest, op):  # computed elsewhere: copy it in
        b.copy(source, _subview(b, dest, op, op.source.type.shape))
    b.set_result_buffer(op.result, dest)
    b.retire(op)


def _is_window(source: Value, dest: Value, insert: Operation) -> bool:
    """Whether ``source`` is ``memref.subview`` of ``dest`` at the insert's window: the
    value was computed in place there, and copying it would copy it onto itself."""
    view = source.defining_op()
    if not isinstance(view, SubViewOp) or view.source is not dest:
        return False
    keys = ("static_offsets", "static_sizes", "static_strides")
    same_lists = all(view.attributes[k] == insert.attributes[k] for k in keys)
    return same_lists and list(view.operands[1:]) == list(insert.operands[2:])


def _collapse_shape(b, op: Operation) -> None:
    source = b.buffer(op.source)
    shape = op.result.type.shape
    result_type = collapsed_type(source.type, shape, op.reassociation)
    if result_type is None:  # a non-contiguous view cannot be merged: copy it first
        why = f"contiguous copy of {b.analysis.name(op.source)} to collapse it"
        contiguous = b.new_buffer(op.source.type, source, why)
        b.copy(source, contiguous)
        source = contiguous
        result_type = collapsed_type(source.type, shape, op.reassociation)
    new_op = CollapseShapeOp.build(source, op.reassociation, result_type)
    b.set_result_buffer(op.result, b.rewriter.insert(new_op).result)
    b.retire(op)


def _expand_shape(b, op: Operation) -> None:
    source = b.buffer(op.source)
    result_type = expanded_type(source.type, op.result.type.shape, op.reassociation)
    new_op = ExpandShapeOp.build(source, op.reassociation, op.output_shape, result_type)
    b.set_result_buffer(op.result, b.rewriter.insert(new_op).result)
    b.retire(op)


def _cast(b, op: Operation) -> None:
    source = b.buffer(op.operands[0])
    result_type = MemRefType(
        op.result.type.shape, source.type.element_type, source.type.layout, source.type.memory_space
    )
    b.set_result_buffer(op.result, b.rewriter.insert(CastOp.build(source, result_type)).result)
    b.retire(op)


def _extract(b, op: Operation) -> None:
    load = b.rewriter.insert(LoadOp.build(b.buffer(op.tensor), list(op.indices)))
    b.replace_scalar(op.result, load.result)
    b.retire(op)


def _insert(b, op: Operation) -> None:
    dest = b.destination(op, 1)
    b.rewriter.insert(StoreOp.build(op.scalar, dest, list(op.indices)))
    b.set_result_buffer(op.result, dest)
    b.retire(op)


def _dim(b, op: Operation) -> None:
    dim = b.rewriter.insert(DimOp.build(b.buffer(op.source), op.dimension))
    b.replace_scalar(op.result, dim.result)
    b.retire(op)


def _fill_elements(b, region: Region, buffer: Value) -> None:
    """Write every element of ``buffer`` with what ``region`` yields for its indices:
    ``linalg.fill`` when it yields a value from outside, else a ``linalg.generic`` whose
    payload is the region with its index arguments read from ``linalg.index``."""
    block = region.blocks[0]
    yielded = block.last_op.operands[0]
    if yielded.parent_block() is not block:
        b.rewriter.insert(FillOp.build(yielded, buffer))
        return
    rank = buffer.type.rank

    def payload(builder: Builder, arguments) -> list[Value]:
        mapping: dict = {}
        for dim, argument in enumerate(block.arguments):
            mapping[argument] = builder.insert(IndexOp.build(dim)).result
        for nested in block.ops[:-1]:
            builder.insert(nested.clone(mapping))
        return [mapping.get(yielded, yielded)]

    identity = AffineMap.identity(rank)
    b.rewriter.insert(GenericOp.build([], [buffer], [identity], ["parallel"] * rank, payload))


def _pad(b, op: Operation) -> None:
    if not op.result.type.has_static_shape:
        raise PassError(
            f"one-shot-bufferize: {b.analysis.order.describe(op)}: expected a statically "
            f"shaped padded result, got {op.result.type}"
        )
    padded = b.new_buffer(op.result.type, None, f"tensor.pad {b.analysis.name(op.result)}")
    _fill_elements(b, op.regions[0], padded)
    source = b.buffer(op.source)
    sizes: list = []
    for axis, size in enumerate(op.source.type.shape):
        if size is None:
            axis_value = b.rewriter.insert(ConstantOp.build(axis, index)).result
            size = b.rewriter.insert(DimOp.build(source, axis_value)).result
        sizes.append(size)
    strides = [1] * len(sizes)
    statics = [[v if isinstance(v, int) else None for v in entries] for entries in (op.low, sizes)]
    result_type = subview_result_type(padded.type, *statics, strides, op.source.type.shape)
    interior = SubViewOp.build(padded, op.low, sizes, strides, result_type)
    b.copy(source, b.rewriter.insert(interior).result)
    b.set_result_buffer(op.result, padded)
    b.retire(op)


def _generate(b, op: Operation) -> None:
    memref_type = memref_type_for(op.result.type)
    alloc = b.rewriter.insert(AllocOp.build(memref_type, list(op.operands)))
    b.allocations[alloc] = f"tensor.generate {b.analysis.name(op.result)}"
    _fill_elements(b, op.regions[0], alloc.result)
    b.set_result_buffer(op.result, alloc.result)
    b.retire(op)


def _for(b, op: ForOp) -> None:
    """A loop over the iter buffers: tensor iter_args disappear, scalar ones stay."""
    if not any(is_tensor(init) for init in op.init_args):  # only its body has tensors
        b.bufferize_block(op.body)
        return
    iter_buffers: dict[int, Value] = {}
    scalar_positions = []
    for position, init in enumerate(op.init_args):
        if is_tensor(init):
            iter_buffers[position] = b.destination(op, for_init_index(position))
        else:
            scalar_positions.append(position)
    scalar_inits = [op.init_args[p] for p in scalar_positions]
    new_loop = ForOp(
        [op.lower_bound, op.upper_bound, op.step, *scalar_inits],
        [v.type for v in scalar_inits],
        dict(op.attributes),
        [Region()],
    )
    b.rewriter.insert(new_loop)
    new_loop.regions[0].take_body(op.regions[0])
    body = new_loop.body
    for position, buffer in iter_buffers.items():
        b.set_result_buffer(body.arguments[1 + position], buffer)
        b.set_result_buffer(op.results[position], buffer)
    for new_position, position in enumerate(scalar_positions):
        b.replace_scalar(op.results[position], new_loop.results[new_position])
    b.loop_buffers[body] = iter_buffers
    b.retire_arguments(body, [1 + position for position in iter_buffers])
    b.retire(op)
    b.bufferize_block(body)


def _yield(b, op: Operation) -> None:
    """The yield of a rewritten loop: a tensor yielded in another buffer than the
    iter buffer is copied into it; only the scalars are still yielded."""
    iter_buffers = b.loop_buffers.get(op.parent)
    if iter_buffers is None:  # the yield of a loop without tensors
        return
    kept = []
    for position, value in enumerate(op.operands):
        if position not in iter_buffers:
            kept.append(value)
        elif b.buffer(value) is not iter_buffers[position]:
            b.copy(b.buffer(value), iter_buffers[position])
    b.rewriter.insert(YieldOp.build(kept))
    b.retire(op)


def _return(b, op: Operation) -> None:
    """Return the buffers; out-params come later (``function_boundary.py``)."""
    if not any(is_tensor(v) for v in op.operands):
        return
    b.rewriter.insert(ReturnOp.build([b.buffer(v) for v in op.operands]))
    b.retire(op)


RULES: dict[str, Rule] = {
    "tensor.empty": _empty,
    "tensor.extract_slice": _extract_slice,
    "tensor.insert_slice": _insert_slice,
    "tensor.collapse_shape": _collapse_shape,
    "tensor.expand_shape": _expand_shape,
    "tensor.cast": _cast,
    "tensor.extract": _extract,
    "tensor.insert": _insert,
    "tensor.dim": _dim,
    "tensor.pad": _pad,
    "tensor.generate": _generate,
    "scf.for": _for,
    "scf.yield": _yield,
    "func.return": _return,
}
"""Op name -> rule (linalg ops go to ``bufferize_linalg``)."""
