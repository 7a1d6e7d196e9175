"""Tiled IR against real MLIR: ``mlir-opt-22`` accepts it, lowers it to LLVM, and
``mlir-runner-22`` computes the same numbers as the interpreter.

The lowering bufferizes the tiled tensors with MLIR's own ``--one-shot-bufferize``, so
these tests also show that the loops, slices and iter_args tiling emits are what MLIR's
bufferization expects.
"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from interp.test_mlir_runner import (
    MLIR_RUNNER,
    RUNNER_LIBRARIES,
    dense_literal,
    requires_mlir_runner,
)
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from passes.tiling.programs import PROGRAMS, build
from tinycomp.interp import interpret
from tinycomp.passes.tiling import TileAndFusePass, TilePass

pytestmark = [pytest.mark.mlir, requires_mlir_opt]

PASSES = {
    "tile": lambda: TilePass([2, 3, 2, 3]),
    "tile_partials": lambda: TilePass([2, 3, 2, 3], reduction="partials"),
    "tile_and_fuse": lambda: TileAndFusePass([2, 3, 2, 3], bind=["gpu.block.y"]),
}
LOWERING = [
    "--one-shot-bufferize=bufferize-function-boundaries",
    "-convert-linalg-to-loops",
    "-expand-strided-metadata",
    "-lower-affine",
    "-convert-scf-to-cf",
    "-convert-to-llvm",
    "-reconcile-unrealized-casts",
]


def tiled(name: str, how: str):
    module, inputs = build(name, seed=60)
    PASSES[how]().run(module)
    module.verify()
    return module, inputs


@pytest.mark.parametrize("how", sorted(PASSES))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_mlir_opt_verifies_tiled_ir(name, how):
    module, _ = tiled(name, how)
    run_mlir_opt(str(module), "--verify-each")


@pytest.mark.parametrize("how", sorted(PASSES))
@pytest.mark.parametrize("name", ["matmul", "softmax", "conv2d_stride2", "layernorm"])
def test_mlir_bufferizes_and_lowers_tiled_ir_to_llvm(name, how):
    module, _ = tiled(name, how)
    lowered = run_mlir_opt(str(module), *LOWERING)
    assert "llvm.func @main" in lowered and "scf.for" not in lowered


def with_bit_printing_main(kernel_module: str, inputs: list[np.ndarray], shape) -> str:
    """The module with ``@main`` renamed ``@kernel`` and a new ``@main`` that calls it on
    constant inputs and prints the result's bits (``printMemrefI32``), so the comparison
    is exact."""
    text = kernel_module.replace("func.func @main(", "func.func @kernel(", 1).rstrip()
    assert text.endswith("}")
    types = ["tensor<" + "x".join(map(str, a.shape)) + "xf32>" for a in inputs]
    out_type = "tensor<" + "x".join(map(str, shape)) + "xf32>"
    bits_type = out_type.replace("f32>", "i32>")
    dims = ", ".join(f"d{i}" for i in range(len(shape)))
    identity = f"affine_map<({dims}) -> ({dims})>"
    parallel = ", ".join(['"parallel"'] * len(shape))
    lines = ["func.func @main() {"]
    for number, (values, value_type) in enumerate(zip(inputs, types, strict=True)):
        constant = f"dense<{dense_literal(values)}> : {value_type}"
        lines.append(f"  %in{number} = arith.constant {constant}")
    arguments = ", ".join(f"%in{n}" for n in range(len(inputs)))
    lines += [
        f"  %r = call @kernel({arguments}) : ({', '.join(types)}) -> {out_type}",
        f"  %e = tensor.empty() : {bits_type}",
        f"  %bits = linalg.generic {{indexing_maps = [{identity}, {identity}], "
        f"iterator_types = [{parallel}]}} ins(%r : {out_type}) outs(%e : {bits_type}) {{",
        "  ^bb0(%x: f32, %o: i32):",
        "    %b = arith.bitcast %x : f32 to i32",
        "    linalg.yield %b : i32",
        f"  }} -> {bits_type}",
        f"  %u = tensor.cast %bits : {bits_type} to tensor<*xi32>",
        "  call @printMemrefI32(%u) : (tensor<*xi32>) -> ()",
        "  return",
        "}",
        "func.func private @printMemrefI32(tensor<*xi32>)",
    ]
    return text[:-1] + "\n".join(lines) + "\n}\n"


@requires_mlir_runner
@pytest.mark.parametrize("how", sorted(PASSES))
@pytest.mark.parametrize("name", ["matmul", "softmax", "conv2d_stride2"])
def test_mlir_runner_computes_the_same_bits_as_the_interpreter(name, how):
    module, inputs = tiled(name, how)
    expected = np.asarray(interpret(module, *inputs), dtype=np.float32)
    program = with_bit_printing_main(str(module), inputs, expected.shape)
    lowered = run_mlir_opt(program, *LOWERING)
    libraries = ",".join(str(p) for p in RUNNER_LIBRARIES)
    executed = subprocess.run(
        [MLIR_RUNNER, "-e", "main", "-entry-point-result=void", f"-shared-libs={libraries}"],
        input=lowered,
        capture_output=True,
        text=True,
        check=False,
    )
    assert executed.returncode == 0, executed.stderr
    printed = executed.stdout.split("data =", 1)[1]
    bits = np.array([int(t) for t in re.findall(r"-?\d+", printed)], dtype=np.int64)
    from_mlir = bits.astype(np.int32).view(np.float32).reshape(expected.shape)
    # libm's expf may differ from numpy's by an ulp; everything else must match exactly
    ulps = np.abs(from_mlir.view(np.int32).astype(np.int64) - expected.view(np.int32))
    assert ulps.max() <= (2 if name == "softmax" else 0), ulps.max()
