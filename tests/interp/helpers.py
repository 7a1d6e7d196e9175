"""Small helpers shared by the interpreter tests: one-op functions and random inputs."""

from __future__ import annotations

import zlib

import ml_dtypes
import numpy as np

from tinycomp.interp import interpret

BF16 = np.dtype(ml_dtypes.bfloat16)

DTYPES = {
    "f16": np.dtype(np.float16),
    "bf16": BF16,
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(bool),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
}
"""MLIR element type -> numpy dtype."""

TOLERANCE = {"f16": 2e-3, "bf16": 2e-2, "f32": 2e-5, "f64": 1e-12}
"""Relative tolerances for kernels computed in each type (a few ulps of accumulation)."""


def unary_function(op_text: str, type_text: str, result_type: str | None = None) -> str:
    """``func.func @main(%a: T) -> R { %r = <op_text> %a : ...; return %r }``.

    ``op_text`` is the op with its operands and type, e.g. ``"math.exp %a : f32"``.
    """
    result_type = result_type or type_text
    return (
        f"func.func @main(%a: {type_text}) -> {result_type} {{\n"
        f"  %r = {op_text}\n"
        f"  return %r : {result_type}\n"
        "}"
    )


def binary_function(op_text: str, type_text: str, result_type: str | None = None) -> str:
    """Like ``unary_function`` with two arguments ``%a`` and ``%b`` of ``type_text``."""
    result_type = result_type or type_text
    return (
        f"func.func @main(%a: {type_text}, %b: {type_text}) -> {result_type} {{\n"
        f"  %r = {op_text}\n"
        f"  return %r : {result_type}\n"
        "}"
    )


def random_floats(rng: np.random.Generator, shape, dtype: np.dtype, scale: float = 1.0):
    """Normal random values rounded to ``dtype``."""
    return (rng.standard_normal(shape) * scale).astype(dtype)


def random_ints(rng: np.random.Generator, shape, dtype: np.dtype):
    """Uniform random integers over the whole range of ``dtype``, edge values included."""
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    flat = values.reshape(-1)
    edges = np.array([info.min, info.max, 0, -1, 1], dtype=dtype)
    flat[: min(len(edges), flat.size)] = edges[: flat.size]
    return values


def run(text: str, *arguments, **options):
    """``interpret`` with the module given as text."""
    return interpret(text, *arguments, **options)


# -- exact float references -----------------------------------------------------------------
_BIT_DTYPES = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
_OVERFLOW_POWER = {"float16": 16, "bfloat16": 128, "float32": 128, "float64": 1024}


def finite_floats_from_bits(rng: np.random.Generator, count: int, dtype: np.dtype):
    """Random finite values of ``dtype`` drawn from random bit patterns (so subnormals,
    huge and tiny values all appear)."""
    bits_dtype = _BIT_DTYPES[dtype.itemsize]
    info = np.iinfo(bits_dtype)
    values = np.empty(0, dtype)
    while values.size < count:
        bits = rng.integers(0, info.max, size=count, dtype=bits_dtype, endpoint=True)
        candidates = bits.view(dtype)
        with np.errstate(all="ignore"):
            finite = np.isfinite(candidates.astype(np.float64))
        values = np.concatenate([values, candidates[finite]])
    return values[:count].copy()


def exact_nearest(value, dtype: np.dtype):
    """The value of ``dtype`` nearest to the exact rational ``value`` (a ``Fraction``),
    ties to even, overflowing to inf as IEEE 754 says: an independent reference."""
    from fractions import Fraction

    bits_dtype = _BIT_DTYPES[dtype.itemsize]
    infinity_bits = int(np.array(np.inf, dtype=dtype).view(bits_dtype))
    finite_max = float(np.array(infinity_bits - 1, bits_dtype).view(dtype).astype(np.float64))
    approx = min(max(float(value), -finite_max), finite_max)
    with np.errstate(all="ignore"):
        start = np.array(approx).astype(dtype)
    center = int(start.view(bits_dtype))
    candidates = []
    for step in (-2, -1, 0, 1, 2):
        bits = center + step
        if not 0 <= bits <= np.iinfo(bits_dtype).max:
            continue
        candidate = np.array(bits, bits_dtype).view(dtype)
        with np.errstate(all="ignore"):
            as_float = float(candidate.astype(np.float64))
        if np.isnan(as_float):
            continue
        if np.isinf(as_float):  # inf rounds like 2**(emax+1) with an unbounded exponent
            magnitude = Fraction(2) ** _OVERFLOW_POWER[dtype.name]
            exact = magnitude if as_float > 0 else -magnitude
        else:
            exact = Fraction(as_float)
        candidates.append((abs(exact - value), bits & 1, bits, candidate))
    candidates.sort(key=lambda c: (c[0], c[1]))
    return candidates[0][3][()]


# -- linalg helpers ------------------------------------------------------------------------------
def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def sequential_matmul(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``c + a @ b`` accumulated over k in order, rounding in the dtype after each op:
    the loop nest's exact float behaviour."""
    acc = c.copy()
    for k in range(a.shape[1]):
        acc = acc + a[:, k : k + 1] * b[k : k + 1, :]
    return acc


def both_paths(text, *arguments):
    """Run ``text`` vectorized and point by point on copies of the arguments."""
    fast = run(text, *[np.copy(a) if isinstance(a, np.ndarray) else a for a in arguments])
    slow_arguments = [np.copy(a) if isinstance(a, np.ndarray) else a for a in arguments]
    slow = run(text, *slow_arguments, vectorize_linalg=False)
    return fast, slow, slow_arguments
