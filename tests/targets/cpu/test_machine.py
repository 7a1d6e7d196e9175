"""The machine model: caches read from a sysfs-like folder, SIMD from LLVM features,
presets, and the fallback when the caches cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinycomp.targets.cpu import machine as machine_module
from tinycomp.targets.cpu.caches import CacheLevel, count_cpus, parse_size, read_caches
from tinycomp.targets.cpu.machine import (
    CORE_TIMINGS,
    DEFAULT_TIMING,
    PRESETS,
    detect_machine,
    simd_of,
)


def write_cache(folder: Path, index: int, **files: str) -> None:
    entry = folder / f"index{index}"
    entry.mkdir(parents=True)
    for name, text in files.items():
        (entry / name).write_text(text + "\n")


def fake_sysfs(folder: Path) -> Path:
    """A Zen-like core: split L1, private L2, L3 shared by 8 cores with 2 threads each."""
    common = {"coherency_line_size": "64"}
    write_cache(folder, 0, level="1", type="Data", size="48K", ways_of_associativity="12",
                shared_cpu_list="0,16", **common)  # fmt: skip
    write_cache(folder, 1, level="1", type="Instruction", size="32K",
                ways_of_associativity="8", shared_cpu_list="0,16", **common)  # fmt: skip
    write_cache(folder, 2, level="2", type="Unified", size="1024K",
                ways_of_associativity="16", shared_cpu_list="0,16", **common)  # fmt: skip
    write_cache(folder, 3, level="3", type="Unified", size="32768K",
                ways_of_associativity="16", shared_cpu_list="0-7,16-23", **common)  # fmt: skip
    return folder


def test_read_caches_from_a_sysfs_folder(tmp_path):
    caches = read_caches(fake_sysfs(tmp_path))
    assert sorted(caches) == [1, 2, 3]  # the instruction cache is skipped
    assert caches[1] == CacheLevel(1, 48 * 1024, 64, 12, shared_by=1)
    assert caches[2].size == 1 << 20 and caches[2].shared_by == 1
    assert caches[3].shared_by == 8  # 16 CPUs = 8 cores of 2 threads
    assert caches[3].per_core().size == 4 << 20
    assert caches[3].per_core().ways == 16


def test_read_caches_skips_unreadable_entries(tmp_path):
    write_cache(tmp_path, 0, level="1", type="Data", size="32K")  # no line size, no ways
    write_cache(tmp_path, 2, level="2", type="Unified", size="512K", coherency_line_size="64",
                ways_of_associativity="8", shared_cpu_list="0")  # fmt: skip
    assert sorted(read_caches(tmp_path)) == [2]
    assert read_caches(tmp_path / "missing") == {}


@pytest.mark.parametrize(
    ("text", "expected"), [("48K", 48 * 1024), ("32M", 32 << 20), ("64", 64), ("1G", 1 << 30)]
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize(("text", "expected"), [("0", 1), ("0-7", 8), ("0,16", 2), ("0-3,8-11", 8)])
def test_count_cpus(text, expected):
    assert count_cpus(text) == expected


def test_simd_width_from_features():
    assert simd_of("+avx512f,+avx2,+fma").bits == 512
    assert simd_of("+avx2,+fma,-avx512f") == ("AVX2", 256, 16)
    assert simd_of("+avx,-avx2").isa == "AVX"
    assert simd_of("+sse2").isa == "SSE"
    assert simd_of("+neon,+fp-armv8", arch="aarch64") == ("NEON", 128, 32)


def test_presets_lanes_and_peak():
    assert PRESETS["znver5"].lanes() == 16 and PRESETS["znver5"].flops_per_cycle() == 64
    assert PRESETS["laptop-avx2"].lanes() == 8 and PRESETS["laptop-avx2"].flops_per_cycle() == 32
    assert PRESETS["apple-m1"].lanes() == 4 and PRESETS["apple-m1"].l3 is None
    assert PRESETS["apple-m1"].lanes(itemsize=2) == 8


def test_detect_machine_reads_this_host():
    machine = detect_machine()
    assert machine.lanes() in (4, 8, 16)
    assert machine.timing == CORE_TIMINGS.get(machine.llvm_cpu, DEFAULT_TIMING)
    assert machine.l1.size < machine.l2.size
    assert machine.source.startswith("detected")


def test_detect_machine_falls_back_visibly(monkeypatch):
    monkeypatch.setattr(machine_module, "read_caches", lambda: {})
    machine = detect_machine()
    assert "caches not readable" in machine.source
    expected = {"AVX-512": "znver5", "NEON": "apple-m1"}.get(machine.isa, "laptop-avx2")
    assert f"preset '{expected}'" in machine.source
    assert machine.l1 == PRESETS[expected].l1
    assert "caches not readable" in machine.describe()
