"""The loop-level IR ``tinycomp.compile`` produces, run by real MLIR.

For every kernel of the catalogue (f32, tiled with sizes that do not divide the shapes),
the ``loops`` stage is handed to ``mlir-opt-22`` (which must accept it) and then lowered
to LLVM and run by ``mlir-runner-22``. The printed bits of the output must equal the
interpreter's within a few ulps: the loops are the same, but libm's ``expf``/``tanhf``/
``erff`` may round differently from numpy's (matmul and conv2d have no such calls and
must agree bit for bit).
"""

from __future__ import annotations

import numpy as np
import pytest
from interp.test_mlir_runner import LOWERING, requires_mlir_runner, run_with_mlir, runner_module
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

import tinycomp
from tinycomp import CompileOptions
from tinycomp.testing import KERNELS

from .test_stage_correctness import SMALL

pytestmark = pytest.mark.mlir

EXACT = {"matmul", "batch_matmul", "conv2d", "conv2d_plain"}

# Tiled, bufferized loops hold strided subviews: expand them into plain pointer arithmetic
# (MLIR's -expand-strided-metadata) before the memrefs become LLVM structs.
LOWERING_WITH_VIEWS = [LOWERING[0], "-expand-strided-metadata", *LOWERING[1:]]


def compiled_loops(name: str) -> tuple[tinycomp.compiler.CompiledProgram, tuple[np.ndarray, ...]]:
    kernel = KERNELS[name]
    module = kernel.trace("f32", **SMALL[name])
    program = tinycomp.compile(module, options=CompileOptions(tile_sizes=(2, 3)))
    inputs = kernel.make_inputs(np.random.default_rng(99), "f32", **SMALL[name])
    return program, inputs


def unwrapped(module_text: str) -> str:
    """The module's aliases and body without its ``module { ... }`` lines, so that the
    runner module can put the kernel next to its own functions."""
    lines = module_text.rstrip().splitlines()
    start = lines.index("module {")
    assert lines[-1] == "}", lines[-1]
    return "\n".join(lines[:start] + lines[start + 1 : -1])


@requires_mlir_opt
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_mlir_opt_accepts_every_stage(name):
    program, _ = compiled_loops(name)
    for stage, text in program.stages.items():
        try:
            run_mlir_opt(text, "--verify-each")
        except AssertionError as error:
            raise AssertionError(f"{name}, stage '{stage}': {error}") from None


@requires_mlir_runner
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_mlir_runner_computes_the_same_numbers(name):
    program, inputs = compiled_loops(name)
    expected = program(*inputs)
    kernel_text = unwrapped(program.stages["loops"]).replace(
        "func.func @main(", "func.func @kernel(", 1
    )
    named = {f"in{i}": array for i, array in enumerate(inputs)}
    named["out"] = np.zeros(expected.shape, np.float32)
    module = runner_module(kernel_text, named, "out")
    from_mlir = run_with_mlir(module, expected.shape, LOWERING_WITH_VIEWS)
    ulps = np.abs(
        expected.view(np.int32).astype(np.int64) - from_mlir.view(np.int32).astype(np.int64)
    )
    assert ulps.max() <= (0 if name in EXACT else 4), (name, ulps.max())
