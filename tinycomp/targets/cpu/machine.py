"""A model of one CPU core, as much as a GEMM needs: SIMD width, registers, FMA units, caches.

The blocking of a matrix multiplication (``blocking.py``) is arithmetic on a few
numbers about the core it runs on:

* the **SIMD width**: how many floats one vector instruction processes (``lanes``):
  AVX-512 registers hold 16 f32, AVX2 8, NEON 4;
* the **vector registers**: 32 with AVX-512 and NEON, 16 with AVX2;
* the **FMA units** and their **latency**: how many fused multiply-adds start per
  cycle, and how many cycles one takes (so how many independent ones must be in flight
  to keep the units busy), and how many vector **loads** issue per cycle;
* the **caches**: size, line and associativity of L1d, L2 and L3 (``caches.py``).

``detect_machine()`` reads what the machine says about itself:

1. Ask LLVM (through llvmlite) for the host CPU's name (``znver5``, ``skylake``,
   ``apple-m1``) and its features (``+avx512f``, ``+avx2``, ``+fma``, ``+neon``); the
   best vector extension gives the width and the register count (``simd_of``).
2. Look the CPU name up in ``CORE_TIMINGS`` for FMA units, latency and load ports:
   these are not reported by the hardware, they come from the vendors' optimization
   manuals and measurements; an unknown CPU gets ``DEFAULT_TIMING``.
3. Read the caches from Linux's ``/sys`` (``caches.read_caches``). Where that fails
   (another OS, a container without ``/sys``, a level missing), take the caches of the
   preset with the same vector extension and say so in ``source``: the fallback is
   visible, never silent.

``PRESETS`` name three cores to compare against (and to teach with on any machine):
a laptop AVX2 core, an AMD Zen 5 server core, and an Apple M1 performance core.

>>> m = PRESETS["laptop-avx2"]
>>> m.isa, m.lanes(), m.vector_registers, m.flops_per_cycle()
('AVX2', 8, 16, 32)
>>> PRESETS["znver5"].lanes(), PRESETS["apple-m1"].lanes()
(16, 4)
>>> detect_machine().lanes() in (4, 8, 16)
True
"""

from __future__ import annotations

import platform
from dataclasses import dataclass, replace
from typing import NamedTuple

from tinycomp.targets.cpu.caches import SYSFS_CACHE, CacheLevel, read_caches

__all__ = [
    "CORE_TIMINGS",
    "DEFAULT_TIMING",
    "PRESETS",
    "CoreTiming",
    "CpuMachine",
    "Simd",
    "detect_machine",
    "simd_of",
]


class Simd(NamedTuple):
    """A vector extension: its name, register width in bits, number of registers."""

    isa: str
    bits: int
    registers: int


class CoreTiming(NamedTuple):
    """What the hardware does not report: FMA units, FMA latency, vector loads per cycle."""

    fma_units: int
    """Vector FMAs that can start each cycle (at the full register width)."""
    fma_latency: int
    """Cycles from an FMA's start to its result being usable."""
    load_ports: int
    """Vector loads (or broadcasts from memory) that can issue each cycle."""


CORE_TIMINGS: dict[str, CoreTiming] = {
    "haswell": CoreTiming(2, 5, 2),
    "broadwell": CoreTiming(2, 5, 2),
    "skylake": CoreTiming(2, 4, 2),
    "alderlake": CoreTiming(2, 4, 2),
    "skylake-avx512": CoreTiming(2, 4, 2),
    "cascadelake": CoreTiming(2, 4, 2),
    "icelake-server": CoreTiming(2, 4, 2),
    "sapphirerapids": CoreTiming(2, 4, 2),
    "znver1": CoreTiming(2, 5, 2),
    "znver2": CoreTiming(2, 5, 2),
    "znver3": CoreTiming(2, 4, 2),
    "znver4": CoreTiming(1, 4, 2),  # 512-bit FMAs run as two halves on 256-bit units
    "znver5": CoreTiming(2, 4, 2),  # full 512-bit FMA units (server parts)
    "apple-m1": CoreTiming(4, 4, 3),
    "apple-m2": CoreTiming(4, 4, 3),
    "apple-m3": CoreTiming(4, 4, 3),
    "apple-m4": CoreTiming(4, 4, 3),
}
"""FMA units, FMA latency and load ports per LLVM CPU name (vendor manuals, Agner Fog's
instruction tables, and for Apple cores published measurements)."""

DEFAULT_TIMING = CoreTiming(2, 4, 2)
"""For a CPU not in ``CORE_TIMINGS``: two FMA units of latency 4, two load ports."""


