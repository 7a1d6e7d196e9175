"""The GPU cost model: a kernel's time from the simulator's counters, and what limits it.

A throughput model in the style of the roofline, per SM and per wave (``waves.py``):
the blocks resident on one SM together ask for some work of each unit; the unit that
needs the longest sets the wave's time, unless one block's memory latency is longer
than the others can cover. In order:

1. **Per block** (means over the simulated blocks): the demand on each limit
   (``block_demand``), in cycles of one SM:

   * ``issue``: warp instructions / warp schedulers (each issues one a cycle);
   * ``fp32``, ``fp64``, ``int``, ``sfu``, ``ld/st``: the unit's warp instructions x 32 /
     its lanes per cycle. A warp instruction holds all 32 lanes of its unit whether or
     not they are active, so divergence costs time. f16/bf16 run on the FP32 lanes (no
     packing in pairs); conversions and votes on the integer lanes; memory instructions,
     atomics and shuffles on the load/store lanes; ids, moves, branches and barriers
     only take an issue slot. FP64 lanes are a fraction of FP32 (``cost_constants``);
   * ``l1/shared``: the L1/shared pipeline handles one *wavefront* a cycle: one 128 B
     line of a global request (its tag stage looks up one line a cycle, and a line's
     data is one pass of the 128 B/cycle data path), one shared-memory wavefront (a
     pass of the same data path: 32 banks x 4 B), or 128 B of local memory. A request's
     lines (``global_lines``): at least one; its bytes, if contiguous, fill lines of 4
     sectors; each sector beyond the fewest it could occupy (an uncoalesced access,
     stride >= 128 B) lands in a line of its own;
   * ``l2``, ``dram``: the block's L2 and DRAM bytes (the reuse model, ``cost_memory.py``)
     over the SM's share of that bandwidth: the chip's, split over the SMs busy in the wave.
2. **Exposed latency** (``exposed_latency``). A block's warps run the same loops and meet
   at its barriers, so they wait for memory together: each *round* (a tile, or 4
   iterations of a run-time loop, ``cost_memory.memory_rounds``) in which a warp loads
   from global memory waits one global latency (``latency_l2``, plus the DRAM fraction
   of the L2 requests times the extra ``latency_dram - latency_l2``: a round waits for
   its slowest line, and a sweep brings a new line to L1 every round); each round with
   shared loads waits ``latency_shared`` once (the loads of a round issue together).
   Arithmetic latency (4 cycles) is covered by the warp's independent instructions or
   the other warps; stores and barriers issue and go on.
3. **Waves.** On an SM holding ``k`` blocks, a wave takes ``max(k * D, D + L)``: ``D`` the
   largest throughput demand of one block, ``L`` its exposed latency. The other ``k - 1``
   blocks issue while one waits; with ``k = 1`` nothing covers the wait. Kernel cycles =
   the sum over waves + the launch overhead. ``breakdown`` sums each limit over the waves
   as if it were alone (``latency``: the exposed latency); ``binding`` is the largest
   (ties: the units before ``issue``).

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
from tinycomp.targets.gpu_sim.cost_memory import MemoryTraffic, memory_rounds, memory_traffic
from tinycomp.targets.gpu_sim.counters import INSTRUCTION_CLASSES, KernelCounters
from tinycomp.targets.gpu_sim.occupancy import Occupancy
from tinycomp.targets.gpu_sim.preset import GpuPreset
from tinycomp.targets.gpu_sim.waves import waves

__all__ = ["Estimate", "block_demand", "estimate", "exposed_latency", "global_lines"]

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


def global_lines(mean: Mapping[str, float], kind: str, preset: GpuPreset) -> float:
    """128 B lines one block's global ``kind`` ("load" or "store") requests touch.

    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> a100 = lookup_preset("a100")
    >>> strided = {"global_load_requests": 1, "global_load_sectors": 32,
    ...            "global_load_sectors_ideal": 4}  # 32 floats, 128 B apart
    >>> wide = {"global_load_requests": 1, "global_load_sectors": 16,
    ...         "global_load_sectors_ideal": 16}  # 32 float4s in a row
    >>> global_lines(strided, "load", a100), global_lines(wide, "load", a100)
    (29.0, 4.0)
    """
    requests = mean.get(f"global_{kind}_requests", 0.0)
    sectors = mean.get(f"global_{kind}_sectors", 0.0)
    ideal = mean.get(f"global_{kind}_sectors_ideal", sectors)
    per_line = preset.line_bytes // preset.sector_bytes
    return requests + max(0.0, ideal / per_line - requests) + max(0.0, sectors - ideal)


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
    issued = sum(inst(c) for c in INSTRUCTION_CLASSES)
    demand = {"issue": issued / preset.schedulers_per_sm}
    for unit, lanes in _lanes(preset, constants).items():
        demand[unit] = sum(inst(c) for c in _UNITS[unit]) * warp / lanes
    shared = sum(mean.get(f"shared_{k}_wavefronts", 0.0) for k in ("load", "store", "atomic"))
    local = mean.get("local_load_bytes", 0.0) + mean.get("local_store_bytes", 0.0)
    lines = (
        global_lines(mean, "load", preset)
        + global_lines(mean, "store", preset)
        + mean.get("global_atomic_sectors", 0.0)
    )
    demand["l1/shared"] = lines + shared + local / preset.l1_bytes_per_cycle
    demand["l2"] = traffic.l2_sectors_per_block * preset.sector_bytes / preset.l2_bytes_per_cycle
    demand["dram"] = (
        traffic.dram_sectors_per_block * preset.sector_bytes / preset.dram_bytes_per_cycle
    )
    return demand


def exposed_latency(
    mean: Mapping[str, float],
    warps_per_block: int,
    traffic: MemoryTraffic,
    preset: GpuPreset,
    constants: CostConstants = DEFAULT_CONSTANTS,
) -> float:
    """Cycles one block waits for memory with none of its warps able to issue (step 2).

    >>> from tinycomp.targets.gpu_sim.cost_memory import MemoryTraffic
    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> traffic = MemoryTraffic(4, 4, 0.0, 4, 0.0, 4, 4)  # every load from DRAM
    >>> mean = {"inst_ld_global": 4.0, "inst_branch": 8.0, "global_load_sectors": 4.0}
    >>> exposed_latency(mean, 1, traffic, lookup_preset("a100"))  # 2 rounds of 4 loops
    1000.0
    """

    def per_warp(name: str) -> float:
        return mean.get(name, 0.0) / warps_per_block

    rounds = memory_rounds(mean, warps_per_block)
    global_rounds = min(per_warp("inst_ld_global") + per_warp("inst_atomic_global"), rounds)
    shared_rounds = min(per_warp("inst_ld_shared") + per_warp("inst_atomic_shared"), rounds)
    dram_fraction = 1.0 - traffic.l2_hit_fraction if traffic.l2_sectors_per_block else 1.0
    global_latency = preset.latency_l2 + dram_fraction * (preset.latency_dram - preset.latency_l2)
    return (
        global_rounds * global_latency
        + shared_rounds * preset.latency_shared
        + per_warp("atomic_conflicts") * constants.atomic_conflict_cycles
    )


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
    mean = counters.means()
    traffic = memory_traffic(counters, preset, occupancy, array_bytes, constants, mean=mean)
    demand = block_demand(mean, traffic, preset, constants)
    latency = exposed_latency(mean, occupancy.warps_per_block, traffic, preset, constants)
    schedule = waves(preset, counters.blocks_total, occupancy.blocks_per_sm)

    breakdown = dict.fromkeys(LIMITS, 0.0)
    cycles = 0.0
    last = schedule.waves - 1
    kinds = [(0, schedule.full_waves)] + ([(last, 1)] if schedule.tail_blocks else [])
    for wave, count in kinds:
        if count == 0:
            continue
        k, busy = schedule.busiest_sm_blocks(wave), schedule.active_sms(wave)
        one_block = dict(demand)
        one_block["l2"] *= busy
        one_block["dram"] *= busy
        widest = max(one_block.values())
        for limit, t in one_block.items():
            breakdown[limit] += k * t * count
        breakdown["latency"] += latency * count
        cycles += max(k * widest, widest + latency) * count
    breakdown["launch"] = preset.launch_overhead_us * preset.clock_ghz * 1e3
    cycles += breakdown["launch"]

    notes = list(traffic.notes)
    if flops is None:
        sums = counters.sums()
        fp = sum(sums[f"inst_{c}"] for c in ("fp32", "fp16", "fp64"))
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
