"""Chapter 10's graders answer wrong attempts with the counter-example a compiler
engineer would give, not a bare failure: each wrong kernel or wrong IR below is a
mistake students make, and the grader's message must name it.

The graded tests of ``tests/exercises/test_ch10_compiling_for_gpu.py`` are called
directly on a stand-in for the student's module whose ``__file__`` is this file (the
kernels here are "the student's own")."""

import re
import types
from pathlib import Path

import pytest

from tests.exercises import test_ch10_compiling_for_gpu as graded
from tinycomp import gpu
from tinycomp.grading.checks import GradingFailure
from tinycomp.grading.loader import load_implementation

ROOT = Path(__file__).resolve().parents[2]
reference = load_implementation(ROOT, "solutions", "ch10_compiling_for_gpu")


def attempt(**functions) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        __file__=__file__, SHUFFLE_FUNCTION=reference.SHUFFLE_FUNCTION, **functions
    )


# -- Task 10.3: wrong tiled matmuls ------------------------------------------------------
@gpu.kernel
def no_first_barrier(A, B, C, M, N, K):
    tx = gpu.thread_idx.x
    ty = gpu.thread_idx.y
    row0 = gpu.block_idx.y * 32
    col = gpu.block_idx.x * 32 + tx
    As = gpu.shared.array((32, 32), gpu.float32)
    Bs = gpu.shared.array((32, 32), gpu.float32)
    acc = gpu.local.array((4,), gpu.float32)
    for i in range(4):
        acc[i] = 0.0
    for k0 in range(0, K, 32):
        for r in range(ty, 32, 8):
            As[r, tx] = A[row0 + r, k0 + tx]
            Bs[r, tx] = B[k0 + r, col]
        for k in range(32):
            for i in range(4):
                acc[i] += As[ty + 8 * i, k] * Bs[k, tx]
        gpu.syncthreads()
    for i in range(4):
        C[row0 + ty + 8 * i, col] = acc[i]


@gpu.kernel
def transposed_store(A, B, C, M, N, K):
    tx = gpu.thread_idx.x
    ty = gpu.thread_idx.y
    row0 = gpu.block_idx.y * 32
    col = gpu.block_idx.x * 32 + tx
    As = gpu.shared.array((32, 32), gpu.float32)
    Bs = gpu.shared.array((32, 32), gpu.float32)
    acc = gpu.local.array((4,), gpu.float32)
    for i in range(4):
        acc[i] = 0.0
    for k0 in range(0, K, 32):
        for r in range(ty, 32, 8):
            As[tx, r] = A[row0 + r, k0 + tx]  # A^T in shared: a warp writes one column
            Bs[r, tx] = B[k0 + r, col]
        gpu.syncthreads()
        for k in range(32):
            for i in range(4):
                acc[i] += As[k, ty + 8 * i] * Bs[k, tx]
        gpu.syncthreads()
    for i in range(4):
        C[row0 + ty + 8 * i, col] = acc[i]


@gpu.kernel
def straight_from_global(A, B, C, M, N, K):
    tx = gpu.thread_idx.x
    ty = gpu.thread_idx.y
    row0 = gpu.block_idx.y * 32
    col = gpu.block_idx.x * 32 + tx
    for i in range(4):
        acc = 0.0
        for k in range(K):
            acc += A[row0 + ty + 8 * i, k] * B[k, col]
        C[row0 + ty + 8 * i, col] = acc


@gpu.kernel
def column_loads(A, B, C, M, N, K):
    tx = gpu.thread_idx.x
    ty = gpu.thread_idx.y
    row0 = gpu.block_idx.y * 32
    col0 = gpu.block_idx.x * 32
    As = gpu.shared.array((32, 33), gpu.float32)
    Bs = gpu.shared.array((32, 33), gpu.float32)
    acc = gpu.local.array((4,), gpu.float32)
    for i in range(4):
        acc[i] = 0.0
    for k0 in range(0, K, 32):
        for r in range(ty, 32, 8):
            As[r, tx] = A[row0 + r, k0 + tx]
            Bs[tx, r] = B[k0 + tx, col0 + r]  # the lanes walk down a column of B
        gpu.syncthreads()
        for k in range(32):
            for i in range(4):
                acc[i] += As[ty + 8 * i, k] * Bs[k, tx]
        gpu.syncthreads()
    for i in range(4):
        C[row0 + ty + 8 * i, col0 + tx] = acc[i]


