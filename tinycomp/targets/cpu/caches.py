"""The data caches of one core: size, line, associativity, as the OS reports them.

A cache of ``size`` bytes with lines of ``line_size`` bytes and ``ways``-way
associativity has ``sets = size / (ways * line_size)`` sets; an address goes to set
``(address / line_size) mod sets`` and may sit in any of that set's ``ways`` slots.
So a cache is best pictured as ``ways`` columns ("ways") of ``sets * line_size`` bytes
each: data laid out contiguously fills one way before it needs the next one. The
GEMM blocking (``blocking.py``) reasons in whole ways, as Low et al. do.

Linux describes every cache of CPU 0 in ``/sys/devices/system/cpu/cpu0/cache/index*/``:
``level``, ``type`` (``Data``, ``Instruction``, ``Unified``), ``size`` (``48K``),
``coherency_line_size``, ``ways_of_associativity`` and ``shared_cpu_list`` (the
logical CPUs that share it, ``0-7``). ``read_caches`` reads them:

1. For each ``index*`` folder, read the files; skip instruction caches and any
   folder whose files are missing or unreadable.
2. Count the CPUs in ``shared_cpu_list`` (``0-3,8-11`` is 8).
3. Return one ``CacheLevel`` per level (1, 2, 3), data or unified; an empty dict when
   the folder does not exist (macOS, Windows, a container without ``/sys``).

>>> l1 = CacheLevel(level=1, size=48 * 1024, line_size=64, ways=12)
>>> l1.sets, l1.way_bytes
(64, 4096)
>>> parse_size("1024K"), parse_size("32M"), count_cpus("0-3,8-11")
(1048576, 33554432, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["SYSFS_CACHE", "CacheLevel", "count_cpus", "parse_size", "read_caches"]

SYSFS_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")
"""Where Linux describes the caches of CPU 0."""


@dataclass(frozen=True)
class CacheLevel:
    """One level of a core's data-cache hierarchy.

    >>> l3 = CacheLevel(level=3, size=32 << 20, line_size=64, ways=16, shared_by=8)
    >>> l3.per_core().size >> 20, l3.per_core().ways
    (4, 16)
    """

    level: int
    """1, 2 or 3."""
    size: int
    """Capacity in bytes (the whole cache, also when several cores share it)."""
    line_size: int
    """Bytes per cache line (64 on x86, 128 on Apple's cores)."""
    ways: int
    """Associativity: how many lines one set holds."""
    shared_by: int = 1
    """How many cores share this cache (a last-level cache is usually shared)."""

    @property
    def sets(self) -> int:
        """Number of sets: ``size / (ways * line_size)``."""
        return self.size // (self.ways * self.line_size)

    @property
    def way_bytes(self) -> int:
        """Bytes in one way (``sets * line_size``): what contiguous data fills first."""
        return self.sets * self.line_size

    def per_core(self) -> CacheLevel:
        """This cache as one core's share: the sets divided among the cores that share
        it, the associativity kept (each core gets a slice of every way)."""
        if self.shared_by <= 1:
            return self
        share = self.sets // self.shared_by * self.ways * self.line_size
        return CacheLevel(self.level, share, self.line_size, self.ways, 1)

    def __str__(self) -> str:
        shared = f", shared by {self.shared_by} cores" if self.shared_by > 1 else ""
        return (
            f"L{self.level} {format_bytes(self.size)} {self.ways}-way "
            f"{self.line_size} B lines{shared}"
        )


def format_bytes(size: int) -> str:
    """``48 KiB``, ``1 MiB``, ``640 B``.

    >>> format_bytes(48 * 1024), format_bytes(1 << 20), format_bytes(640)
    ('48 KiB', '1 MiB', '640 B')
    """
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def parse_size(text: str) -> int:
    """Bytes of a sysfs size: ``48K``, ``1024K``, ``32M``, or a plain number.

    >>> parse_size("64")
    64
    """
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if scale != 1 else text
    return int(digits) * scale


def count_cpus(cpu_list: str) -> int:
    """How many CPUs a list such as ``0-3,8-11`` or ``5`` names (step 2)."""
    count = 0
    for part in cpu_list.strip().split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        count += int(last or first) - int(first) + 1
    return count


def read_caches(folder: Path = SYSFS_CACHE) -> dict[int, CacheLevel]:
    """The data caches of CPU 0 by level (steps 1-3); ``{}`` when ``folder`` is absent.

    ``shared_by`` counts *cores*: the CPUs sharing the cache divided by the CPUs
    sharing the L1 (the hardware threads of one core).

    >>> read_caches(Path("/no/such/folder"))
    {}
    """
    found: dict[int, tuple[int, int, int, int]] = {}
    for index in sorted(folder.glob("index*")) if folder.is_dir() else []:
        try:
            kind = (index / "type").read_text().strip()
            if kind not in ("Data", "Unified"):
                continue
            level = int((index / "level").read_text())
            size = parse_size((index / "size").read_text())
            line = int((index / "coherency_line_size").read_text())
            ways = int((index / "ways_of_associativity").read_text())
            cpus = count_cpus((index / "shared_cpu_list").read_text())
        except (OSError, ValueError):
            continue
        if size > 0 and line > 0 and ways > 0:
            found[level] = (size, line, ways, cpus)
    threads_per_core = found[1][3] if 1 in found else 1
    return {
        level: CacheLevel(level, size, line, ways, max(1, cpus // max(1, threads_per_core)))
        for level, (size, line, ways, cpus) in sorted(found.items())
    }
