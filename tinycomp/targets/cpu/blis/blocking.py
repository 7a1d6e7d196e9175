"""GEMM blocking: MR, NR, KC, MC, NC from the machine model, by analysis, not search.

BLIS computes ``C += A @ B`` as five loops around a *micro-kernel* (``gemm.py``)::

    for jc in range(0, n, NC):          # a KC x NC panel of B   -> lives in L3
      for pc in range(0, k, KC):        #   pack it: B~
        for ic in range(0, m, MC):      # an MC x KC block of A   -> lives in L2
          pack A~                       #
          for jr in range(0, NC, NR):   # a KC x NR sliver of B~  -> lives in L1
            for ir in range(0, MC, MR): # an MR x KC sliver of A~ -> streams through L1
              micro-kernel: C[MR x NR] += A~ sliver @ B~ sliver  (in registers)

Each block size is chosen so that the data a loop reuses stays in the cache level it
is reused from. Low, Igual, Smith and Quintana-Orti, "Analytical Modeling Is Enough
for High-Performance BLIS" (ACM TOMS 43(2), 2016), derive all five from the machine's
parameters; tinycomp follows them, in their orientation transposed (our vectors run
along a row of C, so ``NR`` is the vector dimension) and with one change for MR, NR.
``S`` is the element size in bytes; a cache has ``W`` ways of ``N x L`` bytes each
(``N`` sets of ``L``-byte lines, ``caches.py``).

1. **MR, NR (registers).** The MR x NR tile of C stays in ``MR * NR/lanes`` vector
   registers for a whole KC loop; each step loads ``NR/lanes`` vectors of B and
   broadcasts ``MR`` elements of A, then does ``MR * NR/lanes`` FMAs.
   a. *Latency* (Low et al., eq. 1): at least ``fma_units * fma_latency`` independent
      accumulators, or the FMA units wait for results.
   b. *Registers*: ``MR * v + v + 1 <= registers`` for ``v = NR/lanes`` (accumulators,
      B vectors, one broadcast).
   c. *Loads*: the loads per FMA, ``(MR + v) / (MR * v)``, must not exceed what the
      core issues, ``load_ports / fma_units``.
   Take the smallest ``v`` (1, 2, ...) with the largest ``MR`` that (b) allows and that
   satisfies (a) and (c). Low et al. instead take the smallest square-ish tile that
   satisfies (a); counting the broadcasts of A as loads (c) gives larger tiles, the
   ones BLIS's own kernels use (6x16 for AVX2, as BLIS's Haswell sgemm).
2. **KC (L1).** The KC x NR sliver of B is reused by every MR x KC sliver of A in the
   ``ir`` loop, so it must stay in L1 while A's slivers stream through. Low et al.: give
   A's sliver ``C_Ar = floor((W1 - 1) / (1 + NR/MR))`` ways (B's sliver then takes
   ``NR/MR`` times as many; one way is left for the lines of C), and make it fill them:
   ``KC = C_Ar * N1 * L1 / (MR * S)``. Rounded down so every packed A sliver
   (``MR * KC * S`` bytes) is a whole number of cache lines.
3. **MC (L2).** The MC x KC block of A is reused by every B sliver in the ``jr`` loop:
   it stays in L2. Reserve ``C_Br = ceil(NR * KC * S / (N2 * L2))`` ways for the B
   sliver streaming through, one for C, give A the rest, ``C_Ac = W2 - 1 - C_Br``:
   ``MC = C_Ac * N2 * L2 / (KC * S)``, rounded down to a multiple of MR.
4. **NC (L3).** The KC x NC panel of B is reused by every A block in the ``ic`` loop:
   it stays in L3, next to the A block (``C_Ac3 = ceil(MC * KC * S / (N3 * L3))`` ways)
   and one way for C: ``NC = (W3 - 1 - C_Ac3) * N3 * L3 / (KC * S)``, rounded down to
   a multiple of NR. A shared L3 counts only this core's share (its sets divided by the
   cores that share it). A core without an L3 uses ``NC_WITHOUT_L3`` (B streams from
   memory once per ``ic`` block; BLIS's usual NC is a few thousand).

When a cache is too small for a rule to leave a positive number of ways, the rule takes
one way (and the smallest legal block): the blocking is then known to spill.

>>> from tinycomp.targets.cpu.machine import PRESETS
>>> for name in ("laptop-avx2", "znver5", "apple-m1"):
...     b = choose_blocking(PRESETS[name])
...     print(f"{name:12} MR={b.mr:2} NR={b.nr:2} KC={b.kc:4} MC={b.mc:4} NC={b.nc}")
laptop-avx2  MR= 6 NR=16 KC= 168 MC= 192 NC=2720
znver5       MR=14 NR=32 KC= 216 MC=1050 NC=3328
apple-m1     MR=14 NR= 8 KC=1168 MC= 560 NC=4096
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tinycomp.codegen.errors import CodegenError
from tinycomp.targets.cpu.caches import CacheLevel, format_bytes
from tinycomp.targets.cpu.machine import CpuMachine

__all__ = ["NC_WITHOUT_L3", "TOO_SMALL", "Blocking", "choose_blocking", "register_tile"]

NC_WITHOUT_L3 = 4096
"""NC for a core without an L3 (rounded down to a multiple of NR)."""


@dataclass(frozen=True)
class Blocking:
    """The five block sizes of a BLIS GEMM, and how they were derived.

    >>> b = Blocking(mr=6, nr=16, kc=256, mc=96, nc=1024, lanes=8)
    >>> b.vectors_per_row, b.footprint_bytes("L1"), b.footprint_bytes("L2")
    (2, 22528, 114688)
    """

    mr: int
    """Rows of the micro-tile of C (broadcasts of A per k step)."""
    nr: int
    """Columns of the micro-tile of C: a multiple of ``lanes`` (vectors of B per k step)."""
    kc: int
    """Depth of a packed block: the length of the micro-kernel's loop."""
    mc: int
    """Rows of the packed block of A (a multiple of ``mr``)."""
    nc: int
    """Columns of the packed panel of B (a multiple of ``nr``)."""
    lanes: int
    """Elements per vector register."""
    itemsize: int = 4
    """Bytes per element (4: f32)."""
    derivation: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """One line per rule applied, with the numbers (``explain()`` prints them)."""

    def __post_init__(self) -> None:
        sizes = {"mr": self.mr, "nr": self.nr, "kc": self.kc, "mc": self.mc, "nc": self.nc}
        for name, value in sizes.items():
            if not isinstance(value, int) or value <= 0:
                raise CodegenError(f"Blocking: expected {name} > 0, got {value!r}")
        if self.lanes <= 0 or self.nr % self.lanes:
            raise CodegenError(
                f"Blocking: expected nr to be a multiple of the {self.lanes} vector lanes, "
                f"got nr={self.nr}"
            )
        if self.mc % self.mr or self.nc % self.nr:
            raise CodegenError(
                f"Blocking: expected mc a multiple of mr={self.mr} and nc a multiple of "
                f"nr={self.nr}, got mc={self.mc}, nc={self.nc}"
            )

    @property
    def vectors_per_row(self) -> int:
        """Vector registers per row of the micro-tile (``nr / lanes``)."""
        return self.nr // self.lanes

    @property
    def accumulators(self) -> int:
        """Vector registers holding the micro-tile of C."""
        return self.mr * self.vectors_per_row

    def footprint_bytes(self, level: str) -> int:
        """What must fit in a cache level: ``L1`` the A and B slivers (``(MR + NR) * KC``),
        ``L2`` the A block and a B sliver (``(MC + NR) * KC``), ``L3`` the B panel and the
        A block (``(NC + MC) * KC``), in bytes."""
        rows = {"L1": self.mr + self.nr, "L2": self.mc + self.nr, "L3": self.nc + self.mc}
        if level not in rows:
            raise CodegenError(f"footprint_bytes: expected 'L1', 'L2' or 'L3', got {level!r}")
        return rows[level] * self.kc * self.itemsize

    def explain(self) -> str:
        """The derivation, one rule per line."""
        return "\n".join(self.derivation)


