"""The BLIS functions a compiled module gets: named by their blocking, on strided views.

The ``cpu-contraction-to-blis`` pass replaces a contraction by a call to a GEMM driver
(``gemm.py``'s five loops) and inserts the driver, its two packing functions and its
micro-kernel into the module as private ``func.func``s. Two contractions with the same
blocking share them, so each function's name says what it was generated for::

    @blis_6x16_kc168_mc192_nc2720_gemm_bn       C = A @ B, B's rows contiguous
    @blis_6x16_kc168_mc192_nc2720_gemm_bt_acc   C += A @ B, B read with any strides
    @blis_6x16_kc168_mc192_nc2720_pack_a        any strides (A or A^T)
    @blis_6x16_kc168_mc192_nc2720_pack_b        vector loads along a row of B
    @blis_6x16_kc168_mc192_nc2720_pack_b_strided
    @blis_6x16_kc168_mc192_nc2720_microkernel

The operands are views of the caller's buffers with a strided layout (``STRIDED``: any
strides and offset; ``ROWS``: the last stride is 1, which vector loads and stores of C
and of B's rows need). A transposed operand is the same buffer seen with its two strides
swapped, so ``q @ k^T`` needs no copy: only its packing reads B column by column.

>>> from tinycomp.targets.cpu.blis.blocking import Blocking
>>> texts = gemm_functions(Blocking(mr=2, nr=8, kc=8, mc=2, nc=8, lanes=4),
...                        b_rows_contiguous=False, accumulate=True)
>>> list(texts)  # doctest: +NORMALIZE_WHITESPACE
['blis_2x8_kc8_mc2_nc8_gemm_bt_acc', 'blis_2x8_kc8_mc2_nc8_pack_a',
 'blis_2x8_kc8_mc2_nc8_pack_b_strided', 'blis_2x8_kc8_mc2_nc8_microkernel']
>>> print(texts["blis_2x8_kc8_mc2_nc8_pack_a"].split(", %packed")[0])
func.func private @blis_2x8_kc8_mc2_nc8_pack_a(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>
"""

from __future__ import annotations

from tinycomp.targets.cpu.blis.blocking import Blocking
from tinycomp.targets.cpu.blis.gemm import gemm_ir
from tinycomp.targets.cpu.blis.microkernel import microkernel_ir
from tinycomp.targets.cpu.blis.packing import pack_a_ir, pack_b_ir

__all__ = ["ROWS", "STRIDED", "blis_prefix", "driver_name", "gemm_functions"]

STRIDED = "memref<?x?xf32, strided<[?, ?], offset: ?>>"
"""A matrix view with any strides and offset."""
ROWS = "memref<?x?xf32, strided<[?, 1], offset: ?>>"
"""A matrix view whose rows are contiguous."""


def blis_prefix(blocking: Blocking) -> str:
    """The names' common part: ``blis_<MR>x<NR>_kc<KC>_mc<MC>_nc<NC>``.

    >>> blis_prefix(Blocking(mr=6, nr=16, kc=168, mc=192, nc=2720, lanes=8))
    'blis_6x16_kc168_mc192_nc2720'
    """
    b = blocking
    return f"blis_{b.mr}x{b.nr}_kc{b.kc}_mc{b.mc}_nc{b.nc}"


def driver_name(blocking: Blocking, b_rows_contiguous: bool, accumulate: bool) -> str:
    """The GEMM driver's name for this blocking, B's layout and beta."""
    layout = "bn" if b_rows_contiguous else "bt"
    return f"{blis_prefix(blocking)}_gemm_{layout}" + ("_acc" if accumulate else "")


def gemm_functions(blocking: Blocking, b_rows_contiguous: bool, accumulate: bool) -> dict[str, str]:
    """Name -> text of the driver and the three functions it calls (see above)."""
    prefix = blis_prefix(blocking)
    pack_a = f"{prefix}_pack_a"
    pack_b = f"{prefix}_pack_b" + ("" if b_rows_contiguous else "_strided")
    micro = f"{prefix}_microkernel"
    b_type = ROWS if b_rows_contiguous else STRIDED
    driver = driver_name(blocking, b_rows_contiguous, accumulate)
    return {
        driver: gemm_ir(
            blocking,
            name=driver,
            callees=(pack_a, pack_b, micro),
            types=(STRIDED, b_type, ROWS),
            accumulate=accumulate,
            private=True,
        ),
        pack_a: pack_a_ir(blocking, name=pack_a, a_type=STRIDED, private=True),
        pack_b: pack_b_ir(
            blocking, name=pack_b, b_type=b_type, private=True, rows_contiguous=b_rows_contiguous
        ),
        micro: microkernel_ir(blocking, name=micro, c_type=ROWS, private=True),
    }
