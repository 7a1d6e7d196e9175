"""Operand packing: copy a block of A and a panel of B into the order the micro-kernel reads.

The micro-kernel (``microkernel.py``) reads, at each step ``p`` of its loop, MR
consecutive floats of A and NR consecutive floats of B. In the row-major operands
those are scattered (a column of A is ``MR`` rows apart); packing copies them once
per block so that every later read is contiguous, and lands in cache lines that are
all used. The copies also fix the edges: a sliver that runs past the matrix is
padded with zeros, so the micro-kernel always computes a full MR x NR tile.

``pack_a``: the ``mc x kc`` block of A at ``(i0, k0)`` as ``ceil(mc/MR)`` slivers of
MR rows; sliver ``s`` starts at ``s * MR * kc`` (``= ir * kc`` for its first row ``ir``)::

    packed[ir*kc + p*MR + r] = A[i0 + ir + r, k0 + p]    (0 where ir + r >= mc)

``pack_b``: the ``kc x nc`` panel of B at ``(k0, j0)`` as ``ceil(nc/NR)`` slivers of NR
columns; sliver ``t`` starts at ``t * NR * kc`` (``= jr * kc``)::

    packed[jr*kc + p*NR + q] = B[k0 + p, j0 + jr + q]    (0 where jr + q >= nc)

The steps, for each sliver:

1. Its size inside the matrix: ``min(MR, mc - ir)`` rows (``min(NR, nc - jr)``
   columns).
2. A full sliver copies with no tests: for B, ``NR/lanes`` vector loads and stores per
   ``p`` (a row of B is contiguous); for A, MR scalar copies per ``p``, unrolled.
3. An edge sliver loops over all MR (NR) positions; a position outside the matrix
   stores 0. The load is made from a clamped position (``min(q, cols - 1)``), always
   inside the matrix, and ``arith.select`` picks the value or 0: no branch per element.

>>> from tinycomp.targets.cpu.blis.blocking import Blocking
>>> text = pack_b_ir(Blocking(mr=2, nr=8, kc=8, mc=2, nc=8, lanes=4))
>>> vector_ops = [line.strip() for line in text.splitlines() if "vector." in line]
>>> vector_ops  # doctest: +NORMALIZE_WHITESPACE
['%v_0 = vector.load %b[%k, %col0] : memref<?x?xf32>, vector<4xf32>',
 'vector.store %v_0, %packed[%to] : memref<?xf32>, vector<4xf32>',
 '%v_1 = vector.load %b[%k, %j_1] : memref<?x?xf32>, vector<4xf32>',
 'vector.store %v_1, %packed[%to_1] : memref<?xf32>, vector<4xf32>']
"""

from __future__ import annotations

from tinycomp.targets.cpu.blis.blocking import Blocking
from tinycomp.targets.cpu.blis.ir_text import FunctionWriter
from tinycomp.targets.cpu.blis.microkernel import MATRIX

__all__ = ["PACK_A", "PACK_B", "pack_a_ir", "pack_b_ir"]

PACK_A = "pack_a"
"""``@pack_a(%a, %packed, %i0, %k0, %mc, %kc)``."""
PACK_B = "pack_b"
"""``@pack_b(%b, %packed, %k0, %j0, %kc, %nc)``."""


def pack_a_ir(
    blocking: Blocking, name: str = PACK_A, a_type: str = MATRIX, private: bool = False
) -> str:
    """``@pack_a``: an ``mc x kc`` block of A into MR-row slivers (see above). ``a_type``
    is A's memref type: any strides (a transposed A is a view with its strides swapped)."""
    mr = blocking.mr
    f = FunctionWriter(
        name,
        f"%a: {a_type}, %packed: memref<?xf32>, %i0: index, %k0: index, %mc: index, %kc: index",
        private=private,
    )
    zero = f.constant("zero", "arith.constant 0.000000e+00 : f32")
    with f.region(f"scf.for %ir = {f.index(0)} to %mc step {f.index(mr)} {{"):
        f.line("%left = arith.subi %mc, %ir : index")  # step 1
        f.line(f"%rows = arith.minsi %left, {f.index(mr)} : index")
        f.line("%base = arith.muli %ir, %kc : index")
        f.line("%row0 = arith.addi %i0, %ir : index")
        f.line(f"%full = arith.cmpi eq, %rows, {f.index(mr)} : index")
        with f.region("scf.if %full {", "} else {"):  # step 2
            with f.region(f"scf.for %p = {f.index(0)} to %kc step {f.index(1)} {{"):
                f.line("%k = arith.addi %k0, %p : index")
                f.line(f"%step = arith.muli %p, {f.index(mr)} : index")
                f.line("%to = arith.addi %base, %step : index")
                for r in range(mr):
                    row = "%row0" if r == 0 else f"%i_{r}"
                    to = "%to" if r == 0 else f"%to_{r}"
                    if r:
                        f.line(f"{row} = arith.addi %row0, {f.index(r)} : index")
                        f.line(f"{to} = arith.addi %to, {f.index(r)} : index")
                    f.line(f"%x_{r} = memref.load %a[{row}, %k] : {a_type}")
                    f.line(f"memref.store %x_{r}, %packed[{to}] : memref<?xf32>")
        with f.region(None):  # step 3
            f.line(f"%last = arith.subi %rows, {f.index(1)} : index")
            with f.region(f"scf.for %p = {f.index(0)} to %kc step {f.index(1)} {{"):
                f.line("%k = arith.addi %k0, %p : index")
                f.line(f"%step = arith.muli %p, {f.index(mr)} : index")
                f.line("%to = arith.addi %base, %step : index")
                with f.region(f"scf.for %r = {f.index(0)} to {f.index(mr)} step {f.index(1)} {{"):
                    f.line("%inside = arith.cmpi slt, %r, %rows : index")
                    f.line("%clamped = arith.minsi %r, %last : index")
                    f.line("%i = arith.addi %row0, %clamped : index")
                    f.line(f"%x = memref.load %a[%i, %k] : {a_type}")
                    f.line(f"%value = arith.select %inside, %x, {zero} : f32")
                    f.line("%at = arith.addi %to, %r : index")
                    f.line("memref.store %value, %packed[%at] : memref<?xf32>")
    f.line("return")
    return f.text()


