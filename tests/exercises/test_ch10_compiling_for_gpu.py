"""Graded tests for chapter 10 (`ch10_compiling_for_gpu.py`): layouts and warp reductions.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).

* Task 10.1: the student's ``BlockedLayout`` for several tiles (f32 and f16, 1-D and
  2-D, tiles smaller than one layout tile): it covers the tile, each thread's run along
  the contiguous dimension is one 16-byte vector where the tile holds enough elements,
  and every warp access touches the fewest 32-byte sectors (counted from the layout's
  own thread map). The library's ``default_layout`` is blocked while the student's code
  runs.
* Task 10.2: the row softmax launched on the simulator (sanitizer on) on random rows,
  compared with numpy; then the counters: no shared memory, at most 10 shuffles and no
  warp-reduction intrinsics per warp, one global load and one store request per warp.
* Task 10.3: the tiled matmul launched on the simulator (sanitizer on) at three shapes,
  compared with numpy; a race is answered with the barrier it shows missing. Then the
  budget, computed from the shapes (not from the reference's counts): global load
  sectors at most one read of the block's 32 rows of A and 32 columns of B, no bank
  conflicts (a conflict is shown from a traced warp: line, bank, lanes), at most two
  barriers per k-step.
* Task 10.4: the LLVM IR of ``@shfl_xor_f64``. It parses and verifies with llvmlite,
  holds exactly two calls of ``llvm.nvvm.shfl.sync.bfly.i32`` and is ``convergent`` (if
  not, the feedback shows the caller LLVM's -O2 rewrites: two calls in the branches of
  ``if (tid < 16)`` merged into one above it). Its PTX for sm_80 (through tinycomp's
  NVPTX target machine, the function inlined into a probe kernel) holds exactly two
  ``shfl.sync.bfly.b32``, and ptxas assembles it where ptxas is installed. Behaviour:
  NVVM intrinsics cannot run on the CPU, so the student's own IR is JIT-compiled for
  the host with the intrinsic renamed to a host function that performs PTX's butterfly
  over a table of 32 lanes, the lanes run until their shuffles agree
  (``tinycomp.grading.ptx_checks.run_lockstep``); the 32 results must equal numpy's
  ``x[np.arange(32) ^ lane_mask]`` bit for bit on random doubles (signs, subnormals,
  infinities), for every lane mask.
"""

from __future__ import annotations

import math
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

from tinycomp.codegen.gpu.ptxas import ptxas_report, ptxas_unavailable
from tinycomp.frontend.tile.layout import BlockedLayout, LayoutError
from tinycomp.gpu import launch
from tinycomp.grading.checks import GradingFailure, expect_array_close, expect_instance
from tinycomp.grading.coalescing_checks import worst_global_load
from tinycomp.grading.gpu_checks import (
    expect_kernel,
    expect_no_bank_conflicts,
    expect_per_block_at_most,
    launch_kernel,
)
from tinycomp.grading.library_calls import library_answers_blocked
from tinycomp.grading.ptx_checks import (
    INTRINSIC,
    hoisting_counter_example,
    probe_ptx,
    run_lockstep,
)
from tinycomp.grading.shared_memory_checks import explain_shared_race, worst_bank_conflict

task10_1 = pytest.mark.task10_1
task10_2 = pytest.mark.task10_2
task10_3 = pytest.mark.task10_3
task10_4 = pytest.mark.task10_4

ANSWERS = {
    "10.1": {"tinycomp.frontend.tile.layout:default_layout": "the library's coalesced layout"},
    "10.4": {
        "tinycomp.codegen.gpu.device_module:emit_device_llvm": (
            "the library's NVPTX emitter, which splits a 64-bit shuffle itself"
        ),
    },
}
"""The library functions that compute a task's answer, blocked while the student's code
runs."""

SECTOR = 32
VECTOR_BYTES = 16


