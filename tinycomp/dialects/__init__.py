"""The dialects: one package per dialect, each registering its ops when imported.

Importing ``tinycomp`` imports this package, so every dialect below is known to the
parser. The IR core (``tinycomp.ir``) knows none of them; it has only ``builtin.module``.

* ``func``: ``func.func``, ``func.return``, ``func.call``
* ``arith``: constants, arithmetic, comparisons, casts (one module per role)
* ``cf``: ``cf.br``, ``cf.cond_br``
* ``math``: ``math.exp``, ``math.tanh`` and the other elementwise functions
* ``memref``, ``tensor``: buffers and values with a shape, their views and reshapes
* ``scf``, ``affine``: structured loops and conditionals
* ``linalg``: structured ops on tensors and buffers (``generic`` and the named ops)
* ``vector``: SIMD values, their loads, stores, reductions and shuffles
* ``gpu``: kernels, thread and block ids, barriers, shuffles, workgroup memory
* ``nvvm`` (a part): NVIDIA's warp-synchronous ops (``redux.sync``, ``vote.sync``...)
* ``tile`` (tinycomp's own, generic form): ``tile.load`` and ``tile.store``, the memory
  edges of a tile-DSL program (Triton's ``tt.load`` / ``tt.store``)
* ``npu`` (tinycomp's own, generic form): a Da Vinci AI core's buffers, DMA copies,
  cube and vector instructions and flags
* ``common``: the syntax and base classes several dialects share

>>> import tinycomp.dialects as dialects
>>> dialects.linalg.GenericOp.name
'linalg.generic'
"""

from tinycomp.dialects import (
    affine,
    arith,
    cf,
    func,
    gpu,
    linalg,
    math,
    memref,
    npu,
    nvvm,
    scf,
    tensor,
    tile,
    vector,
)

__all__ = [
    "affine", "arith", "cf", "func", "gpu", "linalg", "math", "memref", "npu", "nvvm", "scf",
    "tensor", "tile", "vector",
]  # fmt: skip
