"""``tinycomp.interpret`` runs host functions that launch kernels (``gpu.launch_func``)
on the simulator, once ``tinycomp.gpu`` is imported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinycomp.gpu  # noqa: F401  (registers the gpu.launch_func rule)
from tinycomp.interp import InterpreterError, interpret
from tinycomp.ir import parse
from tinycomp.ir.errors import VerifyError

CORPUS_LAUNCH = Path(__file__).parents[1] / "ir" / "corpus" / "gpu_kernels_launch.mlir"
RNG = np.random.default_rng(5)


def test_the_corpus_launch_module_runs_saxpy_twice():
    module = parse(CORPUS_LAUNCH.read_text())
    a = np.float32(RNG.uniform(0.5, 2))
    x = RNG.standard_normal(1000).astype(np.float32)
    y = RNG.standard_normal(1000).astype(np.float32)
    expected = a * x + (a * x + y)
    interpret(module, a, x, y, 1000, entry="main")
    np.testing.assert_allclose(y, expected, rtol=1e-6)


HOST_AND_KERNEL = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @square(%src: memref<?xf32>, %dst: memref<?xf32>, %n: index) kernel {
      %bx = gpu.block_id x
      %bd = gpu.block_dim x
      %tx = gpu.thread_id x
      %base = arith.muli %bx, %bd : index
      %i = arith.addi %base, %tx : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %src[%i] : memref<?xf32>
        %w = arith.mulf %v, %v : f32
        memref.store %w, %dst[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @main(%src: memref<?xf32>, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %blocks = arith.ceildivui %n, %c64 : index
    %dst = memref.alloc(%n) : memref<?xf32>
    gpu.launch_func @kernels::@square blocks in (%blocks, %c1, %c1)
        threads in (%c64, %c1, %c1) args(%src : memref<?xf32>, %dst : memref<?xf32>, %n : index)
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %dst[%i] : memref<?xf32>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    memref.dealloc %dst : memref<?xf32>
    return %sum : f32
  }
}
"""


def test_host_code_reads_what_the_kernel_wrote_into_an_allocation():
    x = RNG.standard_normal(150).astype(np.float32)
    total = interpret(parse(HOST_AND_KERNEL), x, 150, entry="main")
    np.testing.assert_allclose(total, np.sum(x * x, dtype=np.float64), rtol=1e-5)


def test_an_element_the_kernel_did_not_write_stays_uninitialised():
    # the kernel writes n = 100 elements of a 150-element allocation; host code reads 150
    text = HOST_AND_KERNEL.replace(
        "args(%src : memref<?xf32>, %dst : memref<?xf32>, %n : index)",
        "args(%src : memref<?xf32>, %dst : memref<?xf32>, %c100 : index)",
    ).replace(
        "%c64 = arith.constant 64 : index",
        "%c64 = arith.constant 64 : index\n    %c100 = arith.constant 100 : index",
    )
    x = RNG.uniform(1, 2, 150).astype(np.float32)
    with pytest.raises(InterpreterError, match=r"reads .*\[100\], which was never written"):
        interpret(parse(text), x, 150, entry="main")


def test_a_kernel_error_names_the_launch_and_the_kernel():
    # 64 threads per block but only 100 elements in the source: the guard is removed
    text = HOST_AND_KERNEL.replace("arith.cmpi ult, %i, %n", "arith.cmpi ult, %i, %c1000")
    text = text.replace(
        "%tx = gpu.thread_id x", "%tx = gpu.thread_id x\n      %c1000 = arith.constant 1000 : index"
    )
    x = RNG.standard_normal(100).astype(np.float32)
    with pytest.raises(InterpreterError) as error:
        interpret(parse(text), x, 100, entry="main")
    message = str(error.value)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "gpu.launch_func" in row)
    assert message.startswith(f"'gpu.launch_func' at line {line}: kernel 'square'")
    assert "src[100]" in message and "outside the shape (100,)" in message


def test_an_unknown_kernel_is_named():
    text = HOST_AND_KERNEL.replace("@kernels::@square blocks", "@kernels::@cube blocks")
    with pytest.raises(VerifyError, match="kernel function '@kernels::@cube' is undefined"):
        interpret(parse(text), np.ones(4, np.float32), 4, entry="main")
