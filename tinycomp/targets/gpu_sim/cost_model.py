"""The GPU cost model: a kernel's time from the simulator's counters, and what limits it.

A throughput model in the style of the roofline, per SM and per wave (``waves.py``):
the blocks resident on one SM together ask for some work of each unit; the unit that
needs the longest sets the wave's time. In order:

1. **Per block** (means over the simulated blocks): the demand on each limit
   (``block_demand``), in cycles of one SM:

   * ``issue``: warp instructions / warp schedulers (one instruction a cycle each);
   * ``fp32``, ``fp64``, ``int``, ``sfu``, ``ld/st``: the unit's warp instructions x 32 /
     its lanes per cycle. A warp instruction holds all 32 lanes of its unit whether or
     not they are active, so divergence costs time. f16/bf16 run on the FP32 lanes (no
     packing in pairs); conversions and votes on the integer lanes; memory instructions,
     atomics and shuffles on the load/store lanes; ids, moves, branches and barriers
     only take an issue slot. FP64 lanes are a fraction of FP32 (``cost_constants``);
   * ``l1/shared``: (global sectors x 32 B + shared wavefronts x 128 B + local bytes) /
     the L1 bytes per cycle: global sectors and shared wavefronts share one data path;
   * ``l2``, ``dram``: the block's L2 and DRAM bytes (the reuse model, ``cost_memory.py``)
     over the SM's share of that bandwidth: the chip's, split over the SMs busy in the wave.
2. **Latency.** One warp's instructions, each waiting for the one before, take the sum
   of their latencies: ALU ``latency_alu``; shared loads ``latency_shared`` plus one cycle
   per extra wavefront; global loads the mix of L1 hit, L2 and DRAM latencies that the
   reuse model gives; global atomics ``latency_l2`` plus the conflicts; stores issue and
   go on. Divided by the instruction-level parallelism (1 by default). All the warps of a
   wave are resident together, so their latencies overlap: the wave lasts at least one
   warp's chain. The throughput demands grow with the warps resident, this one does not:
   with few warps a kernel is latency bound, which is what makes occupancy matter.
3. **Waves.** A wave's time is the largest demand of its busiest SM (``k`` blocks: ``k``
   times each throughput demand, the latency once). Kernel cycles = the sum over waves +
   the launch overhead. ``breakdown`` sums each limit over the waves as if it were alone;
   ``binding`` is the largest (ties: the units before ``issue``).

>>> import numpy as np
>>> from tinycomp.targets.gpu_sim.counters import KernelCounters
>>> from tinycomp.targets.gpu_sim.occupancy import occupancy
>>> from tinycomp.targets.gpu_sim.preset import lookup_preset
>>> preset = lookup_preset("classroom")
>>> c = KernelCounters.zeros(np.arange(4), 256)
>>> c.add("inst_fp32", 8 * 1000)
>>> e = estimate(c, preset, occupancy(preset, 256, 32, 0))
>>> e.binding, e.waves, e.breakdown["fp32"], e.breakdown["launch"]
('fp32', 2, 16000.0, 3000.0)
"""

from __future__ import annotations

from collections.abc import Mapping

from tinycomp.targets.gpu_sim.cost_constants import DEFAULT_CONSTANTS, CostConstants
from tinycomp.targets.gpu_sim.cost_estimate import LIMITS, Estimate
from tinycomp.targets.gpu_sim.cost_memory import MemoryTraffic, memory_traffic
from tinycomp.targets.gpu_sim.counters import KernelCounters
from tinycomp.targets.gpu_sim.occupancy import Occupancy
from tinycomp.targets.gpu_sim.preset import GpuPreset
from tinycomp.targets.gpu_sim.waves import waves

__all__ = ["Estimate", "block_demand", "estimate", "warp_latency"]

_UNITS = {
    "fp32": ("fp32", "fp16"),
    "fp64": ("fp64",),
    "int": ("int", "conversion", "vote"),
    "sfu": ("sfu",),
    "ld/st": (
        "ld_global", "st_global", "ld_shared", "st_shared", "ld_local", "st_local",
        "atomic_global", "atomic_shared", "shuffle",
    ),
}  # fmt: skip
_ALU_CLASSES = ("fp32", "fp16", "fp64", "int", "sfu", "conversion", "vote", "shuffle")
_ISSUE_ONLY = ("misc", "branch", "barrier", "st_global", "st_local", "st_shared")


