"""Occupancy: how many blocks of a kernel one SM holds at once, and which resource says so.

An SM keeps a block resident until it finishes; how many fit at a time is the smallest of
four limits, computed as CUDA's occupancy calculator (``cudaOccMaxActiveBlocksPerMultiprocessor``
in ``cuda_occupancy.h``) does:

1. **Registers.** A warp gets ``roundup(registers_per_thread * 32, 256)`` registers; the
   register file is split evenly over the SM's sub-partitions (one per warp scheduler), each
   holds ``floor((registers_per_sm / sub-partitions) / registers_per_warp)`` warps, and the
   blocks are ``floor(sub-partitions * that / warps_per_block)``.
2. **Shared memory.** A block takes ``roundup(shared_bytes + reserve, 128)`` bytes (the
   driver keeps a 1 KB reserve per block on sm_80 and later) out of the carve-out of the
   unified L1/shared array; the blocks are ``floor(carve-out / that)``. The limit is
   reported for the largest carve-out; the carve-out the driver picks is the smallest one
   that still holds as many blocks as the other limits allow (the rest stays L1 cache).
3. **Warps.** ``floor(max_warps_per_sm / warps_per_block)``.
4. **Blocks.** The hardware cap, ``max_blocks_per_sm``.

Occupancy is ``blocks * warps_per_block / max_warps_per_sm``. When limits tie, all are
listed; the first named is, in this order, warps, blocks, registers, shared memory: a
structural cap before a resource that merely fits exactly.

>>> from tinycomp.targets.gpu_sim.preset import lookup_preset
>>> occ = occupancy(lookup_preset("a100"), 256, 64, 0)
>>> occ.blocks_per_sm, occ.occupancy, occ.binding
(4, 0.5, 'registers')
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.targets.gpu_sim.preset import GpuPreset

__all__ = ["LIMIT_ORDER", "Occupancy", "OccupancyError", "occupancy"]

LIMIT_ORDER = ("warps", "blocks", "registers", "shared memory")
"""The limits, in the order ties are named."""


class OccupancyError(ValueError):
    """A block that cannot run on the preset at all (it names the limit and the preset)."""


@dataclass(frozen=True)
class Occupancy:
    """How many blocks of one kernel an SM holds, and why."""

    preset: str
    threads_per_block: int
    registers_per_thread: int
    shared_bytes_per_block: int
    warps_per_block: int
    blocks_per_sm: int
    warps_per_sm: int
    occupancy: float
    """Resident warps as a fraction of ``max_warps_per_sm``."""
    binding: str
    """The limit that binds (the first of ``bound_by``)."""
    bound_by: tuple[str, ...]
    """Every limit that allows exactly ``blocks_per_sm`` blocks, in ``LIMIT_ORDER``."""
    limits: dict[str, int | None]
    """Blocks each limit allows (``None``: that resource is not used, no limit)."""
    carveout_kb: int
    """The shared-memory carve-out the driver picks; the rest of the array is L1."""

    def __str__(self) -> str:
        """The four limits as a table, the binding one marked.

        >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
        >>> print(occupancy(lookup_preset("a100"), 256, 32, 0))  # doctest: +NORMALIZE_WHITESPACE
        a100: 256 threads, 32 registers, 0 B shared per block
        limit          blocks/SM
        warps                  8  <- binds
        blocks                32
        registers              8  <- binds
        shared memory        164
        resident: 8 blocks, 64 warps, occupancy 100%, carve-out 8 KB
        """
        lines = [
            f"{self.preset}: {self.threads_per_block} threads, {self.registers_per_thread} "
            f"registers, {self.shared_bytes_per_block} B shared per block",
            f"{'limit':<14}{'blocks/SM':>10}",
        ]
        for name in LIMIT_ORDER:
            value = self.limits[name]
            shown = "no limit" if value is None else str(value)
            mark = "  <- binds" if name in self.bound_by else ""
            lines.append(f"{name:<14}{shown:>10}{mark}")
        lines.append(
            f"resident: {self.blocks_per_sm} blocks, {self.warps_per_sm} warps, "
            f"occupancy {self.occupancy:.0%}, carve-out {self.carveout_kb} KB"
        )
        return "\n".join(lines)


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _check_block(preset: GpuPreset, threads: int, registers: int, shared: int, warps: int) -> None:
    """Raise ``OccupancyError`` for a block that cannot be launched on ``preset``."""
    where = f"on preset '{preset.name}'"
    if threads < 1:
        raise OccupancyError(f"threads per block must be at least 1, got {threads}")
    if threads > preset.max_threads_per_block:
        raise OccupancyError(
            f"threads per block: {threads} is over the limit of "
            f"{preset.max_threads_per_block} {where}"
        )
    if registers < 0 or registers > preset.max_registers_per_thread:
        raise OccupancyError(
            f"registers per thread: {registers} is over the limit of "
            f"{preset.max_registers_per_thread} {where}"
        )
    per_block = _round_up(registers * preset.warp_size, preset.register_allocation_unit) * warps
    if per_block > preset.max_registers_per_block:
        raise OccupancyError(
            f"registers per block: {registers} per thread x {threads} threads allocate "
            f"{per_block}, over the limit of {preset.max_registers_per_block} {where}"
        )
    if shared < 0 or shared > preset.max_shared_per_block:
        raise OccupancyError(
            f"shared memory per block: {shared} B is over the limit of "
            f"{preset.max_shared_per_block} B {where}"
        )


def occupancy(
    preset: GpuPreset,
    threads_per_block: int,
    registers_per_thread: int,
    shared_bytes_per_block: int,
) -> Occupancy:
    """Blocks per SM and occupancy, with the limit that binds (see the module docstring).

    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> occ = occupancy(lookup_preset("a100"), 256, 32, 48 * 1024)
    >>> occ.blocks_per_sm, occ.binding, occ.carveout_kb
    (3, 'shared memory', 164)
    >>> try:
    ...     occupancy(lookup_preset("a100"), 256, 256, 0)
    ... except OccupancyError as error:
    ...     print(error)
    registers per thread: 256 is over the limit of 255 on preset 'a100'
    """
    threads, registers, shared = threads_per_block, registers_per_thread, shared_bytes_per_block
    warps = -(-threads // preset.warp_size) if threads > 0 else 0
    _check_block(preset, threads, registers, shared, warps)
    subpartitions = preset.schedulers_per_sm

    limits: dict[str, int | None] = {
        "warps": preset.max_warps_per_sm // warps,
        "blocks": preset.max_blocks_per_sm,
        "registers": None,
        "shared memory": None,
    }
    if registers > 0:
        per_warp = _round_up(registers * preset.warp_size, preset.register_allocation_unit)
        warps_per_subpartition = (preset.registers_per_sm // subpartitions) // per_warp
        limits["registers"] = subpartitions * warps_per_subpartition // warps
    allocated = _round_up(shared + preset.shared_reserve_per_block, preset.shared_granularity)
    if allocated > 0:
        limits["shared memory"] = preset.max_shared_per_sm // allocated
    blocks = min(v for v in limits.values() if v is not None)
    if blocks == 0:
        short = next(name for name in LIMIT_ORDER if limits[name] == 0)
        raise OccupancyError(
            f"{short}: not even one block of {threads} threads fits an SM of preset '{preset.name}'"
        )
    bound_by = tuple(name for name in LIMIT_ORDER if limits[name] == blocks)

    carveout = max(preset.shared_carveouts_kb)
    if allocated > 0:
        carveout = min(kb for kb in preset.shared_carveouts_kb if kb * 1024 >= blocks * allocated)
    else:
        carveout = min(preset.shared_carveouts_kb)
    return Occupancy(
        preset=preset.name,
        threads_per_block=threads,
        registers_per_thread=registers,
        shared_bytes_per_block=shared,
        warps_per_block=warps,
        blocks_per_sm=blocks,
        warps_per_sm=blocks * warps,
        occupancy=blocks * warps / preset.max_warps_per_sm,
        binding=bound_by[0],
        bound_by=bound_by,
        limits=limits,
        carveout_kb=carveout,
    )
