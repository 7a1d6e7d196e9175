"""A simulated GPU kernel on its preset's roofline.

The roofline of a preset is the kit's ``perf.roofline.Machine``: the FP32 peak (2 FLOP per
FP32 lane per cycle, all SMs, the preset's clock) and the DRAM bandwidth. A cost-model
``Estimate`` gives the kernel's point: its arithmetic intensity (FLOPs per DRAM byte, the
bytes the reuse model sends to DRAM, not the compulsory ones alone) and the GFLOP/s it
achieves in the estimated time. ``RooflinePoint.kernel_cost`` is the ``KernelCost`` the
roofline picture (``viz.roofline_plot``) places on the roof.

>>> from tinycomp.targets.gpu_sim.preset import lookup_preset
>>> machine = roofline_machine(lookup_preset("a100"))
>>> round(machine.peak_flops / 1e12, 2), machine.bandwidth / 1e9
(19.49, 2039.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.perf.roofline import KernelCost, Machine
from tinycomp.targets.gpu_sim.cost_estimate import Estimate
from tinycomp.targets.gpu_sim.preset import GpuPreset

__all__ = ["RooflinePoint", "roofline_machine", "roofline_point"]


def roofline_machine(preset: GpuPreset) -> Machine:
    """The preset's roofline: FP32 peak and DRAM bandwidth.

    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> roofline_machine(lookup_preset("classroom")).ridge_point  # 128 GFLOP/s / 32 GB/s
    4.0
    """
    peak = 2 * preset.fp32_lanes_per_sm * preset.sm_count * preset.clock_ghz * 1e9
    return Machine(
        f"{preset.name} (FP32)",
        peak_flops=peak,
        bandwidth=preset.dram_gb_per_s * 1e9,
        notes={"source": "GPU preset", "description": preset.description},
    )


@dataclass(frozen=True)
class RooflinePoint:
    """Where one kernel sits under its preset's two roofs."""

    name: str
    intensity: float
    """FLOPs per DRAM byte."""
    achieved_gflops: float
    peak_gflops: float
    """The compute roof (FP32)."""
    bandwidth_gbs: float
    """The memory roof's slope, GB/s."""
    machine: Machine
    flops: float
    dram_bytes: float

    @property
    def attainable_gflops(self) -> float:
        """The roof at this intensity."""
        return self.machine.attainable(self.intensity) / 1e9

    @property
    def bound(self) -> str:
        """``memory`` left of the ridge point, ``compute`` right of it."""
        return self.machine.bound(self.intensity)

    @property
    def fraction_of_roof(self) -> float:
        """Achieved over attainable GFLOP/s (1.0: on the roof)."""
        return self.achieved_gflops / self.attainable_gflops

    @property
    def kernel_cost(self) -> KernelCost:
        """The kernel as ``perf.roofline`` counts it: FLOPs and DRAM bytes."""
        return KernelCost(self.name, flops=self.flops, bytes=self.dram_bytes)


def roofline_point(estimate: Estimate, preset: GpuPreset, name: str = "kernel") -> RooflinePoint:
    """The kernel's (intensity, achieved GFLOP/s) and the preset's two roofs.

    >>> from tinycomp.targets.gpu_sim.cost_estimate import LIMITS, Estimate
    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> e = Estimate("classroom", 1e6, 1e-3, "dram", dict.fromkeys(LIMITS, 0.0), 1, 1, 1.0,
    ...              2e6, 32e6, 32e6, 2e6 / 32e6, 2.0, 0.0, 0.0, False)
    >>> p = roofline_point(e, lookup_preset("classroom"), "axpy")
    >>> p.intensity, p.achieved_gflops, p.attainable_gflops, p.bound
    (0.0625, 2.0, 2.0, 'memory')
    >>> p.kernel_cost
    KernelCost(name='axpy', flops=2000000.0, bytes=32000000.0)
    """
    if estimate.preset != preset.name:
        raise ValueError(f"the estimate is for preset '{estimate.preset}', not '{preset.name}'")
    machine = roofline_machine(preset)
    return RooflinePoint(
        name=name,
        intensity=estimate.arithmetic_intensity,
        achieved_gflops=estimate.achieved_gflops,
        peak_gflops=machine.peak_flops / 1e9,
        bandwidth_gbs=machine.bandwidth / 1e9,
        machine=machine,
        flops=estimate.flops,
        dram_bytes=estimate.dram_bytes,
    )
