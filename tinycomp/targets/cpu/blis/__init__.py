"""The BLIS strategy's pieces, generated as tinycomp IR: blocking, packing, micro-kernel, loops.

In reading order:

* ``blocking``: MR, NR, KC, MC, NC by the analytical model of Low et al. (2016), from
  the machine model (``tinycomp.targets.cpu.machine``);
* ``ir_text``: writing generated functions as MLIR text;
* ``microkernel``: the MR x NR register-blocked kernel in the vector dialect;
* ``packing``: A into MR-row slivers, B into NR-column slivers, zero-padded, from
  operands in either orientation;
* ``gemm``: the five loops around them (``gemm_functions_ir``, what the
  ``cpu-contraction-to-blis`` pass inserts into a compiled module), and ``BlockedGemm``,
  the same functions JIT'ed on their own, to test and inspect them outside a program.

>>> from tinycomp.targets.cpu.machine import PRESETS
>>> choose_blocking(PRESETS["laptop-avx2"])
Blocking(mr=6, nr=16, kc=168, mc=192, nc=2720, lanes=8, itemsize=4)
"""

from tinycomp.targets.cpu.blis.blocking import Blocking, choose_blocking, register_tile
from tinycomp.targets.cpu.blis.gemm import BlockedGemm, gemm_module_ir
from tinycomp.targets.cpu.blis.microkernel import microkernel_ir
from tinycomp.targets.cpu.blis.packing import pack_a_ir, pack_b_ir

__all__ = [
    "BlockedGemm",
    "Blocking",
    "choose_blocking",
    "gemm_module_ir",
    "microkernel_ir",
    "pack_a_ir",
    "pack_b_ir",
    "register_tile",
]
