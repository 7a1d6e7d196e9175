"""GPU presets: the figures of one chip that the simulator, the occupancy calculator and
the cost model read.

A preset is a frozen table of numbers, each with its source in the kit's hardware notes:
counts (SMs, schedulers, lanes), limits (threads, warps, blocks, registers, shared memory
per SM and per block), the memory system (sector and line sizes, banks, cache sizes,
bandwidths) and latencies. Four come with the kit:

===========  =================================================================
``h100``     H100 SXM (sm_90): 132 SMs, 1.83 GHz, 228 KB shared per SM, 3.35 TB/s
``a100``     A100 (sm_80): 108 SMs, 1.41 GHz, 164 KB shared per SM, 2.04 TB/s
``a6000``    RTX A6000 (GA102, sm_86): 84 SMs, 1.80 GHz, 100 KB shared, 768 GB/s
``classroom`` a toy of 2 SMs at 1 GHz, small enough to reason about by hand
===========  =================================================================

Latencies (ALU 4, shared 30, L2 200, DRAM 500 cycles) are rules of thumb, the same on
every preset; the cost model is calibrated against measured kernels, not these numbers.

>>> preset = lookup_preset("a6000")
>>> preset.sm_count, preset.max_warps_per_sm, preset.fp32_peak_tflops
(84, 48, 38.7)
>>> lookup_preset("titan")
Traceback (most recent call last):
...
KeyError: "no GPU preset named 'titan'; the presets are a100, a6000, classroom, h100"
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["PRESETS", "GpuPreset", "lookup_preset"]


@dataclass(frozen=True)
class GpuPreset:
    """One GPU's figures (per SM unless the name says otherwise)."""

    name: str
    description: str
    compute_capability: tuple[int, int]
    sm_count: int
    clock_ghz: float
    schedulers_per_sm: int
    """Warp schedulers (sub-partitions); each issues one warp instruction per cycle."""
    warp_size: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    max_threads_per_block: int
    max_block_dims: tuple[int, int, int]
    max_grid_dims: tuple[int, int, int]
    registers_per_sm: int
    max_registers_per_block: int
    max_registers_per_thread: int
    register_allocation_unit: int
    """Registers are given to a warp in units of this many (256)."""
    shared_carveouts_kb: tuple[int, ...]
    """The sizes the unified L1/shared array can be split into for shared memory."""
    max_shared_per_block: int
    """Bytes, with opt-in (``cudaFuncAttributeMaxDynamicSharedMemorySize``)."""
    shared_granularity: int
    shared_reserve_per_block: int
    """Bytes the driver keeps per resident block (1 KB on sm_80 and later)."""
    shared_banks: int
    bank_width: int
    sector_bytes: int
    line_bytes: int
    l1_bytes: int
    """The unified L1/shared array per SM."""
    l2_bytes: int
    fp32_lanes_per_sm: int
    int32_lanes_per_sm: int
    sfu_lanes_per_sm: int
    """Special-function units (exp2, rsqrt, sin...) per SM."""
    ldst_lanes_per_sm: int
    """Load/store units: lanes of address generation per cycle."""
    l1_bytes_per_cycle: int
    """L1/shared bandwidth per SM (one 128 B wavefront per cycle)."""
    l2_bytes_per_cycle: int
    """L2 bandwidth for the whole chip, bytes per cycle."""
    dram_gb_per_s: float
    tensor_flops_per_cycle_per_sm: int
    latency_alu: int
    latency_shared: int
    latency_l2: int
    latency_dram: int
    launch_overhead_us: float
    independent_thread_scheduling: bool
    """Volta and later: lanes of one warp may interleave, so warp-synchronous code
    that shares memory without ``syncwarp`` is a race."""

    @property
    def fp32_peak_tflops(self) -> float:
        """FP32 peak: 2 FLOP (an FMA) per lane per cycle over all SMs."""
        return round(2 * self.fp32_lanes_per_sm * self.sm_count * self.clock_ghz / 1000, 1)

    @property
    def dram_bytes_per_cycle(self) -> float:
        """DRAM bandwidth for the whole chip, in bytes per core clock cycle."""
        return self.dram_gb_per_s / self.clock_ghz

    @property
    def max_shared_per_sm(self) -> int:
        """Bytes: the largest shared-memory carve-out."""
        return max(self.shared_carveouts_kb) * 1024

    def with_changes(self, **changes: object) -> GpuPreset:
        """A copy with some figures changed (``preset.with_changes(sm_count=4)``)."""
        return replace(self, **changes)  # type: ignore[arg-type]


_CUDA_LIMITS = dict(
    warp_size=32,
    max_threads_per_block=1024,
    max_block_dims=(1024, 1024, 64),
    max_grid_dims=(2**31 - 1, 65535, 65535),
    max_registers_per_thread=255,
    register_allocation_unit=256,
    shared_granularity=128,
    shared_reserve_per_block=1024,
    shared_banks=32,
    bank_width=4,
    sector_bytes=32,
    line_bytes=128,
    latency_alu=4,
    latency_shared=30,
    latency_l2=200,
    latency_dram=500,
    launch_overhead_us=3.0,
    independent_thread_scheduling=True,
)

