"""Chapter 00 warm-up: how much work, and how many bytes?

Before touching a kernel, a compiler engineer estimates two numbers: the
floating-point operations (FLOPs) it performs and the bytes it moves between
DRAM and the chip. Their ratio, the *arithmetic intensity*, says which roof of
the roofline model the kernel runs into:

    attainable FLOP/s = min(peak FLOP/s, intensity * bandwidth)

A matmul reuses every element it loads many times, so its intensity grows with
its size; a softmax touches each element a handful of times, so its intensity
stays tiny whatever its size. Much of this course (fusion, tiling, shared-memory
staging, the NPU's on-chip buffers) is about raising the intensity of real kernels.

Fill in each TODO, then run `tinycomp grade ch00`.
"""

from __future__ import annotations

__all__ = [
    "arithmetic_intensity",
    "matmul_bytes",
    "matmul_flops",
    "roofline_bound",
    "softmax_bytes",
    "softmax_flops",
]


def matmul_flops(m: int, n: int, k: int) -> int:
    """FLOPs of `C[m, n] = A[m, k] @ B[k, n]`: one multiply and one add per product term.

    >>> matmul_flops(2, 3, 4)
    48
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: count the multiplies and adds of C = A @ B")


def matmul_bytes(m: int, n: int, k: int, itemsize: int) -> int:
    """Fewest bytes a matmul moves through DRAM: read A and B once, write C once.

    `itemsize` is the size of one element in bytes (4 for f32, 2 for f16).

    >>> matmul_bytes(2, 3, 4, itemsize=4)
    104
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: add up the bytes of A, B and C")


def arithmetic_intensity(flops: float, num_bytes: float) -> float:
    """FLOPs per byte moved; `num_bytes` must be positive.

    >>> round(arithmetic_intensity(2.0e9, 1.2e7), 2)
    166.67
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: return FLOPs per byte")


def roofline_bound(intensity: float, peak_flops: float, bandwidth: float) -> tuple[str, float]:
    """Which roof limits a kernel, and the FLOP/s it can attain under it.

    Below the ridge point (`peak_flops / bandwidth` FLOP/byte) memory cannot
    feed the arithmetic units fast enough: the kernel is "memory" bound and
    attains `intensity * bandwidth`. At or above the ridge it is "compute"
    bound and attains `peak_flops`. `bandwidth` is in bytes per second.

    >>> roofline_bound(0.5, peak_flops=100e12, bandwidth=2e12)
    ('memory', 1000000000000.0)
    >>> roofline_bound(200.0, peak_flops=100e12, bandwidth=2e12)
    ('compute', 100000000000000.0)
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: return ('memory' or 'compute', attainable FLOP/s)")


def softmax_flops(rows: int, cols: int) -> int:
    """FLOPs of a row-wise softmax over a `rows x cols` matrix.

    Count 5 FLOPs per element: one comparison for the row maximum, one
    subtraction of it, one exp, one addition to the row sum, one division.

    >>> softmax_flops(2, 4)
    40
    """
    # TODO(Task 00.2): the FLOPs and bytes of a softmax, fused or not
    raise NotImplementedError("Task 00.2: count the FLOPs of a softmax")


def softmax_bytes(rows: int, cols: int, itemsize: int, fused: bool = True) -> int:
    """Bytes a row-wise softmax moves through DRAM, fused into one kernel or not.

    Fused, one kernel reads x once and writes y once. Unfused, as an eager
    framework runs it, four kernels pass their results through DRAM:

    1. `m = max(x, axis=1)`  reads x, writes one value per row
    2. `e = exp(x - m)`      reads x and m, writes e
    3. `s = sum(e, axis=1)`  reads e, writes one value per row
    4. `y = e / s`           reads e and s, writes y

    >>> softmax_bytes(2, 4, itemsize=4), softmax_bytes(2, 4, itemsize=4, fused=False)
    (64, 224)
    """
    # TODO(Task 00.2): the FLOPs and bytes of a softmax, fused or not
    raise NotImplementedError("Task 00.2: add up the bytes each kernel reads and writes")
