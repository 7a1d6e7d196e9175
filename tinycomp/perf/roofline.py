"""The roofline model: is a kernel limited by arithmetic or by memory traffic?

A machine does at most ``peak_flops`` floating-point operations per second and moves at most
``bandwidth`` bytes per second between memory and the chip. A kernel that does ``flops``
operations on ``bytes`` of traffic has an *arithmetic intensity* of ``flops / bytes``
(FLOP/byte). It can run no faster than either limit allows::

    attainable FLOP/s = min(peak_flops, intensity * bandwidth)

The two limits meet at the *ridge point*, ``peak_flops / bandwidth``: kernels to its left are
memory-bound (more FLOPs would be free), kernels to its right are compute-bound.

Counting convention used throughout tinycomp: one add, multiply, compare, divide or ``exp`` is
one FLOP (a real chip spends several instructions on ``exp``; the convention keeps the counts
simple and is what most roofline plots use), and ``bytes`` is the compulsory traffic: every
input read once and every output written once, as if the caches were perfect.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Machine",
    "KernelCost",
    "A100_FP32",
    "H100_FP32",
    "H100_TENSOR_FP16",
    "matmul_cost",
    "softmax_cost",
]


@dataclass(frozen=True)
class Machine:
    """A roofline: a compute peak and a memory bandwidth.

    >>> m = Machine("toy", peak_flops=100e9, bandwidth=10e9)
    >>> m.ridge_point
    10.0
    >>> m.attainable(2.0) / 1e9, m.bound(2.0)
    (20.0, 'memory')
    """

    name: str
    """What the figures describe, e.g. ``"A100 (FP32)"``."""
    peak_flops: float
    """Peak arithmetic throughput, FLOP/s."""
    bandwidth: float
    """Peak memory bandwidth, bytes/s."""

    @property
    def ridge_point(self) -> float:
        """The intensity (FLOP/byte) where the memory roof meets the compute roof."""
        return self.peak_flops / self.bandwidth

    def attainable(self, intensity: float) -> float:
        """The best FLOP/s a kernel of this intensity can reach on this machine.

        >>> Machine("toy", 100e9, 10e9).attainable(50.0) / 1e9
        100.0
        """
        return min(self.peak_flops, intensity * self.bandwidth)

    def bound(self, intensity: float) -> str:
        """``"memory"`` left of the ridge point, ``"compute"`` at or right of it.

        >>> Machine("toy", 100e9, 10e9).bound(10.0)
        'compute'
        """
        return "memory" if intensity < self.ridge_point else "compute"


# Published peaks (see the GPU table of the hardware reference): FP32 without tensor cores,
# and dense FP16 on tensor cores. HBM bandwidth: A100 80 GB SXM (2.04 TB/s; the 40 GB part
# has 1.56 TB/s) and H100 SXM.
A100_FP32 = Machine("A100 (FP32)", peak_flops=19.5e12, bandwidth=2.04e12)
H100_FP32 = Machine("H100 SXM (FP32)", peak_flops=67e12, bandwidth=3.35e12)
H100_TENSOR_FP16 = Machine("H100 SXM (FP16 tensor)", peak_flops=989e12, bandwidth=3.35e12)


@dataclass(frozen=True)
class KernelCost:
    """The FLOPs and compulsory bytes of one kernel.

    >>> KernelCost("axpy", flops=2e6, bytes=12e6).intensity
    0.16666666666666666
    """

    name: str
    """A label for tables and plots, e.g. ``"matmul 512x512x512"``."""
    flops: float
    """Floating-point operations, by the counting convention of this module."""
    bytes: float
    """Compulsory memory traffic in bytes."""

    @property
    def intensity(self) -> float:
        """Arithmetic intensity, FLOP/byte."""
        return self.flops / self.bytes


def matmul_cost(m: int, n: int, k: int, itemsize: int = 4) -> KernelCost:
    """``C[m, n] = A[m, k] @ B[k, n]``: one multiply and one add per (i, j, l).

    Traffic: read A and B once, write C once.

    >>> cost = matmul_cost(1024, 1024, 1024)
    >>> cost.flops, cost.bytes
    (2147483648, 12582912)
    >>> round(cost.intensity, 1)
    170.7
    """
    return KernelCost(
        name=f"matmul {m}x{n}x{k}",
        flops=2 * m * n * k,
        bytes=(m * k + k * n + m * n) * itemsize,
    )


def softmax_cost(rows: int, cols: int, itemsize: int = 4) -> KernelCost:
    """Row-wise softmax: five FLOPs per element, one read and one write (fused).

    Per element: compare for the row max, subtract the max, ``exp``, add to the row sum,
    divide by the sum.

    >>> cost = softmax_cost(1024, 1024)
    >>> cost.flops, cost.bytes, cost.intensity
    (5242880, 8388608, 0.625)
    """
    elements = rows * cols
    return KernelCost(
        name=f"softmax {rows}x{cols}", flops=5 * elements, bytes=2 * elements * itemsize
    )
