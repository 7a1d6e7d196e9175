"""The NPU sanitizer: every kind of error, raised by a small kernel, names the op, its
source line and the core (a hazard: both ops, both pipes and the missing flag pair; a
deadlock: every pending wait); the launch and argument errors; the user's arrays are
unchanged after every error; and the same kernels with the fault repaired pass."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp import npu
from tinycomp.ir import parse
from tinycomp.targets.npu_sim.errors import (
    SANITIZER_KINDS,
    UNCHANGED,
    NpuArgumentError,
    NpuLaunchError,
    NpuSanitizerError,
)
from tinycomp.targets.npu_sim.instruction import Access, overlaps
from tinycomp.targets.npu_sim.preset import lookup_npu_preset
from tinycomp.targets.npu_sim.simulator import simulate

from .npu_ir import KernelText, module_text, run

RNG = np.random.default_rng(7)
ARGS = [("x", "memref<256xf16>"), ("y", "memref<256xf16>")]


def arrays():
    return [RNG.standard_normal(256).astype(np.float16) for _ in range(2)]


def failing(kernels, args, error=NpuSanitizerError, **kw):
    """The error ``run`` raises; every array as it was before."""
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    with pytest.raises(error) as info:
        run(kernels, args, **kw)
    for array, old in zip([a for a in args if isinstance(a, np.ndarray)], before, strict=True):
        np.testing.assert_array_equal(array, old)
    if isinstance(info.value, NpuSanitizerError):
        assert str(info.value).endswith(UNCHANGED)
    return info.value


def names(error: NpuSanitizerError, op: str, line: int, core: str | None) -> None:
    """The message starts with the op at its line on the core; ``line`` and ``core`` set."""
    message = str(error)
    assert f"'{op}' at line {line}" in message
    assert error.line == line
    if core is not None:
        assert error.core == core
        assert f" on {core}:" in message


def vector_kernel(*, synced: bool, copy_len: int = 256) -> tuple[KernelText, dict[str, int]]:
    """y = x + x through UB; ``synced`` puts the two flag pairs in."""
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    lines = {"copy_in": k.copy("x", ub, burst_len=copy_len)}
    if synced:
        k.sync("MTE2", "V")
    lines["vadd"] = k.vector("vadd", [ub, ub, ub], [0, 0, 0], repeat=2)
    if synced:
        k.sync("V", "MTE3")
    lines["copy_out"] = k.copy(ub, "y", burst_len=256)
    return k, lines


# -- capacity, alignment, bounds, initialisation ------------------------------------------
def test_overflow_names_the_space_its_size_and_the_excess():
    k = KernelText(ARGS)
    line = k.emit('%ub = "npu.alloc"() {offset = 196352 : i64} : () -> '
                  "memref<256xf16, \"ub\">")  # fmt: skip
    error = failing(k, arrays())
    assert error.kind == "overflow"
    names(error, "npu.alloc", line, "AIV 0.0")
    assert "196608 bytes (192 KiB) UB" in str(error) and "256 bytes too many" in str(error)


def test_a_buffer_that_fits_the_910b2_overflows_the_small_preset():
    k = KernelText(ARGS)
    k.alloc("UB", 256, "f16", offset=32 * 1024)
    run(k, arrays(), preset="910b2")
    error = failing(k, arrays(), preset="small")
    assert error.kind == "overflow" and "32 KiB" in str(error)


def test_misaligned_buffer_offset():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16", offset=48)
    line = k.first_line + k.body.index(next(b for b in k.body if ub in b)) + 1
    error = failing(k, arrays())
    assert error.kind == "misaligned"
    names(error, "npu.alloc", line, "AIV 0.0")
    assert "byte 48 (16 past one)" in str(error)


@pytest.mark.parametrize("pad", [False, True])
def test_a_burst_not_on_32_bytes_needs_pad(pad):
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    line = k.copy("x", ub, burst_len=100, pad=pad)
    x, y = arrays()
    if pad:
        run(k, [x, y])
        return
    error = failing(k, [x, y])
    assert error.kind == "misaligned"
    names(error, "npu.copy", line, "AIV 0.0")
    assert "200 bytes" in str(error) and "pad" in str(error)


def test_on_chip_bursts_must_start_32_bytes_apart():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    line = k.copy("x", ub, burst_len=32, n_burst=2, dst_stride=40)  # 80 bytes apart
    error = failing(k, arrays())
    assert error.kind == "misaligned"
    names(error, "npu.copy", line, "AIV 0.0")
    assert "80 bytes apart" in str(error)


def test_out_of_bounds_gm_read():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    line = k.copy("x", ub, 16, 0, burst_len=256)
    error = failing(k, arrays())
    assert error.kind == "out-of-bounds"
    names(error, "npu.copy", line, "AIV 0.0")
    assert "element 271 of a buffer of 256" in str(error) and "argument #0" in str(error)


def test_out_of_bounds_vector_repeat_past_the_buffer():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    k.copy("x", ub, burst_len=256)
    k.sync("MTE2", "V")
    line = k.vector("vexp", [ub, ub], [0, 0], repeat=3)  # 384 elements of 256
    error = failing(k, arrays())
    assert error.kind == "out-of-bounds"
    names(error, "npu.vexp", line, "AIV 0.0")
    assert "element 383" in str(error)


def test_uninitialized_ub_read_names_the_first_unwritten_element():
    k, lines = vector_kernel(synced=True, copy_len=128)  # only half of UB is filled
    error = failing(k, arrays())
    assert error.kind == "uninitialized"
    names(error, "npu.vadd", lines["vadd"], "AIV 0.0")
    assert "element 128" in str(error)


def test_uninitialized_copy_out():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    line = k.copy(ub, "y", burst_len=256)
    error = failing(k, arrays())
    assert error.kind == "uninitialized"
    names(error, "npu.copy", line, "AIV 0.0")


def test_block_stride_0_reads_only_the_blocks_it_names():
    # each source repeat reads block 0 (then block 3) twice: never the unwritten gap,
    # though the positions have as many elements as the span 0..63 has
    k = KernelText(ARGS)
    a, d = k.alloc("UB", 256, "f16"), k.alloc("UB", 256, "f16", 512)
    k.copy("x", a, 0, 0, burst_len=16)
    k.copy("x", a, 48, 48, burst_len=16)
    k.copy("y", d, burst_len=256)
    k.sync("MTE2", "V")
    broadcast = {"src0_blk_stride": 0, "src0_rep_stride": 3, "src1_blk_stride": 0,
                 "src1_rep_stride": 3}  # fmt: skip
    k.vector("vadd", [d, a, a], [0, 0, 0], repeat=2, mask=32, **broadcast)
    k.sync("V", "MTE3")
    k.copy(d, "y", burst_len=256)
    x, y = arrays()
    expected = y.copy()
    expected[0:32] = np.tile(x[0:16] + x[0:16], 2)
    expected[128:160] = np.tile(x[48:64] + x[48:64], 2)
    run(k, [x, y])
    np.testing.assert_array_equal(y, expected)


def test_block_stride_0_writes_leave_the_gap_unwritten():
    k = KernelText(ARGS)
    d = k.alloc("UB", 256, "f16")
    k.vector("vdup", [d], [0], 1.0, repeat=2, mask=32, dst_blk_stride=0, dst_rep_stride=3)
    k.sync("V", "MTE3")
    line = k.copy(d, "y", burst_len=64)  # elements 16..47 were never written
    error = failing(k, arrays())
    assert error.kind == "uninitialized"
    names(error, "npu.copy", line, "AIV 0.0")
    assert "element 16" in str(error)


# -- hazards ---------------------------------------------------------------------------------
def test_raw_hazard_names_both_ops_both_pipes_and_the_missing_pair():
    k, lines = vector_kernel(synced=False)
    error = failing(k, arrays())
    assert error.kind == "hazard"
    names(error, "npu.vadd", lines["vadd"], "AIV 0.0")
    message = str(error)
    assert f"'npu.copy' at line {lines['copy_in']}" in message
    assert "pipe V" in message and "pipe MTE2" in message
    assert (
        f"put set_flag MTE2->V after 'npu.copy' at line {lines['copy_in']} and wait_flag "
        f"MTE2->V before 'npu.vadd' at line {lines['vadd']}"
    ) in message


def test_the_same_kernel_with_its_flags_passes():
    k, _ = vector_kernel(synced=True)
    x, y = arrays()
    run(k, [x, y])
    np.testing.assert_array_equal(y, x + x)


def test_missing_v_to_mte3_flag_is_a_hazard_on_the_copy_out():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    k.copy("x", ub, burst_len=256)
    k.sync("MTE2", "V")
    k.sync("MTE2", "MTE3")  # the copy out is ordered after the copy in, not after V
    vadd = k.vector("vadd", [ub, ub, ub], [0, 0, 0], repeat=2)
    out = k.copy(ub, "y", burst_len=256)
    error = failing(k, arrays())
    assert error.kind == "hazard"
    names(error, "npu.copy", out, "AIV 0.0")
    assert f"set_flag V->MTE3 after 'npu.vadd' at line {vadd}" in str(error)
    assert f"wait_flag V->MTE3 before 'npu.copy' at line {out}" in str(error)


def _war_kernel(*, fixed: bool) -> tuple[KernelText, int, int]:
    """V reads a buffer, then MTE2 refills it: the refill needs V's go-ahead."""
    k = KernelText(ARGS)
    a, b = k.alloc("UB", 256, "f16"), k.alloc("UB", 256, "f16", 512)
    k.copy("x", a, burst_len=256)
    k.sync("MTE2", "V")
    read = k.vector("vexp", [b, a], [0, 0], repeat=2)
    if fixed:
        k.sync("V", "MTE2")
    refill = k.copy("x", a, burst_len=256)
    k.sync("V", "MTE3", 1)
    k.copy(b, "y", burst_len=256)
    return k, read, refill