def register_tile(machine: CpuMachine, itemsize: int = 4) -> tuple[int, int, str]:
    """Rule 1: ``(MR, NR, reason)`` for ``machine``.

    >>> from tinycomp.targets.cpu.machine import PRESETS
    >>> register_tile(PRESETS["znver5"])[:2], register_tile(PRESETS["laptop-avx2"])[:2]
    ((14, 32), (6, 16))
    """
    lanes = machine.lanes(itemsize)
    registers = machine.vector_registers
    timing = machine.timing
    needed = timing.fma_units * timing.fma_latency  # rule 1a
    load_budget = timing.load_ports / timing.fma_units  # rule 1c
    candidates = []
    for vectors in range(1, registers):
        rows = (registers - vectors - 1) // vectors  # rule 1b
        if rows < 1:
            break
        loads_per_fma = (rows + vectors) / (rows * vectors)
        candidates.append((vectors, rows, loads_per_fma))
        if rows * vectors >= needed and loads_per_fma <= load_budget:
            reason = (
                f"MR x NR = {rows} x {vectors * lanes}: {rows * vectors} accumulators "
                f"(>= {timing.fma_units} FMA units x latency {timing.fma_latency} = {needed}) "
                f"+ {vectors} B vectors + 1 broadcast <= {registers} registers; "
                f"{loads_per_fma:.2f} loads per FMA <= {load_budget:.2f}"
            )
            return rows, vectors * lanes, reason
    vectors, rows, loads_per_fma = min(candidates, key=lambda c: (c[1] * c[0] < needed, c[2]))
    reason = (
        f"MR x NR = {rows} x {vectors * lanes}: no tile meets every rule on {registers} "
        f"registers; fewest loads per FMA ({loads_per_fma:.2f})"
    )
    return rows, vectors * lanes, reason


TOO_SMALL = " (cache too small for the rule: the blocks do not fit beside a way for C)"
"""Appended to a derivation line whose blocks overflow their cache."""


def _overflow(nbytes: int, cache: CacheLevel) -> str:
    """``TOO_SMALL`` when ``nbytes`` exceed all ways of ``cache`` but one."""
    return TOO_SMALL if nbytes > (cache.ways - 1) * cache.way_bytes else ""


