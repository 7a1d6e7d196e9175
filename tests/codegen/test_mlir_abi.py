"""tinycomp's functions have MLIR's calling convention: checked against real MLIR.

The ``loops`` stage of a kernel is lowered by ``mlir-opt-22`` (``-convert-to-llvm``)
and translated by ``mlir-translate-22 --mlir-to-llvmir``; the LLVM IR MLIR produced is
then JIT-compiled with tinycomp's packed wrapper (built from the signature *tinycomp*
emitted) and called through tinycomp's ``CpuFunction``. If the two ABIs differed in
the order or number of the memref descriptor fields, the call would read garbage;
instead MLIR's code and tinycomp's code return the same bits. (MLIR copies strided
memrefs with a runtime function, ``memrefCopy``, from its C runner library: the test
loads that library into the process so the JIT can link against it.)
"""

from __future__ import annotations

import shutil
import subprocess

import llvmlite.binding as llvm
import numpy as np
import pytest
from interp.test_mlir_runner import RUNNER_LIBRARIES
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

import tinycomp
from tinycomp import CompileOptions
from tinycomp.codegen.cpu import jit
from tinycomp.codegen.cpu.calling import CpuFunction
from tinycomp.codegen.cpu.optimize import optimize
from tinycomp.codegen.cpu.packed import PACKED_PREFIX, packed_wrapper
from tinycomp.codegen.cpu.target import target_machine
from tinycomp.codegen.llvm import emit_llvm
from tinycomp.testing import KERNELS

pytestmark = pytest.mark.mlir

MLIR_TRANSLATE = shutil.which("mlir-translate-22")
requires_mlir_translate = pytest.mark.skipif(
    MLIR_TRANSLATE is None or not RUNNER_LIBRARIES,
    reason="mlir-translate-22 or MLIR's runner libraries are missing (package mlir-22-tools)",
)
TO_LLVM = (
    "-lower-affine", "-convert-scf-to-cf", "-expand-strided-metadata", "-lower-affine",
    "-convert-to-llvm", "-reconcile-unrealized-casts",
)  # fmt: skip
SHAPES = {"softmax": {"rows": 5, "cols": 7}, "matmul": {"m": 5, "k": 6, "n": 7},
          "conv2d": {"n": 1, "h": 5, "w": 6, "c": 2, "f": 3, "kh": 3, "kw": 2}}  # fmt: skip


def mlir_function(loops_module, opt_level: int) -> tuple[CpuFunction, object]:
    """``@main`` as MLIR compiles it, callable through tinycomp's packed interface."""
    lowered = run_mlir_opt(str(loops_module), *TO_LLVM)
    translated = subprocess.run(
        [MLIR_TRANSLATE, "--mlir-to-llvmir"], input=lowered, capture_output=True, text=True
    )
    assert translated.returncode == 0, translated.stderr
    ours = emit_llvm(loops_module).functions["main"]  # the signature tinycomp emits
    for library in RUNNER_LIBRARIES:  # memrefCopy lives there
        llvm.load_library_permanently(str(library))
    module = llvm.parse_assembly(translated.stdout + "\n" + packed_wrapper(ours))
    module.verify()
    machine = target_machine(opt_level)
    optimize(module, machine, opt_level)
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    address = engine.get_function_address(PACKED_PREFIX + "main")
    return CpuFunction(ours.op, address, engine), engine


@requires_mlir_opt
@requires_mlir_translate
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_mlir_compiled_kernels_take_tinycomp_arguments(name):
    kernel = KERNELS[name]
    shape = SHAPES[name]
    inputs = kernel.make_inputs(np.random.default_rng(17), "f32", **shape)
    options = CompileOptions(tile_sizes=(2, 3))
    loops = tinycomp.compile(kernel.trace("f32", **shape), options=options).module
    theirs, _ = mlir_function(loops, opt_level=2)
    ours = jit(loops, opt_level=2)["main"]
    np.testing.assert_array_equal(theirs.run(*inputs), ours.run(*inputs))
