"""Lower linalg on memrefs to ``scf.for`` loops (MLIR's ``-convert-linalg-to-loops``).

A linalg op is a loop nest written as data; this pass writes the loops out. For
``C[i, j] += A[i, k] * B[k, j]`` on memrefs it produces::

    scf.for %d0 = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        scf.for %k = %c0 to %c8 step %c1 {
          %a = memref.load %A[%i, %k] : memref<4x8xf32>
          %b = memref.load %B[%k, %j] : memref<8x16xf32>
          %c = memref.load %C[%i, %j] : memref<4x16xf32>
          ... the payload, cloned ...
          memref.store %s, %C[%i, %j] : memref<4x16xf32>
        }
      }
    }

The algorithm, for every linalg op nested in the op the pass runs on:

1. Tensor ops (value semantics) have no buffers to load from or store to: leave them
   alone and count them in ``statistics`` (bufferize first).
2. Named ops (``linalg.matmul``, ``linalg.fill``) are generalized: ``generalize()``
   gives the equivalent ``linalg.generic``, whose maps and payload the next steps read.
3. Loop bounds: each loop's trip count comes from the first operand dimension indexed
   by exactly that loop (``loop_dim_sources``): an ``arith.constant`` when the size is
   static, a ``memref.dim`` otherwise. Lower bound 0, step 1 (index constants).
4. Build a perfect ``scf.for`` nest, outermost = the op's first loop dimension.
5. Innermost, load one scalar per memref operand the payload reads, at the indices of
   its indexing map: a map result that is a plain loop dimension is the induction
   variable itself, a constant is an ``arith.constant``, anything else (``oh * 2 + kh``)
   is an ``affine.apply`` of a one-result map over all the loop dimensions, fed the
   induction variables, as MLIR does. ``scf.for`` induction variables are not affine
   dimensions (``affine.load`` would reject them), but ``affine.apply`` accepts any
   ``index`` operand, so the loops stay ``scf.for`` and the loads stay ``memref.load``.
   Scalar operands (``linalg.fill``'s value) are used as they are.
6. Clone the payload with a value map: block arguments -> loaded scalars,
   ``linalg.index`` -> the induction variable of that loop.
7. Store each value ``linalg.yield`` gives into its output at the output's indices,
   and erase the linalg op.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @double(%x: memref<4xf32>, %y: memref<4xf32>) {
...   linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
...                   iterator_types = ["parallel"]}
...       ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
...   ^bb0(%a: f32, %b: f32):
...     %s = arith.addf %a, %a : f32
...     linalg.yield %s : f32
...   }
...   return
... }''')
>>> lowering = LinalgToLoopsPass()
>>> lowering.run(m)
>>> print(m)
module {
  func.func @double(%x: memref<4xf32>, %y: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %d0 = %c0 to %c4 step %c1 {
      %a = memref.load %x[%d0] : memref<4xf32>
      %s = arith.addf %a, %a : f32
      memref.store %s, %y[%d0] : memref<4xf32>
    }
    return
  }
}
>>> dict(lowering.statistics)
{'ops lowered': 1}
"""

from __future__ import annotations

