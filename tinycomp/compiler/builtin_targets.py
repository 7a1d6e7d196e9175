"""The targets tinycomp ships: the reference interpreter and this machine's CPU.

``interp`` runs the IR of any stage in the numpy reference interpreter; it has no
strategies, so its pipeline is the target-independent one of ``stages.py``.

``cpu`` compiles the ``loops`` stage to native code through LLVM, and picks a strategy
per kind of kernel:

* ``blis``: contractions go through the BLIS strategy (packing, the register-blocked
  micro-kernel, blocking from the machine model), as generated IR in the module;
* ``rows``: the kernels of a softmax / layernorm / rmsnorm row are tiled by rows and
  fused, so a row is read from memory once and stays in cache between its kernels;
* ``vector``: innermost loops are widened to the machine's SIMD width, with a scalar
  epilogue (and a narrower retry for loops too short for the full width);
* ``math``: ``math.exp``, ``log``, ``tanh``, ``erf`` become polynomials in arith ops, which
  stay in vector registers (LLVM would call the scalar ``expf`` once per lane).

``CompileOptions(strategies={"blis": False})`` turns one off (chapter 08's staircase is
the same ``compile`` call with more of them turned off).

>>> from tinycomp.compiler.targets import TARGETS
>>> [target.name for target in TARGETS.values()]
['interp', 'cpu', 'gpu-sim']
>>> [strategy.name for strategy in TARGETS["cpu"].strategies]
['blis', 'rows', 'vector', 'math']
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from tinycomp.compiler.options import CompileOptions
from tinycomp.compiler.targets import Strategy, Target, register_target
from tinycomp.ir.operation import Operation
from tinycomp.passes import CanonicalizePass, CSEPass, Pass
from tinycomp.passes.math_approximation import MathApproximationPass
from tinycomp.passes.row_strategy import RowStrategyPass
from tinycomp.passes.vectorize import VectorizeLoopsPass
from tinycomp.targets.cpu import CpuMachine, detect_machine
from tinycomp.targets.cpu.contraction_to_blis import CpuContractionToBlisPass

__all__ = ["CPU", "INTERP"]


def _cpu_backend(
    module: Operation, entry: str, result_shapes: Sequence[Any], options: CompileOptions
) -> Any:
    """The ``loops`` module JIT-compiled by LLVM for this machine."""
    from tinycomp.codegen.cpu.program import compile_for_cpu  # llvmlite: loaded when used

    return compile_for_cpu(module, entry, result_shapes, options.opt_level)


@cache
def host_machine() -> CpuMachine:
    """This machine's core, read once per process (caches, SIMD width)."""
    return detect_machine()


def _blis(options: CompileOptions) -> list[Pass]:
    return [CpuContractionToBlisPass(host_machine())]


def _rows(options: CompileOptions) -> list[Pass]:
    return [RowStrategyPass()]


def _vector(options: CompileOptions) -> list[Pass]:
    lanes = host_machine().lanes()
    return [VectorizeLoopsPass(vector_width=lanes, contract=True, min_width=4), CSEPass()]


def _math(options: CompileOptions) -> list[Pass]:
    return [MathApproximationPass(), CanonicalizePass(), CSEPass()]


INTERP = register_target(Target("interp", "the numpy reference interpreter, at any stage"))

CPU = register_target(
    Target(
        "cpu",
        "native code for this machine through LLVM",
        strategies=(
            Strategy("blis", "contractions (matmul, batch matmul, conv2d)", "bufferized", _blis),
            Strategy("rows", "softmax / layernorm / rmsnorm rows", "tiled", _rows),
            Strategy("vector", "elementwise and reduction loops", "loops", _vector),
            Strategy("math", "exp, log, tanh, erf as vectorizable polynomials", "loops", _math),
        ),
        final_stage="loops",
        backend=_cpu_backend,
    )
)
