"""The cleanup before simulation: what ``nvcc -O3`` would do to the IR as written.

The kernel DSL emits IR the way the Python reads: a constant where each literal is, an
index expression recomputed at each use, ``A.shape[0]`` read again inside every loop.
A real compiler cleans that up before the GPU sees it, so counting the IR as written
would charge a kernel for instructions no GPU runs. ``cleaned_up`` runs, on a copy:

1. ``canonicalize``: fold constants, simplify (``x * 1``), hoist constants to the top;
2. ``cse``: compute each repeated expression once;
3. ``loop-invariant-code-motion``: move what every iteration recomputes in front of the
   loop (never a barrier, a shuffle or a vote: they are convergent, and never a load).

``gpu.launch(..., optimize=False)`` skips it and simulates the IR as written.
``cleaned_once`` keeps the copy of each module it was given (a kernel's specialisation
is built once and never changed, so its cleanup need not be redone at every launch).

>>> from tinycomp.ir import parse
>>> module = parse('''
... gpu.module @kernels {
...   gpu.func @k(%out: memref<?xf32>, %n: index) kernel {
...     %c0 = arith.constant 0 : index
...     %c1 = arith.constant 1 : index
...     %tx = gpu.thread_id x
...     scf.for %i = %c0 to %n step %c1 {
...       %bx = gpu.block_id x
...       %w = arith.muli %bx, %c1 : index
...       %j = arith.addi %w, %tx : index
...       %v = arith.index_cast %i : index to i32
...       %f = arith.sitofp %v : i32 to f32
...       memref.store %f, %out[%j] : memref<?xf32>
...     }
...     gpu.return
...   }
... }''')
>>> clean = cleaned_up(module)
>>> loop = next(op for op in clean.walk() if op.name == "scf.for")
>>> [op.name for op in loop.regions[0].entry_block.ops]
['arith.index_cast', 'arith.sitofp', 'memref.store', 'scf.yield']
>>> sum(1 for _ in module.walk()) > sum(1 for _ in clean.walk())  # the original is kept
True
"""

from __future__ import annotations

import weakref

from tinycomp.ir import ModuleOp, Operation
from tinycomp.passes import PassManager

__all__ = ["CLEANUP_PIPELINE", "cleaned_once", "cleaned_up"]

CLEANUP_PIPELINE = "canonicalize,cse,loop-invariant-code-motion"
"""The passes ``gpu.launch`` runs on a kernel's IR before simulating it."""


def cleaned_up(module: ModuleOp | Operation) -> ModuleOp | Operation:
    """A copy of ``module`` (a module, or a ``gpu.module``/``gpu.func``) after
    ``CLEANUP_PIPELINE``; ``module`` itself is unchanged.

    >>> from tinycomp.ir import parse
    >>> m = parse('''gpu.module @kernels { gpu.func @k(%o: memref<?xi32>) kernel {
    ...   %c0 = arith.constant 0 : index
    ...   %a = arith.constant 2 : i32
    ...   %b = arith.addi %a, %a : i32
    ...   memref.store %b, %o[%c0] : memref<?xi32>
    ...   gpu.return } }''')
    >>> print(next(op for op in cleaned_up(m).walk() if op.name == "memref.store"))
    memref.store %c4_i32, %o[%c0] : memref<?xi32>
    """
    copy = module.clone()
    PassManager.parse(CLEANUP_PIPELINE, print_after_each=False).run(copy)
    return copy


_CLEANED: weakref.WeakKeyDictionary[Operation, Operation] = weakref.WeakKeyDictionary()
"""Module -> its cleaned copy (dropped with the module)."""


def cleaned_once(module: ModuleOp | Operation) -> ModuleOp | Operation:
    """``cleaned_up(module)``, computed the first time and kept while ``module`` lives: the
    same copy comes back for the same module object. For IR that is never changed in
    place (``Kernel.specialize`` builds each specialisation once); the copy is shared, so
    copy it before changing it.

    >>> from tinycomp.ir import parse
    >>> m = parse("gpu.module @kernels { gpu.func @k() kernel { gpu.return } }")
    >>> cleaned_once(m) is cleaned_once(m), cleaned_once(m) is m
    (True, False)
    """
    copy = _CLEANED.get(module)
    if copy is None:
        copy = _CLEANED[module] = cleaned_up(module)
    return copy