@dataclass(frozen=True)
class CpuMachine:
    """One core as the GEMM blocking sees it (see the module docstring)."""

    name: str
    """A label: the preset's name, or the host CPU's LLVM name."""
    llvm_cpu: str
    """LLVM's name of the CPU (``znver5``): the target the code is generated for."""
    simd: Simd
    """The widest vector extension the code may use."""
    timing: CoreTiming
    """FMA units, latency and load ports."""
    l1: CacheLevel
    """The level-1 data cache."""
    l2: CacheLevel
    """The level-2 cache."""
    l3: CacheLevel | None
    """The level-3 cache, ``None`` where the core has none (Apple's cores)."""
    source: str = "preset"
    """Where the figures came from: ``preset``, ``detected ...``, or the fallback taken."""

    @property
    def isa(self) -> str:
        """The vector extension's name: ``AVX-512``, ``AVX2``, ``NEON``..."""
        return self.simd.isa

    @property
    def vector_registers(self) -> int:
        """Architectural vector registers (what the register allocator can use)."""
        return self.simd.registers

    def lanes(self, itemsize: int = 4) -> int:
        """Elements of ``itemsize`` bytes in one vector register (16 f32 with AVX-512)."""
        return self.simd.bits // (8 * itemsize)

    def flops_per_cycle(self, itemsize: int = 4) -> int:
        """Peak FLOPs per cycle: 2 (multiply and add) x lanes x FMA units."""
        return 2 * self.lanes(itemsize) * self.timing.fma_units

    def describe(self) -> str:
        """A few lines about the core, for notebooks and benchmark reports.

        >>> print(PRESETS["apple-m1"].describe())
        apple-m1 (LLVM cpu apple-m1, preset)
          NEON: 128-bit vectors (4 f32 lanes), 32 registers
          FMA: 4 units, latency 4 cycles, 3 vector loads per cycle -> 32 FLOP/cycle (f32)
          L1 128 KiB 8-way 128 B lines
          L2 12 MiB 12-way 128 B lines, shared by 4 cores
          L3 none
        """
        t = self.timing
        return "\n".join(
            [
                f"{self.name} (LLVM cpu {self.llvm_cpu}, {self.source})",
                f"  {self.isa}: {self.simd.bits}-bit vectors ({self.lanes()} f32 lanes), "
                f"{self.vector_registers} registers",
                f"  FMA: {t.fma_units} units, latency {t.fma_latency} cycles, "
                f"{t.load_ports} vector loads per cycle -> {self.flops_per_cycle()} "
                "FLOP/cycle (f32)",
                f"  {self.l1}",
                f"  {self.l2}",
                f"  {self.l3}" if self.l3 is not None else "  L3 none",
            ]
        )


def simd_of(features: str, arch: str = "x86_64") -> Simd:
    """The widest vector extension in an LLVM feature string (``+avx2,+fma,...``).

    >>> simd_of("+avx,+avx2,+fma,-avx512f")
    Simd(isa='AVX2', bits=256, registers=16)
    >>> simd_of("+avx512f,+avx512vl"), simd_of("+neon", arch="arm64").isa
    (Simd(isa='AVX-512', bits=512, registers=32), 'NEON')
    """
    enabled = {f[1:] for f in features.split(",") if f.startswith("+")}
    if arch.lower() in ("arm64", "aarch64"):
        return Simd("NEON", 128, 32)
    if "avx512f" in enabled:
        return Simd("AVX-512", 512, 32)
    if "avx2" in enabled and "fma" in enabled:
        return Simd("AVX2", 256, 16)
    if "avx" in enabled:
        return Simd("AVX", 256, 16)
    return Simd("SSE", 128, 16)


def _kib(n: int) -> int:
    return n << 10


PRESETS: dict[str, CpuMachine] = {
    "laptop-avx2": CpuMachine(
        "laptop-avx2",
        "skylake",
        Simd("AVX2", 256, 16),
        CORE_TIMINGS["skylake"],
        CacheLevel(1, _kib(32), 64, 8),
        CacheLevel(2, _kib(256), 64, 4),
        CacheLevel(3, 8 << 20, 64, 16, shared_by=4),
    ),
    "znver5": CpuMachine(
        "znver5",
        "znver5",
        Simd("AVX-512", 512, 32),
        CORE_TIMINGS["znver5"],
        CacheLevel(1, _kib(48), 64, 12),
        CacheLevel(2, 1 << 20, 64, 16),
        CacheLevel(3, 32 << 20, 64, 16, shared_by=8),
    ),
    "apple-m1": CpuMachine(
        "apple-m1",
        "apple-m1",
        Simd("NEON", 128, 32),
        CORE_TIMINGS["apple-m1"],
        CacheLevel(1, _kib(128), 128, 8),
        CacheLevel(2, 12 << 20, 128, 12, shared_by=4),
        None,
    ),
}
"""Three cores to compare: a Skylake-class laptop core (AVX2), an AMD EPYC Zen 5 core
(AVX-512, L3 of one 8-core CCD) and an Apple M1 performance core (NEON, 128-byte lines,
an L2 shared by the four performance cores and no L3 for the CPU to block for)."""

_FALLBACK_PRESET = {"AVX-512": "znver5", "NEON": "apple-m1"}
"""Whose caches to take when the host's cannot be read (default: ``laptop-avx2``)."""


def detect_machine() -> CpuMachine:
    """This machine's core (steps 1-3 of the module docstring).

    >>> m = detect_machine()
    >>> m.l1.size > 0 and m.l2.size > m.l1.size
    True
    """
    from tinycomp.codegen.cpu.target import host_cpu  # llvmlite: imported when needed

    cpu, features = host_cpu()  # step 1
    simd = simd_of(features, platform.machine())
    timing = CORE_TIMINGS.get(cpu, DEFAULT_TIMING)  # step 2
    caches = read_caches()  # step 3
    if 1 in caches and 2 in caches:
        source = f"detected: LLVM host cpu and features, caches from {SYSFS_CACHE}"
        if cpu not in CORE_TIMINGS:
            source += "; FMA timing assumed (unknown cpu)"
        return CpuMachine(cpu, cpu, simd, timing, caches[1], caches[2], caches.get(3), source)
    preset = PRESETS[_FALLBACK_PRESET.get(simd.isa, "laptop-avx2")]
    source = (
        f"detected cpu {cpu} ({simd.isa}); caches not readable from {SYSFS_CACHE}, "
        f"using those of preset '{preset.name}'"
    )
    return replace(preset, name=cpu, llvm_cpu=cpu, simd=simd, timing=timing, source=source)
