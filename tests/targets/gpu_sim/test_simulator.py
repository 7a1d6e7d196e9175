"""The simulator's entry point: results against numpy, argument and launch checks, arrays
left alone after an error, sampling and traces."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.ir import parse
from tinycomp.targets.gpu_sim.errors import ArgumentError, LaunchError, SanitizerError
from tinycomp.targets.gpu_sim.simulator import find_kernel, simulate

from .sim_kernels import (
    NAIVE_MATMUL,
    TILED_MATMUL,
    TRANSPOSE,
    VECTOR_ADD,
    kernel,
    line_of,
    run,
)

RNG = np.random.default_rng(7)


def random_f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_vector_add_matches_numpy_with_a_partial_last_block():
    n = 1000
    a, b, c = random_f32(n), random_f32(n), np.zeros(n, np.float32)
    result = run(VECTOR_ADD, grid=4, block=256, args=[a, b, c, n])
    np.testing.assert_array_equal(c, a + b)
    assert result.counters.blocks_total == 4
    assert result.counters.total("global_store_requests") == -(-n // 32)


def test_naive_matmul_matches_numpy():
    a, b, c = random_f32(48, 40), random_f32(40, 32), np.zeros((48, 32), np.float32)
    result = run(NAIVE_MATMUL, grid=(2, 3), block=(16, 16), args=[a, b, c])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    # one fma per thread per k step: 48 * 32 threads = 48 warps, 40 steps
    assert result.counters.total("inst_fp32") == 48 * 40
    # a warp is two rows of 16 threads: A[row, k] is two broadcast sectors, B[k, col] the
    # same 16 floats (64 aligned bytes) for both rows: two sectors; 4 per warp per step
    assert result.counters.total("global_load_sectors") == 48 * 40 * 4
    # ideal: the distinct bytes asked, 2 floats of A (one sector) and 16 of B (two)
    assert result.counters.total("global_load_sectors_ideal") == 48 * 40 * 3


def test_tiled_matmul_matches_numpy_and_counts_barriers():
    a, b, c = random_f32(32, 64), random_f32(64, 48), np.zeros((32, 48), np.float32)
    result = run(TILED_MATMUL, grid=(3, 2), block=(16, 16), args=[a, b, c, 64])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    assert result.counters.total("barriers") == 6 * 4 * 2  # blocks * tiles * 2
    # As[ty, kk] is a broadcast within each half-warp, Bs[kk, tx] hits 16 banks: no conflicts
    assert result.counters.bank_conflict_degree() == 1.0


def test_transpose_matches_numpy_with_padded_tile():
    x, out = random_f32(64, 96), np.zeros((96, 64), np.float32)
    result = run(TRANSPOSE, grid=(3, 2), block=(32, 8), args=[x, out])
    np.testing.assert_array_equal(out, x.T)
    assert result.counters.bank_conflict_degree() == 1.0  # the 33rd column spreads the banks
    assert result.counters.coalescing_efficiency() == 1.0


def test_find_kernel_by_name_and_errors():
    two = parse(
        "gpu.module @m { gpu.func @a() kernel { gpu.return }\ngpu.func @b() kernel { gpu.return } }"
    )
    assert find_kernel(two, "b").sym_name == "b"
    with pytest.raises(LaunchError, match="expected one kernel .* found 2: a, b"):
        find_kernel(two)
    with pytest.raises(LaunchError, match="no kernel named 'c'; the kernels are a, b"):
        find_kernel(two, "c")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([np.zeros(4, np.float32)] * 3, r"expected 4 arguments \(memref<\?xf32>, .*index\), got 3"),
        (
            [np.zeros(4, np.float64), np.zeros(4, np.float32), np.zeros(4, np.float32), 4],
            r"argument 0 \(%a\) expected a numpy array of float32 \(memref<\?xf32>\), got an "
            r"array of float64",
        ),
        (
            [np.zeros((2, 2), np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32), 4],
            r"argument 0 \(%a\) expected an array of rank 1 .* got shape \(2, 2\)",
        ),
        (
            [np.zeros(8, np.float32)[::2], np.zeros(4, np.float32), np.zeros(4, np.float32), 4],
            r"argument 0 \(%a\) expected a C-contiguous array",
        ),
        (
            [np.zeros(4, np.float32), np.zeros(4, np.float32), [0.0] * 4, 4],
            r"argument 2 \(%c\) expected a numpy array of float32 \(memref<\?xf32>\), got list",
        ),
        (
            [np.zeros(4, np.float32)] * 3 + [2.5],
            r"argument 3 \(%n\) expected an integer for index, got 2.5",
        ),
    ],
)
def test_argument_errors_name_the_argument(args, message):
    with pytest.raises(ArgumentError, match=message) as error:
        run(VECTOR_ADD, grid=1, block=32, args=args)
    assert "kernel 'vector_add'" in str(error.value)
    assert str(error.value).endswith("no array was changed")


def test_read_only_array_and_i32_range_are_rejected():
    text = kernel("", "%a: memref<?xf32>, %n: i32")
    frozen = np.zeros(4, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ArgumentError, match=r"argument 0 \(%a\) expected a writeable array"):
        run(text, 1, 32, [frozen, 1])
    with pytest.raises(
        ArgumentError, match=r"fits i32 \(-2147483648 to 2147483647\), got 2147483648"
    ):
        run(text, 1, 32, [np.zeros(4, np.float32), 2**31])


@pytest.mark.parametrize(
    ("grid", "block", "preset", "message"),
    [
        (1, 512, "classroom", r"a block of 512 threads \(512, 1, 1\) is more than the 256 threads "
         r"per block of preset 'classroom'"),
        (1, (1, 1, 128), "h100", r"block dimension z = 128 is more than the largest block "
         r"dimension z = 64 of preset 'h100'"),
        ((1, 70000), 32, "a100", r"grid dimension y = 70000 is more than the largest grid "
         r"dimension y = 65535 of preset 'a100'"),
    ],
)  # fmt: skip
def test_launch_limits_name_the_limit_and_the_preset(grid, block, preset, message):
    a = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match=message):
        run(VECTOR_ADD, grid, block, [a, a.copy(), a.copy(), 4], preset=preset)


def test_shared_memory_over_the_preset_limit():
    text = kernel(
        "",
        "%a: memref<?xf32>",
        attributions=" workgroup(%big: memref<5000xf32, #gpu.address_space<workgroup>>)",
    )
    with pytest.raises(
        LaunchError,
        match=r"20000 bytes of shared memory .* the 16384 bytes per block of preset 'classroom'",
    ):
        run(text, 1, 32, [np.zeros(4, np.float32)])


def test_arrays_are_unchanged_after_an_error():
    # every thread stores, and the last block's threads 8.. index past the end
    text = kernel(
        """\
    %bx = gpu.block_id  x
    %bd = gpu.block_dim  x
    %tx = gpu.thread_id  x
    %o = arith.muli %bx, %bd : index
    %i = arith.addi %o, %tx : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %a[%i] : memref<?xf32>""",
        "%a: memref<?xf32>",
    )
    a = random_f32(40)
    before = a.copy()
    with pytest.raises(SanitizerError, match="no array was changed"):
        run(text, 2, 32, [a])
    np.testing.assert_array_equal(a, before)


def test_sample_blocks_scales_the_totals_and_writes_nothing_back():
    n = 32 * 64
    a, b, c = random_f32(n), random_f32(n), np.zeros(n, np.float32)
    full = run(VECTOR_ADD, grid=64, block=32, args=[a, b, c.copy(), n])
    sampled = run(VECTOR_ADD, grid=64, block=32, args=[a, b, c, n], sample_blocks=5)
    assert sampled.counters.block_ids.tolist() == [0, 16, 32, 47, 63]
    assert sampled.counters.sampled and sampled.counters.blocks_total == 64
    for name in ("inst_fp32", "global_load_sectors", "lane_instructions"):
        assert sampled.counters.total(name) == full.counters.total(name)
    assert sampled.counters.total("inst_fp32", scaled=False) == 5
    assert not c.any()  # sampled runs do not write back


def test_chunks_give_the_same_results_and_counters():
    n = 32 * 40
    a, b = random_f32(n), random_f32(n)
    c1, c2 = np.zeros(n, np.float32), np.zeros(n, np.float32)
    one = run(VECTOR_ADD, grid=40, block=32, args=[a, b, c1, n])
    many = run(VECTOR_ADD, grid=40, block=32, args=[a, b, c2, n], lane_budget=96)
    np.testing.assert_array_equal(c1, c2)
    assert one.counters.as_table() == many.counters.as_table()
    assert one.counters.footprint_sectors == many.counters.footprint_sectors == {
        "a": n * 4 // 32, "b": n * 4 // 32, "c": n * 4 // 32,
    }  # fmt: skip


def test_trace_of_one_warp():
    n = 80
    a, b, c = random_f32(n), random_f32(n), np.zeros(n, np.float32)
    result = run(VECTOR_ADD, grid=3, block=32, args=[a, b, c, n], trace_warp=(2, 0))
    trace = result.trace
    assert trace.block == (2, 0, 0) and trace.warp == 0
    loads = trace.memory_events("global")
    assert [e.op_name for e in loads] == ["memref.load", "memref.load", "memref.store"]
    first = loads[0]
    assert first.text == "%x = memref.load %a[%i] : memref<?xf32>"
    assert first.line == line_of(VECTOR_ADD, "%x = memref.load")
    assert first.kind == "ld_global" and first.array == "a"
    assert [e.op_name for e in trace.events[:5]] == [
        "arith.muli", "arith.addi", "arith.cmpi", "scf.if", "memref.load",
    ]  # fmt: skip
    assert first.active_lanes == 16  # elements 64..79
    assert first.byte_addresses[:16].tolist() == [4 * i for i in range(64, 80)]
    assert first.byte_addresses[16:].tolist() == [-1] * 16
    with pytest.raises(LaunchError, match=r"trace_warp=\(3, 0\) is outside the grid"):
        run(VECTOR_ADD, grid=3, block=32, args=[a, b, c, n], trace_warp=(3, 0))


def test_sanitize_off_gives_the_same_results():
    a, b, c = random_f32(32, 32), random_f32(32, 32), np.zeros((32, 32), np.float32)
    run(TILED_MATMUL, grid=(2, 2), block=(16, 16), args=[a, b, c, 32], sanitize=False)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_simulate_accepts_a_gpu_func():
    func = find_kernel(parse(VECTOR_ADD))
    a, b, c = random_f32(32), random_f32(32), np.zeros(32, np.float32)
    simulate(func, 1, 32, [a, b, c, 32])
    np.testing.assert_array_equal(c, a + b)
