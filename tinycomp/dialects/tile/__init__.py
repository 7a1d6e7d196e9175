"""The tile dialect: tinycomp's own memory edges of a tile program (``tile.load``,
``tile.store``), as Triton's ``tt.load`` and ``tt.store``; everything else a tile
program does is linalg on tensors. The ops live in ``memory.py``.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @copy(%x: memref<?xf32>, %y: memref<?xf32>, %o: tensor<4xi32>) {
...   %t = "tile.load"(%x, %o) : (memref<?xf32>, tensor<4xi32>) -> tensor<4xf32>
...   "tile.store"(%y, %o, %t) : (memref<?xf32>, tensor<4xi32>, tensor<4xf32>) -> ()
...   return
... }''')
>>> [type(op).__name__ for op in module.body.first_op.entry_block.ops[:2]]
['LoadOp', 'StoreOp']
"""

from __future__ import annotations

from tinycomp.dialects.tile.memory import LoadOp, StoreOp
from tinycomp.ir.registry import Dialect, register_dialect

TILE = Dialect("tile", (LoadOp, StoreOp))
"""The tile dialect (registered on import)."""
register_dialect(TILE)

__all__ = ["TILE", "LoadOp", "StoreOp"]