from tinycomp.affine import (
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from tinycomp.dialects.affine.apply import AffineApplyOp
from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.dialects.memref.access import DimOp, LoadOp, StoreOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType, index
from tinycomp.ir.values import Value
from tinycomp.passes.errors import PassError
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass

__all__ = ["LinalgToLoopsPass", "lower_to_loops"]


class LinalgToLoopsPass(Pass):
    """Rewrite every linalg op on memrefs into a perfect ``scf.for`` nest (see the module
    docstring); ops on tensors are left alone and counted in ``statistics``."""

    name = "convert-linalg-to-loops"
    summary = "lower linalg ops on memrefs to scf.for loops of memref.load/store"

    def run(self, op: Operation) -> None:
        linalg_ops = [nested for nested in op.walk() if isinstance(nested, StructuredOp)]
        for linalg_op in linalg_ops:
            if not linalg_op.is_buffer_semantics:  # step 1
                self.statistics["left alone: tensor semantics (bufferize first)"] += 1
                continue
            lower_to_loops(linalg_op)
            self.statistics["ops lowered"] += 1


def lower_to_loops(linalg_op: StructuredOp) -> ForOp | None:
    """Replace ``linalg_op`` (on memrefs) by its loop nest; return the outermost loop
    (``None`` for an op with no loops, whose body is emitted in place).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32, %y: memref<2x3xf32>) {
    ...   linalg.fill ins(%v : f32) outs(%y : memref<2x3xf32>)
    ...   return }''')
    >>> fill = m.body.first_op.entry_block.first_op
    >>> outer = lower_to_loops(fill)
    >>> [op.name for op in outer.walk()]
    ['scf.for', 'scf.for', 'memref.store', 'scf.yield', 'scf.yield']
    """
    generic = linalg_op if isinstance(linalg_op, GenericOp) else linalg_op.generalize()  # 2
    builder = Builder.before(linalg_op)
    induction_vars: list[Value] = []
    outermost: ForOp | None = None
    upper_bounds = _loop_upper_bounds(generic, builder)  # step 3
    zero = builder.insert(ConstantOp.build(0, index)).result if upper_bounds else None
    one = builder.insert(ConstantOp.build(1, index)).result if upper_bounds else None
    # Constants before the nest, so they are created once, not per iteration.
    for position, upper in enumerate(upper_bounds):
        if isinstance(upper, int):
            upper_bounds[position] = builder.insert(ConstantOp.build(upper, index)).result
    for position, upper in enumerate(upper_bounds):  # step 4
        loop = builder.insert(ForOp.build(zero, upper, one))
        loop.induction_var.name_hint = generic.loop_name(position)  # %i, or %d0 when unnamed
        outermost = outermost or loop
        induction_vars.append(loop.induction_var)
        builder = Builder.before(loop.body.last_op)  # inside, before its scf.yield

    value_map: dict[Value, Value] = {}
    maps = generic.indexing_maps()
    operand_indices = []
    for position, (operand, indexing_map) in enumerate(zip(generic.operands, maps, strict=True)):
        indices = _indices(indexing_map, induction_vars, builder)  # step 5
        operand_indices.append(indices)
        argument = generic.body.arguments[position]
        if not isinstance(operand.type, MemRefType):
            value_map[argument] = operand  # a scalar operand is its own element
        elif generic.payload_reads(position):
            loaded = builder.insert(LoadOp.build(operand, indices)).result
            loaded.name_hint = argument.name_hint  # the scalar keeps the payload's name
            value_map[argument] = loaded

    yielded: list[Value] = []
    for payload_op in generic.body.ops:  # step 6
        if payload_op.is_terminator:
            yielded = [value_map.get(v, v) for v in payload_op.operands]
        elif isinstance(payload_op, IndexOp):
            value_map[payload_op.result] = induction_vars[payload_op.dim]
        else:
            builder.insert(payload_op.clone(value_map))

    for output_number, value in enumerate(yielded):  # step 7
        position = generic.num_inputs + output_number
        target = generic.operands[position]
        builder.insert(StoreOp.build(value, target, operand_indices[position]))
    if generic is not linalg_op:
        generic.drop_all_references()  # the detached generic twin no longer uses the memrefs
    linalg_op.erase()
    return outermost


def _loop_upper_bounds(generic: StructuredOp, builder: Builder) -> list[Value | int]:
    """Each loop's trip count: a static size as an ``int`` (turned into a constant by
    the caller), a dynamic one as a ``memref.dim`` built with ``builder``."""
    static_sizes = generic.static_loop_sizes()
    bounds: list[Value | int] = []
    for size, (operand, dim) in zip(static_sizes, generic.loop_dim_sources(), strict=True):
        if size is not DYNAMIC:
            bounds.append(size)
            continue
        dim_index = builder.insert(ConstantOp.build(dim, index)).result
        bounds.append(builder.insert(DimOp.build(generic.operands[operand], dim_index)).result)
    return bounds


def _indices(indexing_map: AffineMap, induction_vars: list[Value], builder: Builder) -> list[Value]:
    """The index values of one operand: each result of ``indexing_map`` evaluated at
    the induction variables (step 5 of the outline)."""
    indices = []
    for result in indexing_map.results:
        indices.append(_index_value(result, indexing_map.num_dims, induction_vars, builder))
    return indices


def _index_value(
    expr: AffineExpr, num_dims: int, induction_vars: list[Value], builder: Builder
) -> Value:
    """``d2`` -> the third induction variable; ``4`` -> ``arith.constant 4 : index``;
    ``d1 * 2 + d4`` -> ``affine.apply affine_map<(d0, ..., dN) -> (d1 * 2 + d4)>(%ivs)``."""
    if isinstance(expr, AffineDimExpr):
        return induction_vars[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return builder.insert(ConstantOp.build(expr.value, index)).result
    if expr.used_symbols():
        raise PassError(
            f"convert-linalg-to-loops: expected an indexing map over loop dimensions, got '{expr}'"
        )
    single = AffineMap(num_dims, 0, [expr])
    return builder.insert(AffineApplyOp.build(single, induction_vars)).result


register_pass(LinalgToLoopsPass)