def pack_b_ir(
    blocking: Blocking,
    name: str = PACK_B,
    b_type: str = MATRIX,
    private: bool = False,
    rows_contiguous: bool = True,
) -> str:
    """``@pack_b``: a ``kc x nc`` panel of B into NR-column slivers (see above).

    ``rows_contiguous``: a row of B is contiguous (``b_type``'s last stride is 1), so a
    full sliver copies with vector loads (step 2); otherwise (a transposed B, as in
    attention's ``q @ k^T``) every sliver takes the scalar path of step 3.
    """
    nr, lanes = blocking.nr, blocking.lanes
    vector = f"vector<{lanes}xf32>"
    f = FunctionWriter(
        name,
        f"%b: {b_type}, %packed: memref<?xf32>, %k0: index, %j0: index, %kc: index, %nc: index",
        private=private,
    )
    zero = f.constant("zero", "arith.constant 0.000000e+00 : f32")
    with f.region(f"scf.for %jr = {f.index(0)} to %nc step {f.index(nr)} {{"):
        f.line("%left = arith.subi %nc, %jr : index")  # step 1
        f.line(f"%cols = arith.minsi %left, {f.index(nr)} : index")
        f.line("%base = arith.muli %jr, %kc : index")
        f.line("%col0 = arith.addi %j0, %jr : index")
        if not rows_contiguous:
            _pack_b_edge(f, nr, zero, b_type)
        else:
            f.line(f"%full = arith.cmpi eq, %cols, {f.index(nr)} : index")
            with f.region("scf.if %full {", "} else {"):  # step 2
                with f.region(f"scf.for %p = {f.index(0)} to %kc step {f.index(1)} {{"):
                    f.line("%k = arith.addi %k0, %p : index")
                    f.line(f"%step = arith.muli %p, {f.index(nr)} : index")
                    f.line("%to = arith.addi %base, %step : index")
                    for j in range(blocking.vectors_per_row):
                        col = "%col0" if j == 0 else f"%j_{j}"
                        to = "%to" if j == 0 else f"%to_{j}"
                        if j:
                            f.line(f"{col} = arith.addi %col0, {f.index(j * lanes)} : index")
                            f.line(f"{to} = arith.addi %to, {f.index(j * lanes)} : index")
                        f.line(f"%v_{j} = vector.load %b[%k, {col}] : {b_type}, {vector}")
                        f.line(f"vector.store %v_{j}, %packed[{to}] : memref<?xf32>, {vector}")
            with f.region(None):  # step 3
                _pack_b_edge(f, nr, zero, b_type)
    f.line("return")
    return f.text()


def _pack_b_edge(f: FunctionWriter, nr: int, zero: str, b_type: str) -> None:
    """Step 3 for B: every position of the sliver, 0 outside the matrix."""
    f.line(f"%last = arith.subi %cols, {f.index(1)} : index")
    with f.region(f"scf.for %p = {f.index(0)} to %kc step {f.index(1)} {{"):
        f.line("%k = arith.addi %k0, %p : index")
        f.line(f"%step = arith.muli %p, {f.index(nr)} : index")
        f.line("%to = arith.addi %base, %step : index")
        with f.region(f"scf.for %q = {f.index(0)} to {f.index(nr)} step {f.index(1)} {{"):
            f.line("%inside = arith.cmpi slt, %q, %cols : index")
            f.line("%clamped = arith.minsi %q, %last : index")
            f.line("%j = arith.addi %col0, %clamped : index")
            f.line(f"%x = memref.load %b[%k, %j] : {b_type}")
            f.line(f"%value = arith.select %inside, %x, {zero} : f32")
            f.line("%at = arith.addi %to, %q : index")
            f.line("memref.store %value, %packed[%at] : memref<?xf32>")