# -- Task 10.1 ---------------------------------------------------------------------------
def student_layout(impl, shape, element_bytes, warps) -> BlockedLayout:
    what = f"coalesced_layout({shape}, {element_bytes}, {warps})"
    with library_answers_blocked(impl, what, ANSWERS["10.1"]):
        layout = impl.coalesced_layout(shape, element_bytes, warps)
    expect_instance(what, layout, BlockedLayout, "a BlockedLayout")
    if layout.num_warps != warps:
        raise GradingFailure(f"{what}: the layout has {layout.num_warps} warps, expected {warps}")
    if layout.order[0] != len(shape) - 1:
        raise GradingFailure(
            f"{what}: order {list(layout.order)} does not start with the contiguous "
            f"dimension {len(shape) - 1}"
        )
    try:
        layout.check_covers(shape)
    except LayoutError as error:
        raise GradingFailure(f"{what}: the layout does not cover the tile: {error}") from None
    owned = set(layout.thread_map(shape))
    missing = [index for index in np.ndindex(*shape) if tuple(index) not in owned]
    if missing:
        raise GradingFailure(f"{what}: no thread owns element {missing[0]} of the tile")
    return layout


def warp_accesses(layout: BlockedLayout, shape, warp: int, vector: int):
    """Per vector access of ``warp``: each lane's element indices."""
    registers = layout.registers(shape)
    for access in range(registers // vector):
        yield [
            [layout.index_of(warp * 32 + lane, access * vector + j, shape) for j in range(vector)]
            for lane in range(32)
        ]


SHAPES = [
    ((64, 64), 2, 4),
    ((32, 128), 4, 4),
    ((1024,), 4, 4),
    ((8, 256), 2, 8),
    ((16, 16), 4, 4),
    ((128,), 2, 2),
]


@task10_1
@pytest.mark.parametrize(("shape", "element_bytes", "warps"), SHAPES)
def test_coalesced_layout(impl, shape, element_bytes, warps):
    what = f"coalesced_layout({shape}, {element_bytes}, {warps})"
    layout = student_layout(impl, shape, element_bytes, warps)
    per_thread = math.prod(shape) // (32 * warps)
    run = layout.size_per_thread[-1]
    wanted = VECTOR_BYTES // element_bytes
    if per_thread >= wanted and run * element_bytes != VECTOR_BYTES:
        raise GradingFailure(
            f"{what}: each thread holds {run} contiguous elements ({run * element_bytes} "
            f"bytes) along dimension {len(shape) - 1}, so its loads are "
            f"{run * element_bytes * 8}-bit; the tile has {per_thread} elements per thread, "
            f"enough for one 128-bit vector of {wanted}"
        )
    strides = np.cumprod((1, *shape[::-1]))[:-1][::-1]
    for warp in range(warps):
        for lanes in warp_accesses(layout, shape, warp, run):
            offsets = {int(np.dot(i, strides)) * element_bytes for lane in lanes for i in lane}
            touched = {o // SECTOR for o in offsets}
            fewest = math.ceil(len(offsets) * element_bytes / SECTOR)
            if len(touched) > fewest:
                raise GradingFailure(
                    f"{what}: warp {warp}'s access gives lane 5 the elements "
                    f"{[tuple(int(v) for v in i) for i in lanes[5]]}, and the warp touches "
                    f"{len(touched)} sectors where {fewest} suffice (the lanes' vectors are "
                    "not adjacent in memory)"
                )


# -- Task 10.2 ---------------------------------------------------------------------------
def softmax_args(rows: int, seed: int):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, 32)) * 4).astype(np.float32)
    return x, rng.uniform(-1e3, 1e3, (rows, 32)).astype(np.float32), np.int32(rows)


