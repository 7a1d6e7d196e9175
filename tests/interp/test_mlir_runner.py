"""The interpreter against real MLIR: the same linalg.generic kernels on memrefs, lowered
by ``mlir-opt-22`` to LLVM and run by ``mlir-runner-22``.

Each test builds one module: the inputs as ``memref.global`` constants holding random
values, the kernel ``@kernel`` (the text the interpreter runs), and a ``@main`` that
calls it and prints the result's *bits* (``arith.bitcast`` to ``i32``, then
``printMemrefI32``), so the comparison is exact, not limited to six printed digits.
Matmul and conv2d must agree bit for bit (same loop order, no contraction into FMAs);
softmax calls libm's ``expf``, so it may differ by an ulp or two.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ir.mlir_opt import MLIR_OPT

from interp import kernels
from interp.helpers import run

MLIR_RUNNER = shutil.which("mlir-runner-22")


def runner_libraries() -> list[Path]:
    """The runtime libraries next to the runner (``<llvm>/bin/mlir-runner`` ->
    ``<llvm>/lib/libmlir_runner_utils.so*``); Debian ships them only with a version suffix."""
    if MLIR_RUNNER is None:
        return []
    lib = Path(MLIR_RUNNER).resolve().parent.parent / "lib"
    found = []
    for name in ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"):
        candidates = sorted(lib.glob(name + "*"))
        if not candidates:
            return []
        found.append(candidates[0])
    return found


RUNNER_LIBRARIES = runner_libraries()
LOWERING = [
    "-convert-linalg-to-loops",
    "-lower-affine",
    "-convert-scf-to-cf",
    "-convert-to-llvm",
    "-reconcile-unrealized-casts",
]

requires_mlir_runner = pytest.mark.skipif(
    MLIR_OPT is None or MLIR_RUNNER is None or not RUNNER_LIBRARIES,
    reason="mlir-opt-22, mlir-runner-22 or the MLIR runner libraries are not installed "
    "(Debian package mlir-22-tools)",
)

pytestmark = [pytest.mark.mlir, requires_mlir_runner]


def memref_type(shape) -> str:
    return "memref<" + "x".join(map(str, shape)) + "xf32>"


def dense_literal(values: np.ndarray) -> str:
    """``dense<[[...]]>`` with each f32 written exactly (shortest round-trip decimal)."""
    if values.ndim == 0:
        return repr(float(values))
    return "[" + ", ".join(dense_literal(row) for row in values) + "]"


def global_op(name: str, values: np.ndarray) -> str:
    return (
        f'memref.global "private" constant @{name} : {memref_type(values.shape)} = '
        f"dense<{dense_literal(values)}>"
    )


def runner_module(kernel: str, inputs: dict[str, np.ndarray], output: str) -> str:
    """Globals for ``inputs`` (in the kernel's argument order), ``kernel``, and a
    ``@main`` that copies each into fresh memory, calls ``@kernel`` and prints the bits
    of the input called ``output``."""
    lines = [global_op(f"{name}_data", values) for name, values in inputs.items()]
    lines.append(kernel)
    body = []
    for name, values in inputs.items():
        t = memref_type(values.shape)
        body.append(f"  %{name}_global = memref.get_global @{name}_data : {t}")
        body.append(f"  %{name} = memref.alloc() : {t}")
        body.append(f"  memref.copy %{name}_global, %{name} : {t} to {t}")
    arguments = ", ".join(f"%{name}" for name in inputs)
    types = ", ".join(memref_type(v.shape) for v in inputs.values())
    body.append(f"  call @kernel({arguments}) : ({types}) -> ()")
    shape = inputs[output].shape
    t, bits_t = memref_type(shape), memref_type(shape).replace("f32", "i32")
    dims = ", ".join(f"d{i}" for i in range(len(shape)))
    identity = f"affine_map<({dims}) -> ({dims})>"
    parallel = ", ".join(['"parallel"'] * len(shape))
    body.append(f"  %bits = memref.alloc() : {bits_t}")
    body.append(
        f"  linalg.generic {{indexing_maps = [{identity}, {identity}], "
        f"iterator_types = [{parallel}]}} "
        f"ins(%{output} : {t}) outs(%bits : {bits_t}) {{\n"
        "  ^bb0(%x: f32, %o: i32):\n"
        "    %b = arith.bitcast %x : f32 to i32\n"
        "    linalg.yield %b : i32\n"
        "  }"
    )
    body.append(f"  %unranked = memref.cast %bits : {bits_t} to memref<*xi32>")
    body.append("  call @printMemrefI32(%unranked) : (memref<*xi32>) -> ()")
    lines.append("func.func @main() {\n" + "\n".join(body) + "\n  return\n}")
    lines.append("func.func private @printMemrefI32(memref<*xi32>)")
    return "\n".join(lines)


def run_with_mlir(module: str, shape, lowering=LOWERING) -> np.ndarray:
    """Lower ``module`` with the ``lowering`` flags and run it; return the printed bits as
    float32 values."""
    lowered = subprocess.run(
        [MLIR_OPT, *lowering], input=module, capture_output=True, text=True, check=False
    )
    assert lowered.returncode == 0, f"mlir-opt failed:\n{lowered.stderr}\n{module}"
    libraries = ",".join(str(p) for p in RUNNER_LIBRARIES)
    executed = subprocess.run(
        [MLIR_RUNNER, "-e", "main", "-entry-point-result=void", f"-shared-libs={libraries}"],
        input=lowered.stdout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert executed.returncode == 0, f"mlir-runner failed:\n{executed.stderr}"
    printed = executed.stdout.split("data =", 1)[1]
    numbers = [int(token) for token in re.findall(r"-?\d+", printed)]
    return np.array(numbers, dtype=np.int64).astype(np.int32).view(np.float32).reshape(shape)


def kernel_named(text: str) -> str:
    return text.replace("func.func @main(", "func.func @kernel(", 1)


def test_matmul_agrees_with_mlir_bit_for_bit():
    rng = np.random.default_rng(30)
    inputs = {
        "A": rng.standard_normal((6, 9)).astype(np.float32),
        "B": rng.standard_normal((9, 5)).astype(np.float32),
        "C": rng.standard_normal((6, 5)).astype(np.float32),
    }
    kernel = kernels.matmul_memrefs(6, 5, 9, name="kernel")
    from_mlir = run_with_mlir(runner_module(kernel, inputs, "C"), (6, 5))
    c = inputs["C"].copy()
    run(kernel, inputs["A"], inputs["B"], c, entry="kernel")
    np.testing.assert_array_equal(c.view(np.int32), from_mlir.view(np.int32))


def test_conv2d_stride_2_agrees_with_mlir_bit_for_bit():
    rng = np.random.default_rng(31)
    image = rng.standard_normal((1, 7, 9, 3)).astype(np.float32)
    inputs = {
        "I": np.pad(image, ((0, 0), (1, 1), (1, 1), (0, 0))),
        "K": rng.standard_normal((3, 3, 3, 4)).astype(np.float32),
        "O": rng.standard_normal((1, 4, 5, 4)).astype(np.float32),
    }
    kernel = kernels.conv_memrefs(
        inputs["I"].shape, inputs["K"].shape, inputs["O"].shape, 2, "kernel"
    )
    from_mlir = run_with_mlir(runner_module(kernel, inputs, "O"), inputs["O"].shape)
    out = inputs["O"].copy()
    run(kernel, inputs["I"], inputs["K"], out, entry="kernel")
    np.testing.assert_array_equal(out.view(np.int32), from_mlir.view(np.int32))


def test_softmax_agrees_with_mlir_within_two_ulps():
    rng = np.random.default_rng(32)
    inputs = {
        "X": (rng.standard_normal((4, 16)) * 3).astype(np.float32),
        "Y": rng.standard_normal((4, 16)).astype(np.float32),
    }
    kernel = kernels.softmax_memrefs(4, 16, name="kernel")
    from_mlir = run_with_mlir(runner_module(kernel, inputs, "Y"), (4, 16))
    y = inputs["Y"].copy()
    run(kernel, inputs["X"], y, entry="kernel")
    ulps = np.abs(y.view(np.int32).astype(np.int64) - from_mlir.view(np.int32).astype(np.int64))
    assert ulps.max() <= 2, ulps.max()
    np.testing.assert_allclose(y, kernels.softmax_reference(inputs["X"]), rtol=1e-5, atol=1e-7)
