"""A contraction with an elementwise producer fused into its payload, split back in two.

Elementwise fusion puts a contraction's producer inside its payload: attention's
``softmax(s) @ v`` becomes one ``linalg.generic`` whose payload divides ``exp`` by the
row sum, multiplies by ``v`` and accumulates; mlp2's second matmul computes
``gelu(h + b1)`` before its multiply. That saves a buffer for loops, but the BLIS
strategy needs plain operands to pack. A producer that reads only A's side (batch, m and
k) is computed once per element of A, so computing it into a buffer first costs one pass
over ``batch x m x k`` elements, against the ``n`` times the fused payload recomputes it
(once per column of the output). ``split_fused_producers`` does that, in order:

1. Check the shape of the payload: it yields ``out + x * y`` (``out`` the output's
   block argument), one reduction loop, the output indexed by plain
   loop dimensions ``(batch..., m, n)``, the inputs by loop dimensions or constants.
2. Find what ``x`` and ``y`` are computed from (their slices in the payload, back to
   the block arguments). The side that never reads ``n`` is A, the one that never reads
   ``m`` is B; a slice reading the output, or both ``m`` and ``n``, cannot be split.
   Only f32 goes on (the micro-kernel's type).
3. For each side that is not already one input read as it is: allocate a buffer over
   its loops (``batch..., m, k`` for A), and write the slice into it with a new
   all-parallel ``linalg.generic`` (the producer's inputs re-indexed to those loops, the
   slice cloned as its payload).
4. Replace the op by a plain contraction of the two sides, its output and its init
   unchanged; free the buffers after it. Returns the new op, or why it could not.

>>> import numpy as np
>>> from tinycomp.testing import KERNELS
>>> import tinycomp
>>> bufferized = tinycomp.compile(KERNELS["mlp2"].trace("f32"), stop_after="bufferized").module
>>> generics = [op for op in bufferized.walk() if op.name == "linalg.generic"]
>>> fused = generics[3]   # out + gelu(h + b1) * w2: the producer reads h and b1
>>> [value.type.shape for value in fused.inputs]
[(8, 32), (32,), (32, 8)]
>>> split = split_fused_producers(fused)
>>> [value.type.shape for value in split.inputs]   # gelu(h + b1) in a buffer, and w2
[(8, 32), (32, 8)]
>>> [op.name for op in split.body.ops]
['arith.mulf', 'arith.addf', 'linalg.yield']
"""

from __future__ import annotations

from tinycomp.affine import AffineConstantExpr, AffineDimExpr, AffineMap, dim
from tinycomp.dialects.arith import AddFOp, MulFOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.memref import AllocOp, DeallocOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType, f32
from tinycomp.ir.values import BlockArgument, Value

__all__ = ["split_fused_producers"]


def _map_dims(indexing_map: AffineMap) -> list[int | None] | None:
    """Each result's loop dimension (``None`` for a constant), or ``None`` if one is
    neither."""
    dims: list[int | None] = []
    for result in indexing_map.results:
        if isinstance(result, AffineDimExpr):
            dims.append(result.position)
        elif isinstance(result, AffineConstantExpr):
            dims.append(None)
        else:
            return None
    return dims


def _slice(value: Value, body_ops: list[Operation]) -> tuple[list[Operation], set[BlockArgument]]:
    """The payload ops ``value`` is computed by (in body order) and the block arguments
    they read."""
    ops: set[Operation] = set()
    arguments: set[BlockArgument] = set()
    work = [value]
    while work:
        current = work.pop()
        if isinstance(current, BlockArgument):
            arguments.add(current)
            continue
        op = current.op
        if op not in ops:
            ops.add(op)
            work.extend(op.operands)
    return [op for op in body_ops if op in ops], arguments


