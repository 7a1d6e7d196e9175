"""Helpers shared by the pass tests: golden files, random arguments, running IR."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinycomp.dialects.linalg  # noqa: F401  (the golden files use these dialects)
import tinycomp.dialects.math  # noqa: F401
import tinycomp.dialects.memref  # noqa: F401
import tinycomp.dialects.scf  # noqa: F401
import tinycomp.dialects.tensor  # noqa: F401
from tinycomp.ir import (
    FloatType,
    IndexType,
    IntegerType,
    MemRefType,
    Operation,
    RankedTensorType,
    Type,
    VectorType,
    to_numpy_dtype,
)

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_INPUTS = sorted(
    path for path in GOLDEN_DIR.glob("*.mlir") if not path.name.endswith(".expected.mlir")
)


def expected_path(path: Path) -> Path:
    """``name.expected.mlir`` next to ``name.mlir``."""
    return path.with_name(path.stem + ".expected.mlir")


def header(text: str, key: str) -> str | None:
    """The value of a ``// KEY: value`` line at the top of a golden file."""
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        if line.startswith(f"// {key}:"):
            return line.split(":", 1)[1].strip()
    return None


def interpret_or_skip():
    """``tinycomp.interp.interpret``, or skip the test while the interpreter is missing."""
    try:
        from tinycomp.interp import interpret
    except ImportError:
        pytest.skip("tinycomp.interp.interpret is not available")
    return interpret


def random_argument(value_type: Type, rng: np.random.Generator):
    """A random value of ``value_type``: scalars as numpy scalars, tensors, vectors and
    memrefs as numpy arrays; an ``index`` is in 0..3."""
    if isinstance(value_type, (RankedTensorType, VectorType, MemRefType)):
        element = value_type.element_type
        return np.array(
            [random_argument(element, rng) for _ in range(int(np.prod(value_type.shape)))],
            dtype=to_numpy_dtype(element),
        ).reshape(value_type.shape)
    if value_type == IntegerType(1):
        return np.bool_(rng.integers(0, 2))
    if isinstance(value_type, IndexType):
        return int(rng.integers(0, 4))  # also a valid subscript of the golden memrefs
    dtype = to_numpy_dtype(value_type)
    if isinstance(value_type, IntegerType):
        info = np.iinfo(dtype)
        return dtype.type(rng.integers(info.min, info.max, endpoint=True))
    assert isinstance(value_type, FloatType)
    return dtype.type(rng.normal(0.0, 10.0))


def public_functions(module: Operation) -> list[Operation]:
    """The functions with a body that are not private."""
    found = []
    for op in module.body.ops:
        visibility = op.attributes.get("sym_visibility")
        if op.name == "func.func" and op.regions[0].blocks and visibility is None:
            found.append(op)
    return found


def outcome(interpret, module: Operation, name: str, arguments: list):
    """The results of running ``@name`` on copies of ``arguments``, plus the final contents
    of array arguments (memrefs are written in place); an ``InterpreterError`` is an
    outcome too, compared by its kind."""
    from tinycomp.interp import InterpreterError

    copies = [np.copy(a) if isinstance(a, np.ndarray) else a for a in arguments]
    try:
        results = interpret(module, *copies, entry=name)
    except InterpreterError:
        return ("error",)
    if not isinstance(results, tuple):
        results = (results,)
    return (*results, *[a for a in copies if isinstance(a, np.ndarray)])


def assert_same_bits(before, after, signed_zeros: bool = True) -> None:
    """Equal value by value, bit for bit (so -0.0 differs from 0.0 unless
    ``signed_zeros`` is False), NaN equal to NaN."""
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        if isinstance(a, str) or a is None:
            assert a == b
            continue
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
            nan_a, nan_b = np.isnan(a.astype(np.float32)), np.isnan(b.astype(np.float32))
            assert (nan_a == nan_b).all()
            a, b = np.where(nan_a, 0, a).astype(a.dtype), np.where(nan_b, 0, b).astype(b.dtype)
            if not signed_zeros:
                a, b = a + a.dtype.type(0), b + b.dtype.type(0)  # -0.0 + 0.0 is +0.0
            width = f"u{a.dtype.itemsize}"
            np.testing.assert_array_equal(a.view(width), b.view(width))
        else:
            np.testing.assert_array_equal(a, b)