def test_war_hazard_asks_for_the_flag_in_program_order():
    k, read, refill = _war_kernel(fixed=False)
    error = failing(k, arrays())
    assert error.kind == "hazard"
    message = str(error)
    assert f"'npu.vexp' at line {read}" in message and f"'npu.copy' at line {refill}" in message
    # the read comes first in the program: it sets, the refill waits (not the other way)
    assert (
        f"put set_flag V->MTE2 after 'npu.vexp' at line {read} and wait_flag V->MTE2 before "
        f"'npu.copy' at line {refill}"
    ) in message


def test_war_kernel_with_the_flag_the_message_asks_for_passes():
    k, _, _ = _war_kernel(fixed=True)
    x, y = arrays()
    run(k, [x, y])
    np.testing.assert_allclose(y.astype(np.float32), np.exp(x.astype(np.float32)), rtol=2e-3)


def _mix_gm_kernel(*, synced: bool) -> list[KernelText]:
    """The AIV writes y; the cube core reads y back into L1."""
    v = KernelText(ARGS, name="k_aiv", core="aiv", kernel_type="mix_1_1", kernel="k")
    ub = v.alloc("UB", 256, "f16")
    v.copy("x", ub, burst_len=256)
    v.sync("MTE2", "MTE3")
    v.copy(ub, "y", burst_len=256)
    if synced:
        v.cross_set(2, 2, "MTE3")
    c = KernelText(ARGS, name="k_aic", core="aic", kernel_type="mix_1_1", kernel="k")
    c.first_line = len(v.lines()) + 1
    l1 = c.alloc("L1", 256, "f16")
    if synced:
        c.cross_wait(2, pipe="MTE2")
    c.copy("y", l1, burst_len=256)
    return [v, c]


