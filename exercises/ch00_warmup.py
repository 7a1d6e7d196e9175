"""Chapter 00 warm-up: how much work, and how many bytes?

Before touching a kernel, a compiler engineer estimates two numbers: the
floating-point operations (FLOPs) it performs and the bytes it moves between
DRAM and the chip. Their ratio, the *arithmetic intensity*, says which roof of
the roofline model the kernel runs into:

    attainable FLOP/s = min(peak FLOP/s, intensity * bandwidth)

A matmul reuses every element it loads many times, so its intensity grows with
its size; a softmax touches each element a handful of times, so its intensity
stays tiny whatever its size. Much of this course (fusion, tiling, on-chip
buffers) is about raising the intensity of real kernels.

Three tasks, all taught in the warm-up sections of `chapters/00_welcome.ipynb`:

1. count a matmul and place it on the roofline;
2. count a softmax, fused into one kernel or run as four;
3. an open one: pick a tile that makes a big matmul compute-bound on a small buffer.

Fill in each TODO, then run `tinycomp grade ch00`. Write the counts yourself: the
grader notices calls of the library's own cost model (`tinycomp.perf`).
"""

from __future__ import annotations

__all__ = [
    "arithmetic_intensity",
    "matmul_bytes",
    "matmul_flops",
    "matmul_tile",
    "roofline_bound",
    "softmax_bytes",
    "softmax_flops",
]


# -- Task 00.1 ------------------------------------------------------------------------------
def matmul_flops(m: int, n: int, k: int) -> int:
    """The FLOPs of `C[m, n] = A[m, k] @ B[k, n]`, where C starts at zero.

    Contract: `m, n, k >= 1`; returns an `int`. The course counts every multiply and
    every add as one FLOP (so do vendors' peak figures); nothing else counts.

    Worked example: `matmul_flops(2, 3, 4)` is 48. Taught in "Warm-up: what limits a
    kernel?", whose first table counts a 1024 x 1024 x 1024 matmul.

    >>> matmul_flops(2, 3, 4)
    48
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: count the multiplies and adds of C = A @ B")


def matmul_bytes(m: int, n: int, k: int, itemsize: int) -> int:
    """The fewest bytes the matmul must move between DRAM and the chip.

    Contract: every element that the kernel reads comes from DRAM once, every element
    it produces goes back once; C starts at zero on the chip, so its old value is never
    read. `itemsize` is the size of one element in bytes (4 for f32, 2 for f16).
    Returns an `int`.

    Worked example: `matmul_bytes(2, 3, 4, itemsize=4)` is 104. Taught in "Warm-up:
    what limits a kernel?".

    >>> matmul_bytes(2, 3, 4, itemsize=4)
    104
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: count the bytes a matmul moves through DRAM")


def arithmetic_intensity(flops: float, num_bytes: float) -> float:
    """A kernel's arithmetic intensity, in FLOP/byte; `num_bytes` is positive.

    Worked example: 2.0e9 FLOPs on 1.2e7 bytes is about 166.67 FLOP/byte. Taught in
    "Warm-up: what limits a kernel?".

    >>> round(arithmetic_intensity(2.0e9, 1.2e7), 2)
    166.67
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: the intensity of a kernel")


def roofline_bound(intensity: float, peak_flops: float, bandwidth: float) -> tuple[str, float]:
    """Which roof limits a kernel of this intensity, and the FLOP/s it can attain.

    Contract: `peak_flops` in FLOP/s and `bandwidth` in bytes/s describe the chip.
    Returns `(roof, attainable)`: `attainable` is the roofline's bound on the kernel's
    FLOP/s, and `roof` is `"memory"` or `"compute"`, the roof that sets it. At the
    ridge point both roofs give the same number; the kit then says `"compute"`.

    Worked example: on a chip with 100 TFLOP/s and 2 TB/s, a kernel of 0.5 FLOP/byte
    is `("memory", 1e12)`. Taught in "Warm-up: what limits a kernel?" and on the
    roofline pictures after it.

    >>> roofline_bound(0.5, peak_flops=100e12, bandwidth=2e12)
    ('memory', 1000000000000.0)
    """
    # TODO(Task 00.1): arithmetic intensity and the roofline
    raise NotImplementedError("Task 00.1: which roof, and how many FLOP/s")


# -- Task 00.2 ------------------------------------------------------------------------------
def softmax_flops(rows: int, cols: int) -> int:
    """The FLOPs of a row-wise softmax, `y[i, j] = exp(x[i, j] - max_j x[i]) / sum_j ...`.

    Contract: `rows, cols >= 1`; returns an `int`. Every arithmetic step on one element
    counts as one FLOP: a comparison, a subtraction, an addition, a division and an
    `exp` alike (a convention: real chips spend several instructions on `exp`).

    Worked example: a 2 x 4 softmax is 40 FLOPs. Taught in "Warm-up: what limits a
    kernel?", whose table counts a 1024 x 1024 softmax.

    >>> softmax_flops(2, 4)
    40
    """
    # TODO(Task 00.2): the FLOPs and bytes of a softmax, fused or not
    raise NotImplementedError("Task 00.2: count the FLOPs of a softmax")


def softmax_bytes(rows: int, cols: int, itemsize: int, fused: bool = True) -> int:
    """The bytes a row-wise softmax moves through DRAM, as one kernel or as four.

    Contract: fused (the default), one kernel reads `x` and writes `y`, and nothing
    else crosses DRAM. Unfused, an eager framework runs four kernels, and each one
    reads all its inputs from DRAM and writes its result to DRAM:

        m = max(x, axis=1)      e = exp(x - m)      s = sum(e, axis=1)      y = e / s

    Returns an `int`.

    Worked example: a 2 x 4 softmax in f32 moves 64 bytes fused and 224 unfused.
    Taught in "Warm-up: what limits a kernel?" (fusion itself is chapter 05).

    >>> softmax_bytes(2, 4, itemsize=4), softmax_bytes(2, 4, itemsize=4, fused=False)
    (64, 224)
    """
    # TODO(Task 00.2): the FLOPs and bytes of a softmax, fused or not
    raise NotImplementedError("Task 00.2: count the bytes of a softmax, fused and not")


# -- Task 00.3 (open) -----------------------------------------------------------------------
def matmul_tile() -> tuple[int, int, int]:
    """A tile `(tm, tn, tk)` that makes a 4096 x 4096 x 4096 f32 matmul compute-bound on an
    H100 (FP32 without tensor cores: 67 TFLOP/s, 3.35 TB/s) with 48 KiB on the chip.

    The kernel is the one of "Reuse needs room on the chip": it keeps one `tm x tn` tile
    of C on the chip for the whole of `k`, and streams the matching rows of A and
    columns of B through in steps of `tk` (`tm x tk` of A and `tk x tn` of B at a
    time). Contract:

    * the three pieces on the chip at once, `tm x tn + tm x tk + tk x tn` elements of
      4 bytes, fit in 48 KiB (49152 bytes);
    * the DRAM traffic that this kernel moves, counted as in the chapter (A, B and C
      tiles; a tile at the edge counts only its part inside the matrices), gives an
      intensity at or above the H100's ridge point;
    * `1 <= tm, tn, tk <= 4096`.

    Many tiles qualify; any of them passes. Worked example of the counting (not an
    answer): the tile `(32, 32, 32)` needs 12 KiB on the chip but reaches only about
    8 FLOP/byte: memory-bound.
    """
    # TODO(Task 00.3): a tile that makes a big matmul compute-bound
    raise NotImplementedError("Task 00.3: return (tm, tn, tk)")
