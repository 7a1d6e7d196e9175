"""The register-blocked micro-kernel, generated as tinycomp IR with the vector dialect.

The micro-kernel computes one MR x NR tile of ``C += A~ @ B~`` from packed slivers
(``packing.py``): ``A~`` holds MR rows for every k, contiguous (``a[a0 + p*MR + r]``),
``B~`` holds NR columns for every k, contiguous (``b[b0 + p*NR + j]``). The whole
tile of C lives in vector registers for the KC iterations, as ``iter_args`` of one
``scf.for``, so the loop touches memory only to read A and B. With ``v = NR / lanes``
vectors per row, one iteration ``p`` does::

    b_0 .. b_{v-1}   = vector.load  b[b0 + p*NR + lanes*j]          v loads
    for r in 0..MR-1:
      a_r            = memref.load  a[a0 + p*MR + r]
      splat_r        = vector.broadcast a_r                         MR broadcasts
      acc_r_j        = vector.fma splat_r, b_j, acc_r_j  (each j)   MR*v FMAs

The generator writes that body out for every ``r`` and ``j`` (unrolled in Python, so
the IR has no inner loops and every accumulator is its own SSA value that LLVM's
register allocator keeps in a register). After the loop the tile goes to C:

1. A full tile (``rows == MR`` and ``cols == NR``): each accumulator is one vector
   store, ``C[row + r, col + lanes*j : ...] = acc`` when ``overwrite`` (the first
   KC block) or ``C += acc`` otherwise (a vector load, add, store).
2. An edge tile: the accumulators go to a small MR x NR buffer on the stack
   (``memref.alloca``) and a scalar loop moves its ``rows x cols`` valid corner to C.
   The packed slivers are zero-padded at the edges, so the FMAs need no masks.

Why IR with the vector dialect, not LLVM IR text: the kernel is then an ordinary
tinycomp function that the interpreter can run (the tests do, on small tiles), that
``mlir-opt`` accepts, and that goes through the same LLVM emitter as every other
kernel (``vector.fma`` becomes ``@llvm.fma.v16f32``, then ``vfmadd231ps`` on ``zmm``
registers). MLIR's own micro-kernels are written the same way: ``vector.contract``
lowered to ``vector.outerproduct`` and then to ``vector.fma``.

>>> from tinycomp.targets.cpu.blis.blocking import Blocking
>>> text = microkernel_ir(Blocking(mr=2, nr=8, kc=8, mc=2, nc=8, lanes=4))
>>> fmas = [line.strip() for line in text.splitlines() if "vector.fma" in line]
>>> fmas  # doctest: +NORMALIZE_WHITESPACE
['%next_0_0 = vector.fma %splat_0, %b_0, %acc_0_0 : vector<4xf32>',
 '%next_0_1 = vector.fma %splat_0, %b_1, %acc_0_1 : vector<4xf32>',
 '%next_1_0 = vector.fma %splat_1, %b_0, %acc_1_0 : vector<4xf32>',
 '%next_1_1 = vector.fma %splat_1, %b_1, %acc_1_1 : vector<4xf32>']
"""

from __future__ import annotations

from tinycomp.targets.cpu.blis.blocking import Blocking
from tinycomp.targets.cpu.blis.ir_text import FunctionWriter

__all__ = ["MATRIX", "MICROKERNEL", "MICROKERNEL_PARAMETERS", "microkernel_ir"]

MICROKERNEL = "microkernel"
"""The function's name."""

MATRIX = "memref<?x?xf32>"
"""The type of a matrix operand of the standalone GEMM (``BlockedGemm``)."""

MICROKERNEL_PARAMETERS = (
    "%kc: index, %a: memref<?xf32>, %a0: index, %b: memref<?xf32>, %b0: index, "
    "%c: {c}, %row: index, %col: index, %rows: index, %cols: index, "
    "%overwrite: i1"
)
"""``kc`` steps over the A sliver at ``a[a0:]`` and the B sliver at ``b[b0:]``, into the
tile of ``c`` at ``(row, col)`` of which ``rows x cols`` are inside C."""


