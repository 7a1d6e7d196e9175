"""The vector dialect: SIMD values and the few operations that need them.

A ``vector<8xf32>`` is eight floats that one instruction processes together (one AVX
``ymm`` register). MLIR's vector dialect is how a compiler says "this loop body runs on
8 lanes at once" before it picks instructions; LLVM later turns each op into LLVM
vector instructions (``load <8 x float>``, ``fadd <8 x float>``...). tinycomp keeps the
subset a CPU loop vectorizer needs, with MLIR's names and syntax (``mlir-opt-22``
accepts all of it):

======================  ===================================================  ===========
op                      example                                              file
======================  ===================================================  ===========
``vector.load``         ``%v = vector.load %A[%i, %j] : memref<4x32xf32>,``  vector_memory
                        ``vector<8xf32>``
``vector.store``        ``vector.store %v, %A[%i, %j] : ...``                vector_memory
``vector.broadcast``    ``%b = vector.broadcast %s : f32 to vector<8xf32>``  vector_compute
``vector.fma``          ``%r = vector.fma %a, %b, %c : vector<8xf32>``       vector_compute
``vector.reduction``    ``%s = vector.reduction <add>, %v, %acc :``          vector_reduction
                        ``vector<8xf32> into f32``
``vector.extract``      ``%x = vector.extract %v[3] : f32 from vector<8xf32>``  vector_position
``vector.insert``       ``%w = vector.insert %x, %v [3] : f32 into ...``     vector_position
======================  ===================================================  ===========

``vector.from_elements %a, %b, %c, %d : vector<4xf32>`` (in ``elements.py``) builds a
vector from one scalar per lane, as a GPU kernel's ``float4`` store does.

Everything else is ``arith`` and ``math`` on vector types: ``arith.addf``,
``arith.cmpf`` (giving ``vector<8xi1>``), ``arith.select``, ``math.exp``... work lane by
lane, with the same verifiers as on scalars.

What tinycomp leaves out: ``vector.transfer_read``/``transfer_write`` (reads with
padding and permutation maps, MLIR's general form), ``vector.maskedload``/
``maskedstore`` (tinycomp's vectorizer handles remainders with a scalar loop instead),
``vector.contract`` and the shuffles. ``vector.splat`` is gone from MLIR 22: use
``vector.broadcast``.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @axpy(%a: f32, %x: memref<16xf32>, %y: memref<16xf32>, %i: index) {
...   %va = vector.broadcast %a : f32 to vector<8xf32>
...   %vx = vector.load %x[%i] : memref<16xf32>, vector<8xf32>
...   %vy = vector.load %y[%i] : memref<16xf32>, vector<8xf32>
...   %r = vector.fma %va, %vx, %vy : vector<8xf32>
...   vector.store %r, %y[%i] : memref<16xf32>, vector<8xf32>
...   return
... }''')
>>> [op.name for op in m.body.first_op.entry_block.ops][:4]
['vector.broadcast', 'vector.load', 'vector.load', 'vector.fma']
"""

from __future__ import annotations

from tinycomp.dialects.vector.compute import BroadcastOp, FMAOp
from tinycomp.dialects.vector.elements import FromElementsOp
from tinycomp.dialects.vector.memory import LoadOp, StoreOp
from tinycomp.dialects.vector.position import ExtractOp, InsertOp
from tinycomp.dialects.vector.reduction import ReductionOp
from tinycomp.ir.registry import Dialect, register_dialect

VECTOR = Dialect(
    "vector",
    (LoadOp, StoreOp, BroadcastOp, FMAOp, ReductionOp, ExtractOp, InsertOp, FromElementsOp),
)
"""The vector dialect (registered on import)."""
register_dialect(VECTOR)

__all__ = [
    "VECTOR", "BroadcastOp", "ExtractOp", "FMAOp", "FromElementsOp", "InsertOp", "LoadOp",
    "ReductionOp", "StoreOp",
]  # fmt: skip