def _ways(cache: CacheLevel, nbytes: int) -> int:
    """Ways of ``cache`` that ``nbytes`` of contiguous data occupy (rounded up)."""
    return math.ceil(nbytes / cache.way_bytes)


def choose_blocking(machine: CpuMachine, itemsize: int = 4, kc: int | None = None) -> Blocking:
    """The blocking of the module docstring's rules 1-4 for ``machine``; a given ``kc``
    replaces rule 2 (an experiment: MC and NC then follow from it by rules 3 and 4).

    >>> from tinycomp.targets.cpu.machine import PRESETS
    >>> print(choose_blocking(PRESETS["laptop-avx2"]).explain())  # doctest: +NORMALIZE_WHITESPACE
    MR x NR = 6 x 16: 12 accumulators (>= 2 FMA units x latency 4 = 8) + 2 B vectors
      + 1 broadcast <= 16 registers; 0.67 loads per FMA <= 1.00
    KC = 168: A sliver gets floor((8 - 1) / (1 + 16/6)) = 1 of 8 ways of L1 (4 KiB each),
      rounded to whole cache lines; L1 holds (MR + NR) x KC x 4 = 14784 B
    MC = 192: L2 has 4 ways of 64 KiB; B sliver 1, C 1, A block 2 ways;
      (MC + NR) x KC x 4 = 139776 B
    NC = 2720: L3 share 2 MiB has 16 ways of 128 KiB; A block 1, C 1, B panel 14 ways;
      (NC + MC) x KC x 4 = 1956864 B
    >>> from tinycomp.targets.cpu.machine import detect_machine
    >>> host = detect_machine()   # this machine: the numbers differ, the rules hold
    >>> b = choose_blocking(host)
    >>> b.footprint_bytes("L1") <= (host.l1.ways - 1) * host.l1.way_bytes
    True
    >>> print(choose_blocking(PRESETS["znver5"], kc=512).explain().splitlines()[1])
    KC = 512: given; L1 holds (MR + NR) x KC x 4 = 94208 B (cache too small for the rule: \
the blocks do not fit beside a way for C)
    """
    S = itemsize
    lanes = machine.lanes(itemsize)
    mr, nr, register_reason = register_tile(machine, itemsize)  # rule 1
    derivation = [register_reason]

    l1 = machine.l1.per_core()  # rule 2
    if kc is not None:
        if not isinstance(kc, int) or kc <= 0:
            raise CodegenError(f"choose_blocking: expected kc > 0, got {kc!r}")
        reason = "given"
    else:
        a_ways = math.floor((l1.ways - 1) / (1 + nr / mr))
        line_multiple = l1.line_size // math.gcd(l1.line_size, mr * S)
        kc = max(1, a_ways) * l1.way_bytes // (mr * S)
        kc = max(line_multiple, kc // line_multiple * line_multiple)
        reason = (
            f"A sliver gets floor(({l1.ways} - 1) / (1 + {nr}/{mr})) = {a_ways} of "
            f"{l1.ways} ways of L1 ({format_bytes(l1.way_bytes)} each), rounded to whole "
            "cache lines"
        )
    derivation.append(
        f"KC = {kc}: {reason}; L1 holds (MR + NR) x KC x {S} = {(mr + nr) * kc * S} B"
        + _overflow((mr + nr) * kc * S, l1)
    )

    l2 = machine.l2.per_core()  # rule 3
    b_ways = _ways(l2, nr * kc * S)
    a_block_ways = l2.ways - 1 - b_ways
    mc = max(mr, max(1, a_block_ways) * l2.way_bytes // (kc * S) // mr * mr)
    derivation.append(
        f"MC = {mc}: L2 has {l2.ways} ways of {format_bytes(l2.way_bytes)}; B sliver "
        f"{b_ways}, C 1, A block {a_block_ways} ways; (MC + NR) x KC x {S} = "
        f"{(mc + nr) * kc * S} B" + _overflow((mc + nr) * kc * S, l2)
    )

    if machine.l3 is None:  # rule 4
        nc = max(nr, NC_WITHOUT_L3 // nr * nr)
        derivation.append(f"NC = {nc}: no L3; B panel streams from memory")
    else:
        l3 = machine.l3.per_core()
        a_l3_ways = _ways(l3, mc * kc * S)
        panel_ways = l3.ways - 1 - a_l3_ways
        nc = max(nr, max(1, panel_ways) * l3.way_bytes // (kc * S) // nr * nr)
        share = "L3 share" if machine.l3.shared_by > 1 else "L3"
        derivation.append(
            f"NC = {nc}: {share} {format_bytes(l3.size)} has {l3.ways} ways of "
            f"{format_bytes(l3.way_bytes)}; A block {a_l3_ways}, C 1, B panel {panel_ways} "
            f"ways; (NC + MC) x KC x {S} = {(nc + mc) * kc * S} B"
            + _overflow((nc + mc) * kc * S, l3)
        )
    return Blocking(mr, nr, kc, mc, nc, lanes, itemsize, tuple(derivation))
