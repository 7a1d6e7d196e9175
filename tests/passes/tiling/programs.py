"""Programs the tiling tests run: each with random inputs and a numpy reference.

``PROGRAMS`` maps a name to a ``Program``: a way to build a fresh module (traced with
``tinycomp.trace`` or parsed from text), an input maker (fixed seed, random values) and
the numpy reference of what ``@main`` returns. ``tiled_and_checked`` applies a tiling to
a copy and checks the numbers against the untiled module and numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import ml_dtypes
import numpy as np

import tinycomp.dialects.linalg  # noqa: F401  (the texts use these dialects)
import tinycomp.dialects.math  # noqa: F401
import tinycomp.dialects.scf  # noqa: F401
import tinycomp.dialects.tensor  # noqa: F401
from tinycomp.frontend import exp, layernorm, softmax, tanh, trace, transpose
from tinycomp.frontend import max as reduce_max
from tinycomp.frontend import sum as reduce_sum
from tinycomp.interp import interpret
from tinycomp.ir import Operation, parse

DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
TOLERANCES = {"f32": (1e-5, 1e-5), "f16": (2e-2, 2e-2), "bf16": (8e-2, 8e-2)}
"""(rtol, atol) per dtype for comparisons with numpy in float64."""


@dataclass
class Program:
    """A test program: ``build(inputs)`` gives the module, ``reference(*inputs)`` numpy's
    answer, ``inputs(seed, dtype)`` the arguments of ``@main``."""

    build: Callable[[list[np.ndarray]], Operation]
    inputs: Callable[[int, type], list[np.ndarray]]
    reference: Callable[..., np.ndarray]


def normal(seed: int, dtype, *shapes) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def conv_reference(x: np.ndarray, w: np.ndarray, stride: int) -> np.ndarray:
    """NHWC input, HWCF filter, no padding."""
    kh, kw = w.shape[:2]
    oh = (x.shape[1] - kh) // stride + 1
    ow = (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            window = x[:, i : i + stride * oh : stride, j : j + stride * ow : stride, :]
            out += np.einsum("nhwc,cf->nhwf", window.astype(np.float64), w[i, j])
    return out


CONV = """
func.func @main(%x: tensor<1x9x11x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x5x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x5x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x11x3xf32>, tensor<3x3x3x4xf32>)
      outs(%init : tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32>
  return %y : tensor<1x4x5x4xf32>
}
"""

DYNAMIC_MATMUL = """
func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>)
    -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

INDEX_PAYLOAD = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<5x6xf32>, %y: tensor<5x6xf32>) -> tensor<5x6xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x6xf32>) outs(%y : tensor<5x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ten = arith.constant 10 : index
    %k = arith.muli %i, %ten : index
    %ij = arith.addi %k, %j : index
    %n = arith.index_cast %ij : index to i32
    %f = arith.sitofp %n : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}