def _lanes(preset: GpuPreset, constants: CostConstants) -> dict[str, float]:
    datacenter = preset.compute_capability in ((8, 0), (9, 0))
    rate = constants.fp64_rate_datacenter if datacenter else constants.fp64_rate_other
    return {
        "fp32": preset.fp32_lanes_per_sm,
        "fp64": preset.fp32_lanes_per_sm * rate,
        "int": preset.int32_lanes_per_sm,
        "sfu": preset.sfu_lanes_per_sm,
        "ld/st": preset.ldst_lanes_per_sm,
    }


def block_demand(
    mean: Mapping[str, float],
    traffic: MemoryTraffic,
    preset: GpuPreset,
    constants: CostConstants = DEFAULT_CONSTANTS,
) -> dict[str, float]:
    """Cycles of one SM each throughput limit needs for one block (``l2`` and ``dram``
    as if the SM had the whole chip's bandwidth: the caller scales by the busy SMs).

    >>> from tinycomp.targets.gpu_sim.cost_memory import MemoryTraffic
    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> mean = {f"inst_{c}": 0.0 for c in ("fp32", "int", "sfu")} | {"inst_fp32": 10.0}
    >>> d = block_demand(mean, MemoryTraffic(0, 0, 0, 0, 0, 0, 0), lookup_preset("a100"))
    >>> d["issue"], d["fp32"], d["dram"]
    (2.5, 5.0, 0.0)
    """

    def inst(name: str) -> float:
        return mean.get(f"inst_{name}", 0.0)

    warp = preset.warp_size
    issued = sum(v for k, v in mean.items() if k.startswith("inst_"))
    demand = {"issue": issued / preset.schedulers_per_sm}
    for unit, lanes in _lanes(preset, constants).items():
        demand[unit] = sum(inst(c) for c in _UNITS[unit]) * warp / lanes
    shared = sum(mean.get(f"shared_{k}_wavefronts", 0.0) for k in ("load", "store", "atomic"))
    local = mean.get("local_load_bytes", 0.0) + mean.get("local_store_bytes", 0.0)
    l1_bytes = (
        traffic.l1_sectors_per_block * preset.sector_bytes
        + shared * constants.shared_wavefront_bytes
        + local
    )
    demand["l1/shared"] = l1_bytes / preset.l1_bytes_per_cycle
    demand["l2"] = traffic.l2_sectors_per_block * preset.sector_bytes / preset.l2_bytes_per_cycle
    demand["dram"] = (
        traffic.dram_sectors_per_block * preset.sector_bytes / preset.dram_bytes_per_cycle
    )
    return demand


def warp_latency(
    mean: Mapping[str, float],
    warps_per_block: int,
    traffic: MemoryTraffic,
    preset: GpuPreset,
    constants: CostConstants = DEFAULT_CONSTANTS,
) -> float:
    """One warp's serial latency in cycles (step 2 of the module docstring).

    >>> from tinycomp.targets.gpu_sim.cost_memory import MemoryTraffic
    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> traffic = MemoryTraffic(4, 4, 0.0, 4, 0.0, 4, 4)  # every load from DRAM
    >>> warp_latency({"inst_fp32": 10.0, "inst_ld_global": 2.0}, 2, traffic,
    ...              lookup_preset("a100"))
    520.0
    """

    def per_warp(name: str) -> float:
        return mean.get(name, 0.0) / warps_per_block

    l1, l2, dram = traffic.load_level_fractions()
    load = l1 * constants.l1_hit_latency + l2 * preset.latency_l2 + dram * preset.latency_dram
    if not traffic.load_sectors_per_block:
        load = preset.latency_l2
    shared_requests = per_warp("shared_load_requests")
    extra_wavefronts = max(0.0, per_warp("shared_load_wavefronts") - shared_requests)
    cycles = (
        sum(per_warp(f"inst_{c}") for c in (*_ALU_CLASSES, *_ISSUE_ONLY)) * preset.latency_alu
        + per_warp("inst_ld_shared") * preset.latency_shared
        + extra_wavefronts
        + per_warp("inst_ld_global") * load
        + per_warp("inst_ld_local") * constants.l1_hit_latency
        + per_warp("inst_atomic_global") * preset.latency_l2
        + per_warp("inst_atomic_shared") * preset.latency_shared
        + per_warp("atomic_conflicts") * constants.atomic_conflict_cycles
    )
    return cycles / constants.instruction_level_parallelism


