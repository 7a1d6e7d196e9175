"""Counting as ptxas would emit the code: FMA contraction, unrolled loops, folded address
arithmetic and private arrays in registers, each against a count made by hand."""

from __future__ import annotations

import numpy as np

from tinycomp.frontend import simt as gpu
from tinycomp.passes.manager import PassManager
from tinycomp.targets.gpu_sim.simulator import simulate

from .sim_kernels import kernel, run

RNG = np.random.default_rng(11)
PRIVATE = "memref<4xf32, #gpu.address_space<private>>"


def test_a_multiply_feeding_one_add_is_one_ffma():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %x = memref.load %a[%tx] : memref<?xf32>
    %p = arith.mulf %x, %x : f32
    %s = arith.addf %p, %x : f32
    %q = arith.mulf %s, %x : f32
    %t = arith.subf %q, %s : f32
    %u = arith.addf %t, %q : f32
    memref.store %u, %out[%tx] : memref<?xf32>""",
        "%a: memref<?xf32>, %out: memref<?xf32>",
    )
    a = RNG.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    counters = run(text, 1, 64, [a, out]).counters
    s = a * a + a
    q = s * a
    np.testing.assert_allclose(out, (q - s) + q, rtol=1e-6)
    # %p fuses into the addf; %q has two uses and stays: addf, mulf, subf, addf per warp
    assert counters.total("inst_fp32") == 2 * 4


UNROLLED = kernel(
    """\
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %tx = gpu.thread_id  x
    %base = arith.muli %tx, %c8 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %trips step %c1 iter_args(%acc = %zero) -> (f32) {
      %kk = arith.remsi %k, %c8 : index
      %i = arith.addi %base, %kk : index
      %x = memref.load %a[%i] : memref<?xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%tx] : memref<?xf32>""",
    "%a: memref<?xf32>, %out: memref<?xf32>",
)


def _unrolled(trips: str) -> str:
    return UNROLLED.replace("%trips", trips).replace(
        "%c8 = arith.constant 8 : index",
        f"%c8 = arith.constant 8 : index\n    {trips} = arith.constant {trips[2:]} : index",
    )


def test_a_short_constant_loop_is_unrolled_and_its_address_arithmetic_folds():
    a = RNG.standard_normal(32 * 8).astype(np.float32)
    out = np.zeros(32, np.float32)
    counters = run(_unrolled("%c16"), 1, 32, [a, out]).counters
    np.testing.assert_allclose(out, 2 * a.reshape(32, 8).sum(1), rtol=1e-5, atol=1e-5)
    # unrolled: no loop test; remsi (static) and addi (base is invariant) fold away;
    # per iteration one load and one addf; outside, the muli and the store
    assert counters.total("inst_branch") == counters.total("branches") == 0
    assert counters.total("inst_ld_global") == 16 and counters.total("inst_fp32") == 16
    assert counters.total("inst_int") == 1


def test_a_long_constant_loop_branches_every_iteration():
    a = RNG.standard_normal(32 * 8).astype(np.float32)
    out = np.zeros(32, np.float32)
    counters = run(_unrolled("%c65"), 1, 32, [a, out]).counters
    expected = 8 * a.reshape(32, 8).sum(1) + a.reshape(32, 8)[:, 0]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    # 65 > 64 iterations: a loop test per iteration and one to leave; remsi and addi run
    assert counters.total("inst_branch") == counters.total("branches") == 66
    assert counters.total("inst_int") == 1 + 65 * 2


def test_private_arrays_are_registers_only_when_indexed_statically():
    text = kernel(
        f"""\
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %tx = gpu.thread_id  x
    %x = memref.load %a[%tx] : memref<?xf32>
    scf.for %k = %c0 to %c4 step %c1 {{
      memref.store %x, %p[%k] : {PRIVATE}
    }}
    %r = arith.remsi %tx, %c4 : index
    %y = memref.load %p[%r] : {PRIVATE}
    memref.store %y, %out[%tx] : memref<?xf32>""",
        "%a: memref<?xf32>, %out: memref<?xf32>",
        attributions=f" private(%p: {PRIVATE})",
    )
    a = RNG.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    counters = run(text, 1, 64, [a, out]).counters
    np.testing.assert_array_equal(out, a)
    # the stores (index: the unrolled %k) are registers; the load at tx % 4 is local
    assert counters.total("inst_st_local") == counters.total("local_store_bytes") == 0
    assert counters.total("inst_ld_local") == 2  # one per warp
    assert counters.total("local_load_bytes") == 64 * 4


@gpu.kernel
def matmul_tiled(A, B, C):
    a_tile = gpu.shared.array((16, 16), gpu.float32)
    b_tile = gpu.shared.array((16, 16), gpu.float32)
    tx = gpu.thread_idx.x
    ty = gpu.thread_idx.y
    row = gpu.block_idx.y * 16 + ty
    col = gpu.block_idx.x * 16 + tx
    acc = 0.0
    for t in range(0, A.shape[1], 16):
        a_tile[ty, tx] = A[row, t + tx]
        b_tile[ty, tx] = B[t + ty, col]
        gpu.syncthreads()
        for k in range(16):
            acc += a_tile[ty, k] * b_tile[k, tx]
        gpu.syncthreads()
    C[row, col] = acc


def test_counts_are_the_same_after_canonicalize_cse_and_licm():
    A, B = (RNG.standard_normal((32, 32)).astype(np.float32) for _ in range(2))
    C = np.zeros((32, 32), np.float32)
    module = matmul_tiled.specialize(A, B, C)
    before = simulate(module, (2, 2), (16, 16), [A, B, C]).counters
    PassManager.parse("canonicalize,cse,loop-invariant-code-motion").run(module)
    C[:] = 0
    after = simulate(module, (2, 2), (16, 16), [A, B, C]).counters
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)
    # per warp and tile (2 tiles): 16 FFMAs, 32 shared loads, the inner loop unrolled
    warps_tiles = 32 * 2
    for counters in (before, after):
        assert counters.total("inst_fp32") == warps_tiles * 16
        assert counters.total("inst_ld_shared") == warps_tiles * 32
    for name in ("inst_fp32", "inst_ld_shared", "inst_ld_global", "inst_st_shared", "branches"):
        assert after.total(name) == before.total(name), name