def test_cross_core_hazard_names_both_cores_and_asks_for_a_cross_core_flag():
    error = failing(_mix_gm_kernel(synced=False), arrays())
    assert error.kind == "hazard"
    message = str(error)
    assert "AIV 0.0" in message and "AIC 0" in message
    assert "arg1" in message and "cross_core_set" in message and "cross_core_wait" in message
    assert "pipe MTE3" in message and "pipe MTE2" in message


def test_cross_core_flags_order_the_gm_traffic():
    x, y = arrays()
    result = run(_mix_gm_kernel(synced=True), [x, y])
    np.testing.assert_array_equal(y, x)
    (aic,) = [core for core in result.cores if core.kind == "aic"]
    np.testing.assert_array_equal(aic.memory.bytes["L1"][:512].view(np.float16), x)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 64), st.integers(1, 20), st.integers(1, 6), st.integers(0, 40)),
        min_size=2,
        max_size=2,
    )
)
def test_overlaps_agrees_with_a_byte_by_byte_check(patterns):
    a, b = (Access(("AIV 0.0", "UB"), *p, write=False) for p in patterns)

    def touched(x):
        return {x.start + r * x.stride + i for r in range(x.count) for i in range(x.length)}

    assert overlaps(a, b) == bool(touched(a) & touched(b)) == overlaps(b, a)