def test_a_missing_barrier_names_the_stores_the_reads_and_two_threads():
    wrong = attempt(tiled_matmul_kernel=lambda: no_first_barrier)
    with pytest.raises(GradingFailure) as failure:
        graded.test_tiled_matmul_matches_numpy(wrong, 64, 96, 64)
    message = str(failure.value)
    assert "barrier is missing" in message
    assert re.search(r"thread \(\d+, \d+, \d+\) read [AB]s\[", message), message


def budget_failure(kernel) -> str:
    """The grader's answer to ``kernel``, which computes ``C = A @ B`` right but misses a
    budget."""
    wrong = attempt(tiled_matmul_kernel=lambda: kernel)
    graded.test_tiled_matmul_matches_numpy(wrong, 64, 96, 64)
    with pytest.raises(GradingFailure) as failure:
        graded.test_tiled_matmul_budget(wrong, 64, 96, 128)
    return str(failure.value)


def test_a_transposed_tile_is_answered_with_the_bank_conflict():
    message = budget_failure(transposed_store)
    assert re.search(r"lanes 0.*31 hit bank \d+ at 32 different words", message), message
    assert "32-way" in message


def test_no_shared_memory_is_answered_with_the_sectors_against_the_budget():
    message = budget_failure(straight_from_global)
    assert re.search(r"global load sectors.*1024", message), message
    assert "read more than once" in message


def test_uncoalesced_staging_names_the_load_and_its_stride():
    message = budget_failure(column_loads)
    assert re.search(r"the global load at line \d+ \(memref.load %\w*B", message), message
    assert "384 bytes apart, not 4" in message  # N = 96 floats a row


def test_a_kernel_from_elsewhere_is_refused():
    borrowed = types.SimpleNamespace(
        __file__="elsewhere.py", tiled_matmul_kernel=reference.tiled_matmul_kernel
    )
    with pytest.raises(GradingFailure, match="not defined in your file"):
        graded.test_tiled_matmul_matches_numpy(borrowed, 32, 64, 32)


# -- Task 10.4: wrong shuffles -----------------------------------------------------------
def mutated(old: str, new: str, count: int = 1):
    text = reference.shfl_xor_f64_ir()
    assert text.count(old) >= count, old
    return attempt(shfl_xor_f64_ir=lambda: text.replace(old, new, count))


def test_a_shuffle_not_marked_convergent_is_shown_what_llvm_does():
    wrong = mutated(
        "(double %value, i32 %lane_mask) convergent {", "(double %value, i32 %lane_mask) {"
    )
    with pytest.raises(GradingFailure) as failure:
        graded.test_shuffle_is_convergent(wrong)
    message = str(failure.value)
    assert "not convergent" in message and "mark the definition convergent" in message.lower()


def test_sign_extending_the_low_half_corrupts_the_high_half():
    wrong = mutated("zext i32 %lo.moved", "sext i32 %lo.moved")
    graded.test_shuffle_ptx(wrong)  # still two shuffles
    with pytest.raises(GradingFailure, match=r"lanes are wrong"):
        graded.test_shuffle_matches_numpy(wrong, 5)


def test_shuffling_one_half_only_is_one_shuffle_too_few():
    wrong = mutated("i32 %hi, i32 %lane_mask", "i32 %lo, i32 %lane_mask")
    with pytest.raises(GradingFailure, match=r"lanes are wrong"):
        graded.test_shuffle_matches_numpy(wrong, 3)


def library_shuffle_ir() -> str:
    """A wrong attempt: the library's own NVPTX emitter writes the 64-bit shuffle."""
    from tinycomp.codegen.gpu.device_module import emit_device_llvm
    from tinycomp.codegen.gpu.nvptx_hooks import NVPTXHooks

    module = (
        "gpu.module @m {\n  gpu.func @k(%x: f64, %m: i32) kernel {\n"
        "    %c32 = arith.constant 32 : i32\n"
        "    %r, %ok = gpu.shuffle xor %x, %m, %c32 : f64\n    gpu.return\n  }\n}"
    )
    return emit_device_llvm(module, NVPTXHooks("sm_80")).text


def test_the_library_emitter_is_not_an_answer():
    with pytest.raises(GradingFailure, match="emit_device_llvm.*the library's own answer"):
        graded.test_shuffle_ir_calls_the_intrinsic_twice(
            attempt(shfl_xor_f64_ir=library_shuffle_ir)
        )