def microkernel_ir(
    blocking: Blocking, name: str = MICROKERNEL, c_type: str = MATRIX, private: bool = False
) -> str:
    """The micro-kernel ``func.func`` for ``blocking``'s MR, NR and lanes (see above);
    ``c_type`` is C's memref type (rows contiguous: its last stride is 1)."""
    mr, nr, lanes = blocking.mr, blocking.nr, blocking.lanes
    vectors = blocking.vectors_per_row
    vector = f"vector<{lanes}xf32>"
    f = FunctionWriter(name, MICROKERNEL_PARAMETERS.replace("{c}", c_type), private=private)
    f.constant("zero", "arith.constant 0.000000e+00 : f32")
    zeros = f.constant("zeros", f"vector.broadcast %zero : f32 to {vector}")
    f.line(f"%tile = memref.alloca() : memref<{mr}x{nr}xf32>")
    tiles = [(r, j) for r in range(mr) for j in range(vectors)]
    inits = ", ".join(f"%acc_{r}_{j} = {zeros}" for r, j in tiles)
    types = ", ".join([vector] * len(tiles))
    loop = f"%acc:{len(tiles)} = scf.for %p = {f.index(0)} to %kc step {f.index(1)}"
    with f.region(f"{loop} iter_args({inits}) -> ({types}) {{"):
        f.line(f"%a_step = arith.muli %p, {f.index(mr)} : index")
        f.line("%a_base = arith.addi %a0, %a_step : index")
        f.line(f"%b_step = arith.muli %p, {f.index(nr)} : index")
        f.line("%b_base = arith.addi %b0, %b_step : index")
        for j in range(vectors):
            at = _offset(f, "%b_base", j * lanes, f"%b_at_{j}")
            f.line(f"%b_{j} = vector.load %b[{at}] : memref<?xf32>, {vector}")
        for r in range(mr):
            at = _offset(f, "%a_base", r, f"%a_at_{r}")
            f.line(f"%a_{r} = memref.load %a[{at}] : memref<?xf32>")
            f.line(f"%splat_{r} = vector.broadcast %a_{r} : f32 to {vector}")
            for j in range(vectors):
                f.line(f"%next_{r}_{j} = vector.fma %splat_{r}, %b_{j}, %acc_{r}_{j} : {vector}")
        nexts = ", ".join(f"%next_{r}_{j}" for r, j in tiles)
        f.line(f"scf.yield {nexts} : {types}")
    _store_tile(f, blocking, c_type)
    f.line("return")
    return f.text()


def _store_tile(f: FunctionWriter, blocking: Blocking, c_type: str) -> None:
    """Steps 1 and 2 of the module docstring: the accumulators into C."""
    mr, nr, lanes = blocking.mr, blocking.nr, blocking.lanes
    vector = f"vector<{lanes}xf32>"
    vectors = blocking.vectors_per_row
    tiles = [(r, j) for r in range(mr) for j in range(vectors)]
    f.line(f"%full_rows = arith.cmpi eq, %rows, {f.index(mr)} : index")
    f.line(f"%full_cols = arith.cmpi eq, %cols, {f.index(nr)} : index")
    f.line("%full = arith.andi %full_rows, %full_cols : i1")
    with f.region("scf.if %full {", "} else {"):  # step 1: a full tile
        rows = [_offset(f, "%row", r, f"%c_row_{r}") for r in range(mr)]
        cols = [_offset(f, "%col", j * lanes, f"%c_col_{j}") for j in range(vectors)]
        with f.region("scf.if %overwrite {", "} else {"):  # C = acc
            for index, (r, j) in enumerate(tiles):
                f.line(f"vector.store %acc#{index}, %c[{rows[r]}, {cols[j]}] : {c_type}, {vector}")
        with f.region(None):  # C += acc
            for index, (r, j) in enumerate(tiles):
                at = f"%c[{rows[r]}, {cols[j]}] : {c_type}, {vector}"
                f.line(f"%old_{r}_{j} = vector.load {at}")
                f.line(f"%sum_{r}_{j} = arith.addf %old_{r}_{j}, %acc#{index} : {vector}")
                f.line(f"vector.store %sum_{r}_{j}, {at}")
    with f.region(None):  # step 2: an edge tile, through the stack buffer
        for index, (r, j) in enumerate(tiles):
            at = f"%tile[{f.index(r)}, {f.index(j * lanes)}]"
            f.line(f"vector.store %acc#{index}, {at} : memref<{mr}x{nr}xf32>, {vector}")
        with f.region(f"scf.for %r = {f.index(0)} to %rows step {f.index(1)} {{"):
            f.line("%i = arith.addi %row, %r : index")
            with f.region(f"scf.for %q = {f.index(0)} to %cols step {f.index(1)} {{"):
                f.line("%j = arith.addi %col, %q : index")
                f.line(f"%value = memref.load %tile[%r, %q] : memref<{mr}x{nr}xf32>")
                with f.region("scf.if %overwrite {", "} else {"):
                    f.line(f"memref.store %value, %c[%i, %j] : {c_type}")
                with f.region(None):
                    f.line(f"%old = memref.load %c[%i, %j] : {c_type}")
                    f.line("%sum = arith.addf %old, %value : f32")
                    f.line(f"memref.store %sum, %c[%i, %j] : {c_type}")


def _offset(f: FunctionWriter, base: str, offset: int, name: str) -> str:
    """``base + offset`` as a new index value ``name``; ``base`` itself for offset 0."""
    if offset == 0:
        return base
    f.line(f"{name} = arith.addi {base}, {f.index(offset)} : index")
    return name