def split_fused_producers(op: GenericOp, apply: bool = True) -> GenericOp | str:
    """Split ``op`` (see the module docstring); the new contraction, or why not.
    ``apply=False`` only checks: ``op`` itself, unchanged, when it could be split."""
    maps = op.indexing_maps()  # step 1
    types = [v.type for v in op.operands]
    if op.num_outputs != 1 or not all(isinstance(t, MemRefType) for t in types):
        return "not one output on buffers"
    if any(DYNAMIC in t.shape for t in types):
        return "dynamic shapes"
    reductions = op.reduction_dims()
    dims = [_map_dims(m) for m in maps]
    if len(reductions) != 1 or any(d is None for d in dims) or None in dims[-1]:
        return "not one reduction over loop dimensions"
    (k,) = reductions
    c_dims = dims[-1]
    if len(c_dims) < 2 or len(c_dims) + 1 != op.num_loops:
        return "the output is not indexed (batch..., m, n)"
    batch, m, n = c_dims[:-2], c_dims[-2], c_dims[-1]
    body_ops = list(op.body.ops)
    out = op.body.arguments[-1]
    yielded = body_ops[-1].operands
    add = yielded[0].op if len(yielded) == 1 and not isinstance(yielded[0], BlockArgument) else None
    if not isinstance(add, AddFOp) or out not in add.operands:
        return "the payload does not yield out + x * y"
    product = add.operands[1] if add.operands[0] is out else add.operands[0]
    mul = None if isinstance(product, BlockArgument) else product.op
    if not isinstance(mul, MulFOp):
        return "the payload does not yield out + x * y"
    sides = []
    for value in mul.operands:  # step 2
        ops, arguments = _slice(value, body_ops)
        if out in arguments or any(o.regions for o in ops):
            return "a factor reads the output or has regions"
        read = {d for a in arguments for d in dims[a.index] if d is not None}
        sides.append((value, ops, arguments, read))
    if n not in sides[0][3] and m not in sides[1][3]:
        a_side, b_side = sides
    elif m not in sides[0][3] and n not in sides[1][3]:
        b_side, a_side = sides
    else:
        return "a factor reads both m and n"
    if {t.element_type for t in types} != {f32}:
        found = ", ".join(sorted({str(t.element_type) for t in types}))
        return f"{found}: the micro-kernel is f32"
    if not apply:
        return op
    fill = op.prev_op if op.prev_op is not None and op.operands[-1] in op.prev_op.operands else None
    builder = Builder.before(fill if fill is not None else op)
    temporaries: list[Value] = []
    operands, new_maps = [], []
    for side, loops in ((a_side, [*batch, m, k]), (b_side, [*batch, k, n])):  # step 3
        value, ops, arguments, _ = side
        if not ops:  # an input read as it is
            operands.append(op.operands[value.index])
            new_maps.append(maps[value.index])
            continue
        temporary = _materialize(op, builder, value, ops, sorted(arguments, key=lambda a: a.index),
                                 loops, dims)  # fmt: skip
        temporaries.append(temporary)
        operands.append(temporary)
        new_maps.append(AffineMap(op.num_loops, 0, [dim(d) for d in loops]))
    new_maps.append(maps[-1])  # step 4

    def payload(b: Builder, args: list[Value]) -> list[Value]:
        product = b.insert(MulFOp.build(args[0], args[1])).result
        return [b.insert(AddFOp.build(args[2], product)).result]

    contraction = GenericOp.build(
        operands, [op.operands[-1]], new_maps, op.iterator_types(), body=payload
    )
    Builder.before(op).insert(contraction)
    after = Builder.after(op)
    for temporary in reversed(temporaries):
        after.insert(DeallocOp.build(temporary))
    op.erase()
    return contraction


def _materialize(op, builder, value, ops, arguments, loops, dims) -> Value:
    """Step 3 for one side: its buffer, written by a new generic over ``loops``."""
    sizes = op.static_loop_sizes()
    buffer = builder.insert(AllocOp.build(MemRefType(tuple(sizes[d] for d in loops), f32))).result
    position = {d: i for i, d in enumerate(loops)}
    input_maps = [
        AffineMap(len(loops), 0, [0 if d is None else dim(position[d]) for d in dims[a.index]])
        for a in arguments
    ]
    identity = AffineMap(len(loops), 0, [dim(i) for i in range(len(loops))])

    def payload(b: Builder, args: list[Value]) -> list[Value]:
        mapping: dict[Value, Value] = dict(zip(arguments, args, strict=False))
        for inner in ops:
            clone = b.insert(inner.clone(mapping))
            mapping.update(zip(inner.results, clone.results, strict=True))
        return [mapping[value]]

    producer = GenericOp.build(
        [op.operands[a.index] for a in arguments],
        [buffer],
        [*input_maps, identity],
        ["parallel"] * len(loops),
        body=payload,
    )
    builder.insert(producer)
    return buffer
