"""The linalg dialect: loop nests as data, the unit of fusion and tiling.

This module registers the dialect and re-exports every op class, so
``from tinycomp.dialects.linalg import MatmulOp`` works. The files, by role:

* ``linalg_base.py``: ``StructuredOp``, what all linalg ops share and what passes ask;
* ``linalg_generic.py``: ``linalg.generic``, ``linalg.yield``, ``linalg.index``;
* ``linalg_named.py``: ``fill``, ``matmul``, ``batch_matmul``, ``conv_2d_nhwc_hwcf``;
* ``linalg_map_reduce.py``: ``map``, ``reduce``, ``transpose``, ``broadcast``;
* ``linalg_payload.py``: the scalar bodies of the named ops;
* ``linalg_syntax.py``, ``linalg_verify.py``: shared syntax and checks.

What a pass (or the interpreter) asks of any linalg op ``op``:

=============================  ==========================================================
``op.inputs``, ``op.outputs``  the ``ins`` and ``outs`` operands
``op.indexing_maps()``         one ``tinycomp.affine.AffineMap`` per operand
``op.iterator_types()``        ``"parallel"`` / ``"reduction"`` per loop
``op.num_loops``               how many loops
``op.static_loop_sizes()``     trip counts from the operand types (``None`` if dynamic)
``op.loop_sizes_from_shapes``  trip counts for given (run-time) operand shapes
``op.loop_ranges()``           ``[(0, size), ...]``, the box ``AffineMap.footprint`` takes
``op.body``                    the payload block: one scalar argument per operand, ending
                               with ``linalg.yield`` (named ops too: they build it)
``op.is_tensor_semantics``     outputs are tensors and the op returns new ones
``op.generalize()``            the equivalent ``linalg.generic``
=============================  ==========================================================

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @relu(%x: tensor<8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
...   %zero = arith.constant 0.0 : f32
...   %r = linalg.map ins(%x : tensor<8xf32>) outs(%init : tensor<8xf32>)
...     (%in: f32, %out: f32) {
...       %y = arith.maximumf %in, %zero : f32
...       linalg.yield %y : f32
...     }
...   return %r : tensor<8xf32>
... }''')
>>> relu = m.body.first_op.entry_block.ops[1]
>>> generic = relu.generalize()
>>> generic.iterator_types(), [str(m) for m in generic.indexing_maps()]
(['parallel'], ['(d0) -> (d0)', '(d0) -> (d0)'])
>>> [op.name for op in generic.body]
['arith.maximumf', 'linalg.yield']
"""

from __future__ import annotations

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp, YieldOp
from tinycomp.dialects.linalg.map_reduce import (
    MAP_REDUCE_OPS,
    BroadcastOp,
    DimsStructuredOp,
    MapOp,
    ReduceOp,
    TransposeOp,
)
from tinycomp.dialects.linalg.named import (
    NAMED_OPS,
    BatchMatmulOp,
    ContractionOp,
    Conv2DNhwcHwcfOp,
    FillOp,
    MatmulOp,
    NamedStructuredOp,
    conv_output_size,
)
from tinycomp.dialects.linalg.syntax import PARALLEL, REDUCTION
from tinycomp.ir.registry import Dialect, register_dialect

LINALG = Dialect("linalg", (GenericOp, YieldOp, IndexOp, *NAMED_OPS, *MAP_REDUCE_OPS))
"""The linalg dialect (registered on import)."""
register_dialect(LINALG)

__all__ = [
    "LINALG", "PARALLEL", "REDUCTION", "BatchMatmulOp", "BroadcastOp", "ContractionOp",
    "Conv2DNhwcHwcfOp", "DimsStructuredOp", "FillOp", "GenericOp", "IndexOp", "MapOp",
    "MatmulOp", "NamedStructuredOp", "ReduceOp", "StructuredOp", "TransposeOp", "YieldOp",
    "conv_output_size",
]  # fmt: skip
