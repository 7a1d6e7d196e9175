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

One roofline for every machine: a GPU's from its data sheet (``A100_FP32``), a CPU
core's as measured by ``tinycomp.targets.cpu.roofline.measure_machine`` (the micro-kernel's
peak, the copy bandwidth), stored as JSON (``to_dict``) and read back (``from_dict``,
``kernels_from_dict``) so that a notebook shows a measurement with deterministic output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "Machine",
    "KernelCost",
    "Placement",
    "kernels_from_dict",
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
    notes: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Where the figures come from (a data sheet; the micro-kernel and copy size measured)."""

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

    def placements(self, kernels: Sequence[KernelCost]) -> list[Placement]:
        """Each kernel's intensity, bound and attainable GFLOP/s on this machine.

        >>> Machine("toy", 100e9, 10e9).placements([KernelCost("axpy", 2e6, 12e6)])
        [Placement(name='axpy', intensity=0.1667, bound='memory', attainable_gflops=1.67)]
        """
        return [
            Placement(
                k.name,
                round(k.intensity, 4),
                self.bound(k.intensity),
                round(self.attainable(k.intensity) / 1e9, 2),
            )
            for k in kernels
        ]

    def to_dict(self, kernels: Sequence[KernelCost] = ()) -> dict[str, Any]:
        """The figures ``from_dict`` reads back, with ``kernels`` and their placements.

        >>> stored = Machine("toy", 100e9, 10e9).to_dict([KernelCost("axpy", 2e6, 12e6)])
        >>> stored["peak_gflops"], stored["kernels"][0]["bound"]
        (100.0, 'memory')
        """
        placed = self.placements(kernels)
        return {
            "name": self.name,
            "peak_gflops": round(self.peak_flops / 1e9, 2),
            "bandwidth_gbs": round(self.bandwidth / 1e9, 2),
            "notes": dict(self.notes),
            "kernels": [
                {**p._asdict(), "flops": k.flops, "bytes": k.bytes}
                for p, k in zip(placed, kernels, strict=True)
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Machine:
        """A machine from stored figures: ``name``, ``peak_gflops``, ``bandwidth_gbs``.

        >>> Machine.from_dict({"name": "toy", "peak_gflops": 200, "bandwidth_gbs": 20}).ridge_point
        10.0
        """
        return cls(
            data["name"],
            peak_flops=float(data["peak_gflops"]) * 1e9,
            bandwidth=float(data["bandwidth_gbs"]) * 1e9,
            notes=dict(data.get("notes", {})),
        )


class Placement(NamedTuple):
    """One kernel on a roofline."""

    name: str
    intensity: float
    """FLOP/byte."""
    bound: str
    """``memory`` or ``compute``."""
    attainable_gflops: float
    """The roof at this intensity, GFLOP/s."""


def kernels_from_dict(data: Mapping[str, Any]) -> list[KernelCost]:
    """The kernels stored by ``Machine.to_dict`` (their FLOPs and bytes).

    >>> kernels_from_dict({"kernels": [{"name": "axpy", "flops": 2e6, "bytes": 12e6}]})
    [KernelCost(name='axpy', flops=2000000.0, bytes=12000000.0)]
    """
    return [KernelCost(k["name"], flops=k["flops"], bytes=k["bytes"]) for k in data["kernels"]]


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