"""

STENCIL = """
func.func @main(%x: tensor<9xf32>, %z: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %z : tensor<9xf32>, tensor<8xf32>) outs(%y : tensor<8xf32>) {
  ^bb0(%next: f32, %here: f32, %out: f32):
    %d = arith.subf %next, %here : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
"""


def _index_reference(x, y):
    return x + 10 * np.arange(5)[:, None] + np.arange(6)[None, :]


def _layernorm_reference(x, gamma, beta):
    x64 = x.astype(np.float64)
    centered = x64 - x64.mean(axis=-1, keepdims=True)
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(variance + 1e-5) * gamma + beta


def _softmax_reference(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _parsed(text: str) -> Callable[[list[np.ndarray]], Operation]:
    return lambda inputs: parse(text)


def _traced(fn) -> Callable[[list[np.ndarray]], Operation]:
    return lambda inputs: trace(fn, *inputs)


PROGRAMS: dict[str, Program] = {
    "matmul": Program(
        _traced(lambda a, b: a @ b),
        lambda seed, dt: normal(seed, dt, (7, 5), (5, 6)),
        lambda a, b: a.astype(np.float64) @ b,
    ),
    "elementwise_chain": Program(
        _traced(lambda a, b: tanh(a * b) + exp(b) - a),
        lambda seed, dt: normal(seed, dt, (6, 7), (6, 7)),
        lambda a, b: np.tanh(a.astype(np.float64) * b) + np.exp(b.astype(np.float64)) - a,
    ),
    "broadcast_add": Program(
        _traced(lambda a, bias: exp(a) + bias),
        lambda seed, dt: normal(seed, dt, (5, 6), (6,)),
        lambda a, bias: np.exp(a.astype(np.float64)) + bias,
    ),
    "row_sum": Program(
        _traced(lambda a: reduce_sum(a, axis=-1)),
        lambda seed, dt: normal(seed, dt, (5, 9)),
        lambda a: a.astype(np.float64).sum(axis=-1),
    ),
    "row_max": Program(
        _traced(lambda a: reduce_max(a, axis=-1)),
        lambda seed, dt: normal(seed, dt, (5, 9)),
        lambda a: a.astype(np.float64).max(axis=-1),
    ),
    "softmax": Program(
        _traced(softmax),
        lambda seed, dt: normal(seed, dt, (5, 7)),
        _softmax_reference,
    ),
    "layernorm": Program(
        _traced(layernorm),
        lambda seed, dt: normal(seed, dt, (4, 6), (6,), (6,)),
        _layernorm_reference,
    ),
    "transpose": Program(
        _traced(lambda a: transpose(a) * 2.0),
        lambda seed, dt: normal(seed, dt, (4, 7)),
        lambda a: a.T.astype(np.float64) * 2.0,
    ),
    "conv2d_stride2": Program(
        _parsed(CONV),
        lambda seed, dt: normal(seed, dt, (1, 9, 11, 3), (3, 3, 3, 4)),
        lambda x, w: conv_reference(x, w, 2),
    ),
    "index_payload": Program(
        _parsed(INDEX_PAYLOAD),
        lambda seed, dt: normal(seed, dt, (5, 6), (5, 6)),
        _index_reference,
    ),
    "stencil": Program(
        _parsed(STENCIL),
        lambda seed, dt: normal(seed, dt, (9,), (8,), (8,)),
        lambda x, z, y: x[1:].astype(np.float64) - z,
    ),
}
"""Every program: name -> how to build it, its inputs and numpy's answer."""

TRACEABLE_IN_ANY_DTYPE = [
    "matmul", "elementwise_chain", "broadcast_add", "row_sum", "row_max", "softmax",
    "transpose",
]  # fmt: skip
"""Programs traced from numpy inputs, so they take f16 and bf16 inputs too."""


def build(name: str, seed: int = 0, dtype: str = "f32") -> tuple[Operation, list[np.ndarray]]:
    """A fresh module for program ``name`` and its random inputs."""
    program = PROGRAMS[name]
    inputs = program.inputs(seed, DTYPES[dtype])
    return program.build(inputs), inputs


def check_numbers(name: str, tiled: Operation, inputs: list[np.ndarray], dtype: str = "f32"):
    """The tiled module agrees with the untiled one and with numpy."""
    untiled, _ = build(name, dtype=dtype)
    untiled_result = np.asarray(interpret(untiled, *inputs), dtype=np.float64)
    tiled_result = np.asarray(interpret(tiled, *inputs), dtype=np.float64)
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(tiled_result, untiled_result, rtol=rtol, atol=atol)
    reference = PROGRAMS[name].reference(*inputs)
    np.testing.assert_allclose(tiled_result, reference, rtol=rtol, atol=atol)


def linalg_ops(module: Operation) -> list[Operation]:
    """The linalg ops of ``module`` (payload ops excluded)."""
    return [op for op in module.walk() if op.name.startswith("linalg.") and op.regions]


def top_level_ops(module: Operation) -> list[str]:
    """Names of the ops directly in ``@main``'s body."""
    main = next(op for op in module.body.ops if op.name == "func.func")
    return [op.name for op in main.regions[0].blocks[0].ops]