# -- deadlocks -------------------------------------------------------------------------------
@pytest.mark.timeout(20)
def test_deadlock_lists_every_pending_wait():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    k.copy("x", ub, burst_len=256)
    v_wait = k.wait_flag("MTE2", "V")
    k.vector("vadd", [ub, ub, ub], [0, 0, 0], repeat=2)
    mte3_wait = k.wait_flag("V", "MTE3", 3)
    k.copy(ub, "y", burst_len=256)
    error = failing(k, arrays())
    assert error.kind == "deadlock" and error.line == v_wait
    message = str(error)
    assert f"AIV 0.0 pipe V: wait_flag MTE2->V #0 ('npu.wait_flag' at line {v_wait})" in message
    assert f"AIV 0.0 pipe MTE3: wait_flag V->MTE3 #3 ('npu.wait_flag' at line {mte3_wait})" in (
        message
    )


def test_the_deadlocked_kernel_with_its_sets_passes():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    k.copy("x", ub, burst_len=256)
    k.sync("MTE2", "V")
    k.vector("vadd", [ub, ub, ub], [0, 0, 0], repeat=2)
    k.sync("V", "MTE3", 3)
    k.copy(ub, "y", burst_len=256)
    x, y = arrays()
    run(k, [x, y])
    np.testing.assert_array_equal(y, x + x)


@pytest.mark.timeout(20)
def test_cross_core_wait_that_no_core_sets_is_a_deadlock_naming_every_core():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    k.copy("x", ub, burst_len=256)
    line = k.cross_wait(4, 0)
    error = failing(k, arrays(), block_num=2)
    assert error.kind == "deadlock" and error.line == line
    message = str(error)
    for core in ("AIV 0.0", "AIV 0.1"):
        assert (
            f"{core}: cross_core_wait on flag 4 (mode 0) ('npu.cross_core_wait' at line {line})"
        ) in message


def _mix_flag_kernel(*, aic_sets: bool) -> tuple[list[KernelText], int]:
    c = KernelText(ARGS, name="k_aic", core="aic", kernel_type="mix_1_2", kernel="k")
    l1 = c.alloc("L1", 256, "f16")
    c.copy("x", l1, burst_len=256)
    if aic_sets:
        c.cross_set(5, 2, "MTE2")
    v = KernelText(ARGS, name="k_aiv", core="aiv", kernel_type="mix_1_2", kernel="k")
    v.first_line = len(c.lines()) + 1
    line = v.cross_wait(5)
    return [c, v], line


@pytest.mark.timeout(20)
def test_mode_2_wait_never_set_lists_both_vector_cores():
    kernels, line = _mix_flag_kernel(aic_sets=False)
    error = failing(kernels, arrays())
    assert error.kind == "deadlock" and error.line == line
    assert "AIV 0.0: cross_core_wait on flag 5 (mode 2)" in str(error)
    assert "AIV 0.1: cross_core_wait on flag 5 (mode 2)" in str(error)
    assert "AIC 0" not in str(error)  # the cube core finished


def test_mode_2_wait_passes_once_the_cube_core_sets():
    kernels, _ = _mix_flag_kernel(aic_sets=True)
    result = run(kernels, arrays())
    assert {core.name for core in result.cores} == {"AIC 0", "AIV 0.0", "AIV 0.1"}


# -- events ------------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["set", "wait"])
def test_event_id_out_of_range(which):
    k = KernelText(ARGS)
    event = k.const(8)
    set_line = k.set_flag("MTE2", "V", event if which == "set" else 0)
    wait_line = k.wait_flag("MTE2", "V", event if which == "wait" else 0)
    error = failing(k, arrays())
    assert error.kind == "event"
    names(error, f"npu.{which}_flag", set_line if which == "set" else wait_line, "AIV 0.0")
    assert "event id 8 is out of range" in str(error) and "0-7" in str(error)


def test_a_flag_set_twice_before_its_wait():
    k = KernelText(ARGS)
    ub = k.alloc("UB", 256, "f16")
    first = k.set_flag("MTE2", "V", 1)
    second = k.set_flag("MTE2", "V", 1)
    k.wait_flag("MTE2", "V", 1)
    k.vector("vdup", [ub], [0], 1.0, repeat=2)
    error = failing(k, arrays())
    assert error.kind == "event"
    names(error, "npu.set_flag", second, "AIV 0.0")
    assert f"took the set of 'npu.set_flag' at line {first}" in str(error)