def run_softmax(impl, rows: int):
    what = f"row_softmax ({rows} rows)"
    kernel = expect_kernel("row_softmax_kernel()", impl.row_softmax_kernel())
    if Path(kernel.source[0]).resolve() != Path(impl.__file__).resolve():
        raise GradingFailure(
            "row_softmax_kernel(): the kernel it returns is not defined in your file; "
            "write the kernel yourself"
        )
    x, out, n = softmax_args(rows, seed=rows)
    grid = math.ceil(rows / 8)
    result = launch_kernel(what, kernel, grid, 256, (x, out, n))
    shifted = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    expected = (shifted / shifted.sum(axis=1, keepdims=True)).astype(np.float32)
    expect_array_close(f"{what}: out", out, expected, rtol=1e-4, atol=1e-6)
    return result, what


@task10_2
@pytest.mark.parametrize("rows", [40, 7, 64])
def test_row_softmax_matches_numpy(impl, rows):
    run_softmax(impl, rows)


@task10_2
def test_row_softmax_budget(impl):
    result, what = run_softmax(impl, 40)
    c, grid = result.counters, result.grid
    shared = sum(c.total(f"shared_{kind}_requests") for kind in ("load", "store", "atomic"))
    if shared or result.occupancy.shared_bytes_per_block:
        raise GradingFailure(
            f"{what}: the kernel declares {result.occupancy.shared_bytes_per_block} bytes of "
            f"shared memory and makes {shared} shared requests; the budget is none at all "
            "(a 32-element row is reduced within its warp with shuffles)"
        )
    shuffles = "shuffle instructions (5 for the maximum and 5 for the sum, per warp)"
    expect_per_block_at_most(what, c, grid, "inst_shuffle", 10 * 8, shuffles)
    votes = "warp-reduction or vote instructions (write the butterfly with shfl_xor_sync)"
    expect_per_block_at_most(what, c, grid, "inst_vote", 0, votes)
    loads = "global load requests (one per warp: each warp loads its row once)"
    expect_per_block_at_most(what, c, grid, "global_load_requests", 8, loads)
    stores = "global store requests (one per warp: each warp stores its row once)"
    expect_per_block_at_most(what, c, grid, "global_store_requests", 8, stores)


# -- Task 10.3 ---------------------------------------------------------------------------
TILE = 32
MATMUL_BLOCK = (32, 8, 1)


def matmul_args(m: int, n: int, k: int, seed: int):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.uniform(-1e3, 1e3, (m, n)).astype(np.float32)
    return a, b, c, np.int32(m), np.int32(n), np.int32(k)