def _check(counters: KernelCounters, preset: GpuPreset, occ: Occupancy) -> None:
    if occ.preset != preset.name:
        raise ValueError(
            f"the occupancy was computed for preset '{occ.preset}', the estimate asks for "
            f"'{preset.name}'"
        )
    if occ.threads_per_block != counters.threads_per_block:
        raise ValueError(
            f"the counters are of blocks of {counters.threads_per_block} threads, the "
            f"occupancy of blocks of {occ.threads_per_block}"
        )
    if counters.blocks_total < 1 or not len(counters.block_ids):
        raise ValueError(f"the counters hold no blocks (blocks_total={counters.blocks_total})")


def estimate(
    counters: KernelCounters,
    preset: GpuPreset,
    occupancy: Occupancy,
    *,
    flops: float | None = None,
    array_bytes: Mapping[str, int] | None = None,
    constants: CostConstants = DEFAULT_CONSTANTS,
) -> Estimate:
    """The kernel's estimated time and what binds it (see the module docstring).

    ``flops`` is the kernel's real FLOP count when known (``2*M*N*K``); without it each
    active lane of an fp32/fp16/fp64 instruction counts one FLOP. ``array_bytes`` (array
    name -> bytes) caps the footprint estimated from a sampled run.
    """
    _check(counters, preset, occupancy)
    mean = {name: float(values.mean()) for name, values in counters.per_block.items()}
    traffic = memory_traffic(counters, preset, occupancy, array_bytes, constants)
    demand = block_demand(mean, traffic, preset, constants)
    latency = warp_latency(mean, occupancy.warps_per_block, traffic, preset, constants)
    schedule = waves(preset, counters.blocks_total, occupancy.blocks_per_sm)

    breakdown = dict.fromkeys(LIMITS, 0.0)
    cycles = 0.0
    last = schedule.waves - 1
    kinds = [(0, schedule.full_waves)] + ([(last, 1)] if schedule.tail_blocks else [])
    for wave, count in kinds:
        if count == 0:
            continue
        k, busy = schedule.busiest_sm_blocks(wave), schedule.active_sms(wave)
        times = {limit: k * demand[limit] for limit in demand}
        times["l2"] *= busy
        times["dram"] *= busy
        times["latency"] = latency
        for limit, t in times.items():
            breakdown[limit] += t * count
        cycles += max(times.values()) * count
    breakdown["launch"] = preset.launch_overhead_us * preset.clock_ghz * 1e3
    cycles += breakdown["launch"]

    notes = list(traffic.notes)
    if flops is None:
        fp = sum(counters.total(f"inst_{c}") for c in ("fp32", "fp16", "fp64"))
        flops = fp * preset.warp_size * counters.simt_efficiency()
        if flops:
            notes.append(
                "FLOPs counted as one per active lane of each fp instruction (an FMA counts "
                "one; pass flops= when the true count is known)"
            )
    if schedule.tail_blocks:
        notes.append(
            f"the last of {schedule.waves} waves is {schedule.tail_fraction:.0%} full "
            f"({schedule.tail_blocks} of {schedule.wave_size} blocks)"
        )
    seconds = cycles / (preset.clock_ghz * 1e9)
    dram_bytes = traffic.dram_sectors_per_block * counters.blocks_total * preset.sector_bytes
    l2_bytes = traffic.l2_sectors_per_block * counters.blocks_total * preset.sector_bytes
    return Estimate(
        preset=preset.name,
        cycles=cycles,
        seconds=seconds,
        binding=max(LIMITS, key=lambda limit: breakdown[limit]),
        breakdown=breakdown,
        waves=schedule.waves,
        blocks_per_sm=occupancy.blocks_per_sm,
        tail_fraction=schedule.tail_fraction,
        flops=float(flops),
        dram_bytes=dram_bytes,
        l2_bytes=l2_bytes,
        arithmetic_intensity=flops / dram_bytes if dram_bytes else float("inf"),
        achieved_gflops=flops / seconds / 1e9,
        l1_hit_fraction=traffic.l1_hit_fraction,
        l2_hit_fraction=traffic.l2_hit_fraction,
        sampled=counters.sampled,
        notes=notes,
    )