def test_a_flag_set_twice_while_its_wait_is_already_blocked():
    """In time the wait takes the first set before the second is issued; the check in
    program order still finds the second set with no wait before it."""
    k = KernelText([("x", "memref<40960xf16>")])
    ub = k.alloc("UB", 40960, "f16")
    k.copy("x", ub, burst_len=128)
    k.set_flag("MTE2", "V", 1)
    k.copy("x", ub, 128, 128, burst_len=40832)  # ~640 cycles: past the first set's landing
    k.set_flag("MTE2", "V", 1)  # no wait between the two sets in the program
    k.wait_flag("MTE2", "V", 1)
    k.vector("vadd", [ub, ub, ub], [0, 0, 0], repeat=1)  # the first copy's part only
    x = RNG.standard_normal(40960).astype(np.float16)
    assert failing(k, [x]).kind == "event"


def test_cross_core_flag_out_of_range():
    k = KernelText(ARGS, core="aic")
    line = k.cross_set(11, 0)
    error = failing(k, arrays())
    assert error.kind == "event"
    names(error, "npu.cross_core_set", line, "AIC 0")
    assert "flag 11 is out of range (0-10)" in str(error)


def test_cross_core_mode_3_in_unverified_ir_is_an_event_error():
    k = KernelText(ARGS)
    line = k.cross_set(1, 3)
    module = parse(module_text(k), verify=False)
    x, y = arrays()
    with pytest.raises(NpuSanitizerError) as info:
        simulate(module, [x, y], 1)
    assert info.value.kind == "event"
    names(info.value, "npu.cross_core_set", line, "AIV 0.0")
    assert "expected mode 0, 1 or 2, got 3" in str(info.value)


def test_mode_1_is_only_for_vector_cores():
    k = KernelText(ARGS, core="aic")
    line = k.cross_set(1, 1)
    error = failing(k, arrays())
    assert error.kind == "event"
    names(error, "npu.cross_core_set", line, "AIC 0")


def test_too_many_pending_cross_core_sets():
    c = KernelText(ARGS, name="k_aic", core="aic", kernel_type="mix_1_1", kernel="k")
    lines = [c.cross_set(1, 2) for _ in range(17)]
    v = KernelText(ARGS, name="k_aiv", core="aiv", kernel_type="mix_1_1", kernel="k")
    v.first_line = len(c.lines()) + 1
    v.cross_wait(1)
    error = failing([c, v], arrays())
    assert error.kind == "event"
    names(error, "npu.cross_core_set", lines[-1], "AIC 0")
    assert "17 pending sets, more than the 16" in str(error)


# -- repeats -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("repeat", "mask"), [(256, 128), (0, 128), (1, 129)])
def test_repeat_and_mask_out_of_range_in_unverified_ir(repeat, mask):
    k = KernelText([("x", "memref<65536xf16>")])
    ub = k.alloc("UB", 65536, "f16")
    k.copy("x", ub, burst_len=65536)
    k.sync("MTE2", "V")
    line = k.vector("vabs", [ub, ub], [0, 0], repeat=repeat, mask=mask)
    module = parse(module_text(k), verify=False)
    x = RNG.standard_normal(65536).astype(np.float16)
    before = x.copy()
    with pytest.raises(NpuSanitizerError) as info:
        simulate(module, [x], 1)
    assert info.value.kind == "repeat"
    names(info.value, "npu.vabs", line, "AIV 0.0")
    assert f"repeat {repeat} and mask {mask}" in str(info.value)
    np.testing.assert_array_equal(x, before)


def test_a_preset_with_fewer_repeats_rejects_what_the_910b2_runs():
    k = KernelText([("x", "memref<32768xf16>")])
    ub = k.alloc("UB", 32768, "f16")
    k.copy("x", ub, burst_len=32768)
    k.sync("MTE2", "V")
    line = k.vector("vabs", [ub, ub], [0, 0], repeat=200)
    x = RNG.standard_normal(32768).astype(np.float16)
    run(k, [x.copy()], preset="910b2")
    error = failing(k, [x], preset=lookup_npu_preset("910b2").with_changes(max_repeats=128))
    assert error.kind == "repeat"
    names(error, "npu.vabs", line, "AIV 0.0")
    assert "1 to 128 repeats" in str(error)


# -- the wrong core --------------------------------------------------------------------------
def test_a_vector_core_has_no_l1():
    k = KernelText(ARGS)
    k.alloc("L1", 256, "f16")
    error = failing(k, arrays())
    assert error.kind == "wrong-core"
    names(error, "npu.alloc", 2, "AIV 0.0")
    assert "a vector core has no L1" in str(error)