H100 = GpuPreset(
    name="h100",
    description="NVIDIA H100 SXM (Hopper, sm_90)",
    compute_capability=(9, 0),
    sm_count=132,
    clock_ghz=1.83,
    schedulers_per_sm=4,
    max_threads_per_sm=2048,
    max_warps_per_sm=64,
    max_blocks_per_sm=32,
    registers_per_sm=65536,
    max_registers_per_block=65536,
    shared_carveouts_kb=(0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
    max_shared_per_block=232448,
    l1_bytes=256 * 1024,
    l2_bytes=50 * 2**20,
    fp32_lanes_per_sm=128,
    int32_lanes_per_sm=64,
    sfu_lanes_per_sm=16,
    ldst_lanes_per_sm=32,
    l1_bytes_per_cycle=128,
    l2_bytes_per_cycle=5500,
    dram_gb_per_s=3350.0,
    tensor_flops_per_cycle_per_sm=4096,
    **_CUDA_LIMITS,  # type: ignore[arg-type]
)

A100 = GpuPreset(
    name="a100",
    description="NVIDIA A100 (Ampere, sm_80)",
    compute_capability=(8, 0),
    sm_count=108,
    clock_ghz=1.41,
    schedulers_per_sm=4,
    max_threads_per_sm=2048,
    max_warps_per_sm=64,
    max_blocks_per_sm=32,
    registers_per_sm=65536,
    max_registers_per_block=65536,
    shared_carveouts_kb=(0, 8, 16, 32, 64, 100, 132, 164),
    max_shared_per_block=166912,
    l1_bytes=192 * 1024,
    l2_bytes=40 * 2**20,
    fp32_lanes_per_sm=64,
    int32_lanes_per_sm=64,
    sfu_lanes_per_sm=16,
    ldst_lanes_per_sm=32,
    l1_bytes_per_cycle=128,
    l2_bytes_per_cycle=3800,
    dram_gb_per_s=2039.0,
    tensor_flops_per_cycle_per_sm=2048,
    **_CUDA_LIMITS,  # type: ignore[arg-type]
)

A6000 = GpuPreset(
    name="a6000",
    description="NVIDIA RTX A6000 (GA102, sm_86)",
    compute_capability=(8, 6),
    sm_count=84,
    clock_ghz=1.80,
    schedulers_per_sm=4,
    max_threads_per_sm=1536,
    max_warps_per_sm=48,
    max_blocks_per_sm=16,
    registers_per_sm=65536,
    max_registers_per_block=65536,
    shared_carveouts_kb=(0, 8, 16, 32, 64, 100),
    max_shared_per_block=101376,
    l1_bytes=128 * 1024,
    l2_bytes=6 * 2**20,
    fp32_lanes_per_sm=128,
    int32_lanes_per_sm=64,
    sfu_lanes_per_sm=16,
    ldst_lanes_per_sm=32,
    l1_bytes_per_cycle=128,
    l2_bytes_per_cycle=1500,
    dram_gb_per_s=768.0,
    tensor_flops_per_cycle_per_sm=1024,
    **_CUDA_LIMITS,  # type: ignore[arg-type]
)

CLASSROOM = GpuPreset(
    name="classroom",
    description="a classroom GPU: 2 SMs at 1 GHz, small limits to reason about by hand",
    compute_capability=(8, 0),
    sm_count=2,
    clock_ghz=1.0,
    schedulers_per_sm=1,
    max_threads_per_sm=256,
    max_warps_per_sm=8,
    max_blocks_per_sm=4,
    registers_per_sm=8192,
    max_registers_per_block=8192,
    shared_carveouts_kb=(0, 8, 16),
    max_shared_per_block=16384,
    l1_bytes=32 * 1024,
    l2_bytes=256 * 1024,
    fp32_lanes_per_sm=32,
    int32_lanes_per_sm=32,
    sfu_lanes_per_sm=4,
    ldst_lanes_per_sm=32,
    l1_bytes_per_cycle=128,
    l2_bytes_per_cycle=64,
    dram_gb_per_s=32.0,
    tensor_flops_per_cycle_per_sm=0,
    **{
        **_CUDA_LIMITS,
        "max_threads_per_block": 256,
        "max_block_dims": (256, 256, 64),
        "shared_reserve_per_block": 0,
    },  # type: ignore[arg-type]
)

PRESETS: dict[str, GpuPreset] = {p.name: p for p in (H100, A100, A6000, CLASSROOM)}
"""The presets by name."""


def lookup_preset(preset: str | GpuPreset) -> GpuPreset:
    """The preset of that name (a ``GpuPreset`` passes through).

    >>> lookup_preset("classroom").sm_count
    2
    """
    if isinstance(preset, GpuPreset):
        return preset
    if preset not in PRESETS:
        names = ", ".join(sorted(PRESETS))
        raise KeyError(f"no GPU preset named {preset!r}; the presets are {names}")
    return PRESETS[preset]