def run_matmul(impl, m: int, n: int, k: int) -> tuple:
    what = f"tiled_matmul (M, N, K = {m}, {n}, {k})"
    kernel = expect_kernel("tiled_matmul_kernel()", impl.tiled_matmul_kernel())
    if Path(kernel.source[0]).resolve() != Path(impl.__file__).resolve():
        raise GradingFailure(
            "tiled_matmul_kernel(): the kernel it returns is not defined in your file; "
            "write the kernel yourself"
        )
    args = matmul_args(m, n, k, seed=m + 7 * n + 31 * k)
    grid = (n // TILE, m // TILE, 1)
    try:
        result = launch_kernel(what, kernel, grid, MATMUL_BLOCK, args)
    except GradingFailure as failure:
        missing = explain_shared_race(str(failure))
        if missing is None:
            raise
        report = str(failure).partition("the sanitizer stopped the launch: ")[2]
        raise GradingFailure(f"{what}: {missing}. The sanitizer's report: {report}") from None
    a, b, c = args[:3]
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    expect_array_close(f"{what}: C", c, expected, rtol=1e-4, atol=1e-4)
    return kernel, result, args, what


@task10_3
@pytest.mark.parametrize(("m", "n", "k"), [(64, 96, 64), (96, 32, 128), (32, 64, 32)])
def test_tiled_matmul_matches_numpy(impl, m, n, k):
    run_matmul(impl, m, n, k)


@task10_3
@pytest.mark.parametrize(("m", "n", "k"), [(64, 96, 128), (32, 32, 64)])
def test_tiled_matmul_budget(impl, m, n, k):
    kernel, result, args, what = run_matmul(impl, m, n, k)
    c, grid = result.counters, result.grid
    steps = k // TILE
    once = 2 * TILE * k * 4 // SECTOR
    sectors = (
        f"global load sectors (its 32 rows of A and 32 columns of B, read once: "
        f"2 x 32 x {k} floats x 4 bytes / 32 bytes a sector = {once} sectors)"
    )
    try:
        expect_per_block_at_most(what, c, grid, "global_load_sectors", once, sectors)
    except GradingFailure as failure:
        traced = launch(kernel, grid, MATMUL_BLOCK, list(args), trace_warp=(0, 0))
        assert traced.trace is not None
        worst = worst_global_load(traced.trace.memory_events("global"))
        if worst is not None:
            raise GradingFailure(f"{failure}; in block (0, 0, 0), warp 0: {worst}") from None
        raise GradingFailure(
            f"{failure}; every load of warp 0 in block (0, 0, 0) touches the fewest sectors "
            "it can, so the excess is data read more than once: each warp reads what "
            "another warp of the block reads too, where a tile in shared memory would "
            "read it once for all of them"
        ) from None
    barriers = f"barriers ({steps} k-steps, at most 2 each)"
    expect_per_block_at_most(what, c, grid, "barriers", 2 * steps, barriers)
    try:
        expect_no_bank_conflicts(what, c, grid)
    except GradingFailure as failure:
        traced = launch(kernel, grid, MATMUL_BLOCK, list(args), trace_warp=(0, 0))
        assert traced.trace is not None
        worst = worst_bank_conflict(traced.trace.memory_events("shared"))
        if worst is None:
            raise
        raise GradingFailure(f"{failure}; in block (0, 0, 0), warp 0: {worst}") from None


# -- Task 10.4 ---------------------------------------------------------------------------
def student_ir(impl) -> str:
    """The student's module as text, parsed and verified."""
    with library_answers_blocked(impl, "shfl_xor_f64_ir()", ANSWERS["10.4"]):
        found = impl.shfl_xor_f64_ir()
    if hasattr(found, "functions") and hasattr(found, "triple"):  # an llvmlite.ir.Module
        found = str(found)
    expect_instance("shfl_xor_f64_ir()", found, str, "LLVM IR text")
    try:
        llvm.parse_assembly(found).verify()
    except RuntimeError as error:
        raise GradingFailure(f"shfl_xor_f64_ir(): LLVM rejects the IR: {error}") from None
    return found


def shuffle_function(impl, text: str) -> tuple[str, llvm.ValueRef]:
    name = impl.SHUFFLE_FUNCTION
    module = llvm.parse_assembly(text)
    try:
        function = module.get_function(name)
    except NameError:
        defined = [f.name for f in module.functions if not f.is_declaration]
        raise GradingFailure(
            f"shfl_xor_f64_ir(): no function @{name}; it defines {defined}"
        ) from None
    if function.is_declaration:
        raise GradingFailure(f"shfl_xor_f64_ir(): @{name} is declared, not defined")
    if function.linkage != llvm.Linkage.external:
        raise GradingFailure(
            f"@{name} has {function.linkage.name} linkage; expected external (a kernel in "
            "another module must be able to call it)"
        )
    signature = str(function.global_value_type)
    if signature != "double (double, i32)":
        raise GradingFailure(f"@{name}: expected the type double (double, i32), found {signature}")
    return name, function


@task10_4
def test_shuffle_ir_calls_the_intrinsic_twice(impl):
    name, function = shuffle_function(impl, student_ir(impl))
    callees = [
        str(list(instruction.operands)[-1].name)
        for block in function.blocks
        for instruction in block.instructions
        if instruction.opcode == "call"
    ]
    shuffles = [callee for callee in callees if "shfl" in callee]
    wrong = sorted({callee for callee in shuffles if callee != INTRINSIC})
    if wrong:
        raise GradingFailure(
            f"@{name}: it calls {', '.join('@' + w for w in wrong)}; the task is the 32-bit "
            f"integer butterfly @{INTRINSIC}, called once per half"
        )
    if len(shuffles) != 2:
        raise GradingFailure(
            f"@{name}: expected exactly 2 calls of @{INTRINSIC} (one per 32-bit half of the "
            f"double), found {len(shuffles)}"
        )


@task10_4
def test_shuffle_is_convergent(impl):
    name, function = shuffle_function(impl, student_ir(impl))
    attributes = " ".join(a.decode() for a in function.attributes)
    if "convergent" in attributes.split():
        return
    after = hoisting_counter_example(name, attributes)
    raise GradingFailure(
        f"@{name} is not convergent (its attributes: {attributes or 'none'}), so LLVM may "
        "move calls to it as if it were ordinary code. A kernel that calls it in both "
        "branches of `if (tid < 16)` comes out of -O2 for sm_80 with "
        f"{after.count(f'call double @{name}(')} call, hoisted above the branch, so all 32 "
        "lanes shuffle where the source had two groups of 16:\n"
        f"{after.strip()}\nMark the definition convergent, as clang does for every CUDA "
        "device function."
    )


@task10_4
def test_shuffle_ptx(impl):
    text = student_ir(impl)
    name, _ = shuffle_function(impl, text)
    ptx = probe_ptx(text, name, "sm_80")
    found = ptx.count("shfl.sync.bfly.b32")
    if found != 2:
        body = "\n".join(line for line in ptx.splitlines() if "shfl" in line)
        raise GradingFailure(
            f"@{name}: the PTX for sm_80 of a kernel calling it once holds {found} "
            f"shfl.sync.bfly.b32, expected 2 (one per 32-bit half):\n{body}"
        )
    if ptxas_unavailable() is None:
        report = ptxas_report(ptx, "sm_80")
        assert report is not None
        if "shuffle_probe" not in report.kernels:
            raise GradingFailure(f"@{name}: ptxas did not compile the probe kernel:\n{report.log}")


def lane_values(seed: int) -> np.ndarray:
    """32 doubles whose halves are all different: random signs, mantissas and exponents,
    with a negative zero, a subnormal and an infinity among them."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(32) * 10.0 ** rng.integers(-300, 300, 32)
    values[rng.permutation(32)[:3]] = [-0.0, 5e-320, -np.inf]
    return values


@task10_4
@pytest.mark.parametrize("lane_mask", [1, 2, 4, 8, 16, 31, 5, 0])
def test_shuffle_matches_numpy(impl, lane_mask):
    text = student_ir(impl)
    name, _ = shuffle_function(impl, text)
    values = lane_values(seed=lane_mask)
    run = run_lockstep(text, name, [float(v) for v in values], lane_mask)
    for call in run.calls:
        if call.membermask != 0xFFFFFFFF or call.lane_mask != lane_mask or call.clamp != 31:
            raise GradingFailure(
                f"@{name}(x, {lane_mask}): lane {call.lane}'s shuffle {call.index} has "
                f"membermask {call.membermask:#x}, lane mask {call.lane_mask}, clamp "
                f"{call.clamp}; expected {0xFFFFFFFF:#x} (every lane), {lane_mask} and 31"
            )
    found = np.array(run.results, np.float64).view(np.uint64)
    expected = values[np.arange(32) ^ lane_mask].view(np.uint64)
    wrong = np.flatnonzero(found != expected)
    if len(wrong):
        lane = int(wrong[0])
        raise GradingFailure(
            f"@{name}(x, {lane_mask}): lane {lane} returned bits {int(found[lane]):#018x}, "
            f"expected {int(expected[lane]):#018x} (lane {lane ^ lane_mask}'s value "
            f"{float(values[lane ^ lane_mask])!r}); {len(wrong)} of 32 lanes are wrong"
        )