def test_a_flag_to_a_pipe_the_vector_core_lacks():
    k = KernelText(ARGS)
    line = k.set_flag("V", "M")
    error = failing(k, arrays())
    assert error.kind == "wrong-core"
    names(error, "npu.set_flag", line, "AIV 0.0")
    assert "no pipe M" in str(error)


def test_mmad_in_a_vector_kernel_is_a_launch_error():
    k = KernelText(ARGS)
    a, b = k.alloc("L0A", 256, "f16"), k.alloc("L0B", 256, "f16")
    c = k.alloc("L0C", 256, "f32")
    line = k.mmad(c, a, b, m=16, k=16, n=16)
    error = failing(k, arrays(), error=NpuLaunchError)
    assert f"'npu.mmad' at line {line} runs on pipe M" in str(error)
    assert "kernel type does not match" in str(error)


def test_vector_op_in_a_cube_kernel_is_a_launch_error():
    k = KernelText(ARGS, core="aic")
    ub = k.alloc("UB", 256, "f16")
    line = k.vector("vexp", [ub, ub], [0, 0], repeat=1)
    error = failing(k, arrays(), error=NpuLaunchError)
    assert f"'npu.vexp' at line {line} runs on pipe V" in str(error)
    assert "the cube core does not have" in str(error)


@pytest.mark.parametrize(
    ("kernel_type", "preset", "blocks"),
    [("aiv", "910b2", 49), ("aiv", "small", 5), ("aiv", "910b2", 0), ("aic", "910b2", 25),
     ("mix_1_2", "small", 3)],
)  # fmt: skip
def test_block_num_beyond_the_cores(kernel_type, preset, blocks):
    if kernel_type.startswith("mix"):
        c = KernelText(ARGS, name="k_aic", core="aic", kernel_type=kernel_type, kernel="k")
        v = KernelText(ARGS, name="k_aiv", core="aiv", kernel_type=kernel_type, kernel="k")
        v.first_line = len(c.lines()) + 1
        kernels = [c, v]
    else:
        kernels = KernelText(ARGS, core=kernel_type)
    error = failing(kernels, arrays(), error=NpuLaunchError, block_num=blocks, preset=preset)
    assert f"block_num {blocks}" in str(error) and preset in str(error)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (lambda x, y: [x.astype(np.float32), y], "float16"),
        (lambda x, y: [x[:128].copy(), y], "expected 256 elements"),
        (lambda x, y: [x], "takes 2 arguments, got 1"),
        (lambda x, y: [x, y.reshape(16, 16)], None),  # the shape may differ, not the size
    ],
)
def test_argument_errors_leave_the_arrays_alone(args, words):
    k, _ = vector_kernel(synced=True)
    x, y = arrays()
    given = args(x, y)
    if words is None:
        run(k, given)
        np.testing.assert_array_equal(given[1].reshape(-1), x + x)
        return
    error = failing(k, given, error=NpuArgumentError)
    assert words in str(error) and UNCHANGED in str(error)


# -- through the DSL: the line is the kernel's Python line -------------------------------
def test_dsl_hazard_points_at_the_python_lines():
    @npu.kernel
    def forgot_the_flag(x, y):
        pipe = npu.TPipe()
        buf = npu.TBuf()
        pipe.init_buffer(buf, 512)
        t = buf.get(np.float16)
        npu.data_copy(t, x, 256)
        npu.add(t, t, t, 256)  # hazard
        npu.set_flag("V", "MTE3", 0)
        npu.wait_flag("V", "MTE3", 0)
        npu.data_copy(y, t, 256)

    source, first = inspect.getsourcelines(forgot_the_flag.function)
    line = first + next(i for i, text in enumerate(source) if "# hazard" in text)
    x, y = arrays()
    before = y.copy()
    with pytest.raises(NpuSanitizerError) as info:
        npu.launch(forgot_the_flag, (x, y), block_num=1, preset="small")
    assert info.value.kind == "hazard" and info.value.line == line
    message = str(info.value)
    assert re.search(rf"^'npu\.vadd' at \S*test_npu_sanitizer\.py:{line} on AIV 0\.0", message)
    assert re.search(rf"after 'npu\.copy' at \S*test_npu_sanitizer\.py:{line - 1} ", message)
    np.testing.assert_array_equal(y, before)


def test_every_sanitizer_kind_has_a_test_above():
    source = inspect.getsource(inspect.getmodule(test_every_sanitizer_kind_has_a_test_above))
    missing = [kind for kind in SANITIZER_KINDS if f'kind == "{kind}"' not in source]
    assert not missing
