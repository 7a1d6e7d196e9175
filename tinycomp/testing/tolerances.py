"""How close a kernel's output must be to its float64 reference, per dtype.

The interpreter computes in the kernel's own dtype and rounds every op's result once
(``tinycomp/interp/numerics.py``), so a bf16 kernel makes bf16 rounding errors at every
step, as bf16 hardware without wider accumulators would. The unit roundoff ``u`` (half
the gap between 1 and the next float) sets the scale of those errors:

=======  ==================  ==========  ===========================================
dtype    significand bits    ``u``       what one rounding costs, relative
=======  ==================  ==========  ===========================================
f32      24                  6.0e-08     invisible at the tolerances below
f16      11                  4.9e-04     about 3 decimal digits survive
bf16     8                   3.9e-03     about 2 decimal digits survive
=======  ==================  ==========  ===========================================

A reduction of ``n`` terms, accumulated one by one in the dtype (as the linalg loop nest
does), can be off by ``n * u`` times the sum of the magnitudes in the worst case and by
about ``sqrt(n) * u`` typically. (Hardware that accumulates bf16 products in f32 does
much better; here the IR says bf16, so bf16 it is.) The catalogue keeps its reductions
at most 36 long (a 3x3x4 conv window; matmul depths up to 32) and scales its inputs so
that results are of order 1 (see ``kernels.py``). Measured over every kernel's
``shape_strategy`` and 200 random inputs at its largest shape, the worst error was
``5.7e-3`` (12 u) in f16 and ``3.6e-2`` (9 u) in bf16, in the ``atol = rtol`` sense.
``TOLERANCES`` allow about 20 u for both: twice the worst seen, yet small enough that a
real bug (a wrong index, a dropped term of a reduction) still fails. f32 uses ``1e-5``
like the rest of the project's tests (its worst was ``5e-7``).

Steps of ``check_against_reference``:

1. Compute the float64 reference from the same inputs the kernel read.
2. Check the shape, then every element: ``|out - ref| <= atol + rtol * |ref|`` (numpy's
   ``allclose`` rule; a NaN or infinity anywhere fails).
3. On failure, raise ``AssertionError`` naming the kernel and dtype, how many elements
   are off, the worst one (index, value, expected, error, allowance) and the largest
   absolute error with its index; on success return that largest absolute error.

>>> dtype_name(np.float16), numpy_dtype("bf16")
('f16', dtype(bfloat16))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np

if TYPE_CHECKING:
    from tinycomp.testing.kernels import Kernel

DTYPES: dict[str, np.dtype] = {
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
}
"""The float dtypes of the catalogue, by their MLIR names."""

DtypeLike = str | type | np.dtype
"""A dtype given as ``"f32"``/``"f16"``/``"bf16"`` or anything ``numpy.dtype`` accepts."""

TOLERANCES: dict[str, tuple[float, float]] = {
    "f32": (1e-5, 1e-5),
    "f16": (1e-2, 1e-2),
    "bf16": (8e-2, 8e-2),
}
"""``(rtol, atol)`` per dtype (see the module docstring for how they were chosen)."""


def numpy_dtype(dtype: DtypeLike) -> np.dtype:
    """The numpy dtype for ``"f32"``, ``"f16"``, ``"bf16"`` or a numpy dtype.

    >>> numpy_dtype("f16"), numpy_dtype(np.float32)
    (dtype('float16'), dtype('float32'))
    """
    if isinstance(dtype, str) and dtype in DTYPES:
        return DTYPES[dtype]
    try:
        return np.dtype(dtype)
    except TypeError as error:
        raise ValueError(
            f"expected one of {sorted(DTYPES)} or a numpy dtype, got {dtype!r}"
        ) from error


def dtype_name(dtype: DtypeLike) -> str:
    """The MLIR name (``"f32"``, ``"f16"``, ``"bf16"``) of a catalogue dtype.

    >>> dtype_name("bf16"), dtype_name(np.dtype("float32"))
    ('bf16', 'f32')
    """
    target = numpy_dtype(dtype)
    for name, known in DTYPES.items():
        if known == target:
            return name
    raise ValueError(f"expected one of the dtypes {sorted(DTYPES)}, got {target}")


def check_against_reference(
    kernel: Kernel,
    outputs: np.ndarray | tuple[np.ndarray, ...],
    inputs: tuple[np.ndarray, ...],
    dtype: DtypeLike,
) -> float:
    """Check ``outputs`` of ``kernel`` on ``inputs`` against its reference (see the steps
    above); return the largest absolute error.

    >>> import numpy as np
    >>> from tinycomp.testing.kernels import KERNELS
    >>> a, b = np.array([[1.0, 2.0]]), np.array([[3.0], [4.0]])
    >>> check_against_reference(KERNELS["matmul"], np.array([[11.0]]), (a, b), "f32")
    0.0
    >>> check_against_reference(KERNELS["matmul"], np.array([[11.5]]), (a, b), "f32")
    Traceback (most recent call last):
    AssertionError: matmul in f32: 1 of 1 elements differ from the float64 reference
      allowed: |got - expected| <= atol + rtol * |expected| with rtol=1e-05, atol=1e-05
      worst at index (0, 0): got 11.5, expected 11 (abs error 5.0e-01, allowed 1.2e-04)
      max abs error 5.0e-01 at index (0, 0)
    """
    name = dtype_name(dtype)
    rtol, atol = TOLERANCES[name]
    output = outputs[0] if isinstance(outputs, (tuple, list)) and len(outputs) == 1 else outputs
    output = np.asarray(output)
    expected = kernel.reference(*inputs)
    what = f"{kernel.name} in {name}"
    if output.shape != expected.shape:
        raise AssertionError(
            f"{what}: expected an output of shape {expected.shape}, got {output.shape}"
        )
    got = output.astype(np.float64)
    error = np.abs(got - expected)
    allowed = atol + rtol * np.abs(expected)
    bad = ~(error <= allowed)  # NaN compares false: counted as bad
    finite_error = np.where(np.isnan(error), np.inf, error)
    max_error = float(finite_error.max()) if error.size else 0.0
    if bad.any():
        excess = np.where(bad, finite_error - allowed, -np.inf)
        worst = np.unravel_index(int(np.argmax(excess)), error.shape)
        index = tuple(int(i) for i in worst)
        where = tuple(int(i) for i in np.unravel_index(int(np.argmax(finite_error)), error.shape))
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.size} elements differ from the float64 reference\n"
            f"  allowed: |got - expected| <= atol + rtol * |expected| with rtol={rtol:g}, "
            f"atol={atol:g}\n"
            f"  worst at index {index}: got {got[worst]:.6g}, expected {expected[worst]:.6g} "
            f"(abs error {error[worst]:.1e}, allowed {allowed[worst]:.1e})\n"
            f"  max abs error {max_error:.1e} at index {where}"
        )
    return max_error


__all__ = [
    "DTYPES",
    "TOLERANCES",
    "DtypeLike",
    "check_against_reference",
    "dtype_name",
    "numpy_dtype",
]
