"""The blocking rules: the register tile fits the register file, each block's footprint
fits the cache level it targets, for the presets, this host and random machines."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.codegen.errors import CodegenError
from tinycomp.targets.cpu.blis.blocking import TOO_SMALL, Blocking, choose_blocking, register_tile
from tinycomp.targets.cpu.caches import CacheLevel
from tinycomp.targets.cpu.machine import PRESETS, CoreTiming, CpuMachine, Simd, detect_machine


def usable_bytes(cache: CacheLevel) -> int:
    """All ways but the one every rule leaves for the lines of C."""
    share = cache.per_core()
    return (share.ways - 1) * share.way_bytes


def check_rules(machine: CpuMachine, b: Blocking) -> None:
    """The register rule, and each cache rule wherever the cache leaves the rule at
    least one way (computed here from the rules' formulas, independently)."""
    S, vectors = b.itemsize, b.nr // b.lanes
    assert b.nr % b.lanes == 0 and b.lanes == machine.lanes()
    assert b.mr * vectors + vectors + 1 <= machine.vector_registers  # rule 1b
    assert b.mc % b.mr == 0 and b.nc % b.nr == 0
    l1, l2 = machine.l1.per_core(), machine.l2.per_core()
    assert (b.mr * b.kc * S) % l1.line_size == 0  # A slivers on whole cache lines
    lines = b.explain().splitlines()
    if (l1.ways - 1) / (1 + b.nr / b.mr) >= 1:  # rule 2 leaves A a way: both slivers fit
        assert b.footprint_bytes("L1") <= usable_bytes(l1)
        assert TOO_SMALL not in lines[1]
    a_block_ways = l2.ways - 1 - math.ceil(b.nr * b.kc * S / l2.way_bytes)
    if a_block_ways * l2.way_bytes // (b.kc * S) >= b.mr:  # rule 3 leaves room for MR rows
        assert b.footprint_bytes("L2") <= usable_bytes(l2)
        assert TOO_SMALL not in lines[2]
    if machine.l3 is not None:
        l3 = machine.l3.per_core()
        panel_ways = l3.ways - 1 - math.ceil(b.mc * b.kc * S / l3.way_bytes)
        if panel_ways * l3.way_bytes // (b.kc * S) >= b.nr:  # rule 4 leaves room for NR
            assert b.footprint_bytes("L3") <= usable_bytes(l3)
            assert TOO_SMALL not in lines[3]
    for line, level in zip(lines[1:], ("L1", "L2", "L3"), strict=False):
        cache = {"L1": l1, "L2": l2, "L3": machine.l3.per_core() if machine.l3 else None}[level]
        if cache is not None and b.footprint_bytes(level) > usable_bytes(cache):
            assert TOO_SMALL in line  # an overflow is never silent


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_follow_the_rules(name):
    blocking = choose_blocking(PRESETS[name])
    check_rules(PRESETS[name], blocking)
    assert TOO_SMALL not in blocking.explain()


def test_this_host_follows_the_rules():
    machine = detect_machine()
    check_rules(machine, choose_blocking(machine))


def test_preset_numbers():
    blockings = {name: choose_blocking(machine) for name, machine in PRESETS.items()}
    numbers = {name: (b.mr, b.nr, b.kc, b.mc, b.nc) for name, b in blockings.items()}
    assert numbers == {
        "laptop-avx2": (6, 16, 168, 192, 2720),  # BLIS's Haswell sgemm tile is 6 x 16
        "znver5": (14, 32, 216, 1050, 3328),
        "apple-m1": (14, 8, 1168, 560, 4096),
    }


def test_register_tile_hides_fma_latency():
    for machine in PRESETS.values():
        mr, nr, reason = register_tile(machine)
        accumulators = mr * nr // machine.lanes()
        assert accumulators >= machine.timing.fma_units * machine.timing.fma_latency
        assert f"MR x NR = {mr} x {nr}" in reason


def test_explain_names_every_rule():
    text = choose_blocking(PRESETS["znver5"]).explain()
    assert [line.split()[0] for line in text.splitlines()] == ["MR", "KC", "MC", "NC"]


@st.composite
def machines(draw):
    isa = draw(st.sampled_from([Simd("AVX2", 256, 16), Simd("AVX-512", 512, 32),
                                Simd("NEON", 128, 32), Simd("SSE", 128, 16)]))  # fmt: skip
    timing = CoreTiming(draw(st.integers(1, 4)), draw(st.integers(3, 6)), draw(st.integers(1, 3)))
    line = draw(st.sampled_from([64, 128]))

    def cache(level, ways_options, sets_range, shared=1):
        ways = draw(st.sampled_from(ways_options))
        sets = 2 ** draw(st.integers(*sets_range))
        return CacheLevel(level, ways * sets * line, line, ways, shared)

    l1 = cache(1, [4, 8, 12], (5, 8))
    l2 = cache(2, [4, 8, 16], (9, 12))
    l3 = draw(
        st.one_of(st.none(), st.just(cache(3, [11, 16, 20], (13, 15), draw(st.integers(1, 8)))))
    )
    return CpuMachine("random", "generic", isa, timing, l1, l2, l3)


@settings(max_examples=60, deadline=None)
@given(machines())
def test_random_machines_follow_the_rules(machine):
    check_rules(machine, choose_blocking(machine))


def test_blocking_rejects_bad_sizes():
    with pytest.raises(CodegenError, match="multiple of the 8 vector lanes"):
        Blocking(mr=6, nr=12, kc=64, mc=12, nc=24, lanes=8)
    with pytest.raises(CodegenError, match="expected mc a multiple of mr=6"):
        Blocking(mr=6, nr=16, kc=64, mc=10, nc=32, lanes=8)
    with pytest.raises(CodegenError, match="expected kc > 0, got 0"):
        Blocking(mr=6, nr=16, kc=0, mc=12, nc=32, lanes=8)
    with pytest.raises(CodegenError, match="expected 'L1', 'L2' or 'L3'"):
        Blocking(mr=6, nr=16, kc=64, mc=12, nc=32, lanes=8).footprint_bytes("L4")
