"""Chapter 11's graders answer wrong attempts with what an Ascend C programmer would say,
not a bare failure: each wrong kernel or wrong answer below is a mistake students make,
and the grader's message must name the pipe, the op, the flag or the fractal at fault.

The graded tests of ``tests/exercises/test_ch11_davinci_npu.py`` are called directly on a
stand-in for the student's module whose ``__file__`` is this file (the kernels here are
"the student's own")."""

import re
import types
from pathlib import Path

import numpy as np
import pytest

from tests.exercises import test_ch11_davinci_npu as graded
from tinycomp import npu
from tinycomp.grading.checks import GradingFailure
from tinycomp.grading.loader import load_implementation
from tinycomp.grading.npu_checks import nz_slice_counter_example, ub_bill, unbalanced_flags
from tinycomp.grading.npu_timeline_checks import dma_count, explain_over_budget, pipe_waits
from tinycomp.testing.npu_kernels import vector_add

ROOT = Path(__file__).resolve().parents[2]
reference = load_implementation(ROOT, "solutions", "ch11_davinci_npu")
TILE = reference.TILE


def attempt(**functions) -> types.SimpleNamespace:
    return types.SimpleNamespace(__file__=__file__, TILE=TILE, **functions)


def failure_of(test, *args) -> str:
    with pytest.raises(GradingFailure) as failure:
        test(*args)
    return str(failure.value)


# -- Task 11.1: scaled_add -----------------------------------------------------------------
def scaled_add_with(buffer_num: int, split: bool = True):
    """``scaled_add`` with ``buffer_num`` buffers a queue; ``split=False``: every block
    streams the whole arrays (the result is right, the traffic is ``block_num`` times)."""

    @npu.kernel
    def scaled_add(x, y, z, alpha):
        per_core = x.size // npu.block_num() if split else x.size
        pipe = npu.TPipe()
        in_x, in_y, out_z = npu.TQue(npu.VECIN), npu.TQue(npu.VECIN), npu.TQue(npu.VECOUT)
        for queue in (in_x, in_y, out_z):
            pipe.init_buffer(queue, buffer_num, TILE * 2)
        start = npu.block_idx() * per_core if split else 0
        for i in npu.range(per_core // TILE):
            offset = start + i * TILE
            x_tile, y_tile = in_x.alloc_tensor(np.float16), in_y.alloc_tensor(np.float16)
            npu.data_copy(x_tile, x[offset], TILE)
            npu.data_copy(y_tile, y[offset], TILE)
            in_x.enque(x_tile)
            in_y.enque(y_tile)
            x_tile, y_tile = in_x.deque(), in_y.deque()
            z_tile = out_z.alloc_tensor(np.float16)
            npu.muls(z_tile, x_tile, alpha, TILE)
            npu.add(z_tile, z_tile, y_tile, TILE)
            out_z.enque(z_tile)
            in_x.free_tensor(x_tile)
            in_y.free_tensor(y_tile)
            z_tile = out_z.deque()
            npu.data_copy(z[offset], z_tile, TILE)
            out_z.free_tensor(z_tile)

    return scaled_add


def test_the_reference_shape_passes_as_the_students_own():
    mine = attempt(scaled_add=scaled_add_with(2))
    graded.test_scaled_add_matches_numpy(mine, "small", 2, 3, -0.25)
    graded.test_scaled_add_double_buffers(mine)
    graded.test_scaled_add_budget(mine, "small", 4)


def test_single_buffering_is_asked_about_double_buffering():
    single = attempt(scaled_add=scaled_add_with(1))
    graded.test_scaled_add_matches_numpy(single, "small", 4, 2, 1.5)  # right, but slow
    message = failure_of(graded.test_scaled_add_double_buffers, single)
    assert "Are you double-buffering?" in message, message
    assert re.search(r"V waited \d+ cycles on wait_flag MTE2->V", message), message
    message = failure_of(graded.test_scaled_add_budget, single, "small", 4)
    assert re.search(r"\d+ cycles, the budget is 7816 \(\d+% over\)", message), message
    assert re.search(r"MTE2 is the critical pipe: busy \d+% of the run on AIV", message), message
    assert re.search(r"waited the most: \d+ cycles on wait_flag \w+->\w+", message), message
    assert "double-buffering" in message, message


def test_every_block_writing_the_whole_output_is_a_cross_core_hazard():
    whole = attempt(scaled_add=scaled_add_with(2, split=False))
    message = failure_of(graded.test_scaled_add_matches_numpy, whole, "small", 2, 3, -0.25)
    assert "a flag is missing" in message and "writes GM array" in message, message
    assert "AIV 0.1 must cross_core_set a flag" in message, message


def test_a_kernel_from_the_library_is_refused():
    borrowed = attempt(scaled_add=vector_add)
    message = failure_of(graded.test_scaled_add_matches_numpy, borrowed, "small", 1, 1, 2.0)
    assert "not defined in your file" in message, message


def test_a_changed_tile_is_named():
    wrong = types.SimpleNamespace(__file__=__file__, TILE=4096, scaled_add=scaled_add_with(2))
    message = failure_of(graded.test_scaled_add_matches_numpy, wrong, "small", 1, 1, 2.0)
    assert "TILE is 4096" in message, message


# -- Task 11.2: flagged_copy_scale -------------------------------------------------------------
FLAGS = ("start", "top", "in", "v", "out", "end")
"""The flag groups of the reference: the two sets before the loop, the wait before the
copy-in, MTE2 -> V, V -> MTE3, the set after the copy-out, the two waits at the end."""


def flagged_with(*, skip=(), barrier=False, one_event=False, adjacent=False):
    """``flagged_copy_scale`` without the flag groups in ``skip``; ``barrier``: a
    ``pipe_barrier("ALL")`` after every step instead of any flag; ``one_event``: event 0
    for both buffers; ``adjacent``: the MTE3 -> MTE2 wait right after its set."""
    use = set(FLAGS) - set(skip)
    if barrier:
        use = set()

    @npu.kernel
    def flagged_copy_scale(x, y, scale):
        per_core = x.size // npu.block_num()
        pipe = npu.TPipe()
        ub = npu.TBuf()
        pipe.init_buffer(ub, 2 * TILE * 2)
        ping = ub.get(np.float16)
        pong = ping[TILE]
        start = npu.block_idx() * per_core
        if "start" in use and not adjacent:
            for event in (0,) if one_event else (0, 1):
                npu.set_flag("MTE3", "MTE2", event)
        for pair in npu.range(per_core // (2 * TILE)):
            for slot, tile in enumerate((ping, pong)):
                event = 0 if one_event else slot
                offset = start + (2 * pair + slot) * TILE
                if "top" in use and not adjacent:
                    npu.wait_flag("MTE3", "MTE2", event)
                npu.data_copy(tile, x[offset], TILE)
                if "in" in use:
                    npu.set_flag("MTE2", "V", event)
                    npu.wait_flag("MTE2", "V", event)
                if barrier:
                    npu.pipe_barrier("ALL")
                npu.muls(tile, tile, scale, TILE)
                if "v" in use:
                    npu.set_flag("V", "MTE3", event)
                    npu.wait_flag("V", "MTE3", event)
                if barrier:
                    npu.pipe_barrier("ALL")
                npu.data_copy(y[offset], tile, TILE)
                if "out" in use:
                    npu.set_flag("MTE3", "MTE2", event)
                    if adjacent:
                        npu.wait_flag("MTE3", "MTE2", event)
                if barrier:
                    npu.pipe_barrier("ALL")
        if "end" in use and not adjacent:
            for event in (0,) if one_event else (0, 1):
                npu.wait_flag("MTE3", "MTE2", event)

    return flagged_copy_scale


def flagged_failure(test, *args, **wrong) -> str:
    return failure_of(test, attempt(flagged_copy_scale=flagged_with(**wrong)), *args)


def test_all_the_flags_pass():
    mine = attempt(flagged_copy_scale=flagged_with())
    graded.test_flagged_copy_scale_matches_numpy(mine, "small", 4, 3, -2.0)
    graded.test_flagged_copy_scale_budget(mine, "small", 4)


def test_a_missing_copy_in_flag_names_both_ops_and_the_flag():
    message = flagged_failure(
        graded.test_flagged_copy_scale_matches_numpy, "small", 1, 1, 0.75, skip=("in",)
    )
    assert "a flag is missing" in message, message
    assert "'npu.vmuls'" in message and "'npu.copy'" in message, message
    assert "set_flag MTE2->V after" in message and "wait_flag MTE2->V before" in message


def test_a_missing_copy_out_flag_names_mte3():
    message = flagged_failure(
        graded.test_flagged_copy_scale_matches_numpy, "small", 1, 1, 0.75, skip=("v",)
    )
    # the copy-out starts before the vector op has run, so the first race in time is with
    # the copy-in: the sanitizer names that pair
    assert "copy UB->GM on pipe MTE3 reads" in message and "wait_flag" in message, message


def test_forgetting_the_first_sets_is_a_deadlock_with_the_stuck_wait():
    message = flagged_failure(
        graded.test_flagged_copy_scale_matches_numpy, "small", 4, 3, -2.0, skip=("start",)
    )
    assert message.count("AIV 0.0 pipe MTE2: wait_flag MTE3->MTE2 #0") == 1, message
    assert "deadlocks" in message and "3 more cores stuck the same way" in message, message
    assert "AIV 1.0" not in message, message


def test_a_flag_left_set_at_the_end_is_named():
    message = flagged_failure(
        graded.test_flagged_copy_scale_matches_numpy, "small", 1, 1, 0.75, skip=("end",)
    )
    assert "on AIV 0.0: set_flag MTE3->MTE2 event 0 is never waited on" in message, message
    assert "the kernel ends with the flag still set" in message, message


def test_a_copy_in_that_does_not_wait_for_its_buffer_sets_its_flag_twice():
    message = flagged_failure(
        graded.test_flagged_copy_scale_matches_numpy, "small", 1, 3, 0.75, skip=("top",)
    )
    assert "a flag is set again before its wait took it" in message, message
    assert "set_flag MTE3->MTE2 event 0 is set again" in message, message


def test_a_barrier_per_step_is_over_budget_and_named():
    message = flagged_failure(graded.test_flagged_copy_scale_budget, "small", 4, barrier=True)
    assert "the budget is 7042" in message, message
    assert re.search(r"S waited the most: \d+ cycles on pipe_barrier ALL", message), message
    assert "no step overlaps another" in message, message


def test_one_event_id_for_both_buffers_serialises_the_copies():
    message = flagged_failure(graded.test_flagged_copy_scale_budget, "small", 4, one_event=True)
    assert re.search(r"MTE2: \d+ cycles on wait_flag MTE3->MTE2 \(8 times", message), message
    assert "the other buffer" in message, message


def test_waiting_right_after_the_copy_out_serialises_too():
    message = flagged_failure(graded.test_flagged_copy_scale_budget, "910b2", 8, adjacent=True)
    assert "the budget is 4872" in message and "wait_flag MTE3->MTE2" in message, message


@npu.kernel
def flagged_through_queues(x, y, scale):
    per_core = x.size // npu.block_num()
    pipe = npu.TPipe()
    queue = npu.TQue(npu.VECIN)
    pipe.init_buffer(queue, 2, TILE * 2)
    start = npu.block_idx() * per_core
    for i in npu.range(per_core // TILE):
        tile = queue.alloc_tensor(np.float16)
        npu.data_copy(tile, x[start + i * TILE], TILE)
        queue.enque(tile)
        tile = queue.deque()
        npu.muls(tile, tile, scale, TILE)
        npu.set_flag("V", "MTE3", 0)
        npu.wait_flag("V", "MTE3", 0)
        npu.data_copy(y[start + i * TILE], tile, TILE)
        queue.free_tensor(tile)


def test_queues_are_not_an_answer_to_the_flags_task():
    message = failure_of(
        graded.test_flagged_copy_scale_matches_numpy,
        attempt(flagged_copy_scale=flagged_through_queues), "small", 1, 1, 0.75,
    )  # fmt: skip
    assert "TQue.__init__" in message and "library's own answer" in message, message


# -- Task 11.3: choose_tile -------------------------------------------------------------------
def tile_failure(choose, case) -> str:
    return failure_of(graded.test_choose_tile, attempt(choose_tile=choose), *case)


def ignores_the_queues(n, dtype, ub_bytes, queues, buffer_num):
    """The largest aligned divisor of n that fits the UB alone: one buffer's worth."""
    size = np.dtype(dtype).itemsize
    step = 32 // size
    return max(t for t in range(step, n + 1, step) if n % t == 0 and t * size <= ub_bytes)


def powers_of_two(n, dtype, ub_bytes, queues, buffer_num):
    """The largest power of two that divides n and fits."""
    size = np.dtype(dtype).itemsize
    tile = 1
    while n % (tile * 2) == 0 and queues * buffer_num * tile * 2 * size <= ub_bytes:
        tile *= 2
    return tile


def unaligned(n, dtype, ub_bytes, queues, buffer_num):
    """The largest divisor that fits, alignment forgotten."""
    size = np.dtype(dtype).itemsize
    return max(t for t in range(1, n + 1) if n % t == 0 and queues * buffer_num * t * size
               <= ub_bytes)  # fmt: skip


def test_a_tile_that_forgets_the_other_queues_overflows_the_ub():
    message = tile_failure(ignores_the_queues, graded.TILE_CASES[0])
    assert "choose_tile(24576, np.float32, 32768, 3, 2) = 8192" in message, message
    assert "tile 8192 x float32 x 3 queues x 2 buffers = 192 KiB > UB 32 KiB of small" in message
    assert "overflow" not in message or "past the 32768 bytes" in message


def test_a_tile_that_is_not_32_byte_aligned_is_told_its_bytes():
    message = tile_failure(unaligned, graded.TILE_CASES[3])
    assert "choose_tile(6000, np.float16, 32768, 4, 1) = 3000" in message, message
    assert "3000 x float16 = 6000 bytes, not a multiple of 32" in message, message
    assert "multiple of 16 elements" in message, message


def test_a_power_of_two_makes_more_dmas_than_needed():
    message = tile_failure(powers_of_two, graded.TILE_CASES[1])
    assert "= 32 (UB 32 KiB of small)" in message, message
    assert "the kernel made 1125 DMAs" in message and "the fewest is 30, with tile 1200" in message


def test_a_tile_that_does_not_divide_is_a_tail():
    message = tile_failure(lambda *args: 1024, graded.TILE_CASES[1])
    assert "1024 does not divide 12000" in message and "a tail" in message, message


def test_a_tile_on_a_custom_ub_names_it():
    message = tile_failure(powers_of_two, graded.TILE_CASES[4])
    assert "UB 40 KiB of small-40k" in message and "tile 2560" in message, message


# -- Task 11.4: NZ slices -----------------------------------------------------------------------
def slices(a=None, b=None):
    return attempt(
        a_slice_copy=a or reference.a_slice_copy, b_slice_copy=b or reference.b_slice_copy
    )


def b_with_the_l0_stride(step, n, l1_k, l0_k):
    """Bursts as far apart in L1 as they land in L0B: the L0B stride, not the L1 one."""
    return step * l0_k * 16, n // 16, l0_k * 16, l0_k * 16


def a_offset_in_rows(step, m, l1_k, l0_k):
    """The A slice's offset counted in one fractal column's rows, not whole blocks."""
    return step * l0_k * 16, 1, l0_k * m, l0_k * m


def reversed_steps(which):
    def copy(step, width, l1_k, l0_k):
        return getattr(reference, which)(l1_k // l0_k - 1 - step, width, l1_k, l0_k)

    return copy


def test_the_b_slice_with_the_wrong_stride_names_the_fractal():
    message = failure_of(graded.test_panel_matmul_matches_numpy, slices(b=b_with_the_l0_stride),
                         *graded.SLICE_SHAPES[0])  # fmt: skip
    assert "first mismatch" in message, message
    assert re.search(
        r"b_slice_copy\(0, 64, 128, 32\) = \(0, 4, 512, 512\): fractal 2 of L0B \(column "
        r"block 1, k block 0\), which should hold B panel rows 0-15, columns 16-31, holds B "
        r"panel rows 32-47, columns 0-15",
        message,
    ), message


def test_the_a_slice_with_the_wrong_offset_names_the_fractal():
    message = failure_of(graded.test_slices_hold_their_fractals, slices(a=a_offset_in_rows),
                         *graded.SLICE_SHAPES[0])  # fmt: skip
    assert message.startswith("a_slice_copy(1, 32, 128, 32) = (512, 1, 1024, 1024): fractal 0 "
                              "of L0A (k block 0, row block 0)"), message  # fmt: skip
    assert "should hold A panel rows 0-15, columns 32-47" in message, message


def test_consistently_reversed_steps_pass_the_product_but_not_the_slices():
    wrong = slices(a=reversed_steps("a_slice_copy"), b=reversed_steps("b_slice_copy"))
    graded.test_panel_matmul_matches_numpy(wrong, *graded.SLICE_SHAPES[0])  # the sum is the same
    message = failure_of(graded.test_slices_hold_their_fractals, wrong, *graded.SLICE_SHAPES[0])
    assert "should hold A panel rows 0-15, columns 0-15, holds A panel rows 0-15, columns 96-111"
    assert "fractal 0 of L0A" in message, message


def test_a_copy_past_the_panel_is_told_as_the_elements_it_misses():
    def too_far(step, m, l1_k, l0_k):
        return (step + 1) * l0_k * m, 1, l0_k * m, l0_k * m

    message = failure_of(graded.test_panel_matmul_matches_numpy, slices(a=too_far),
                         *graded.SLICE_SHAPES[1])  # fmt: skip
    assert "The copy at fault: a_slice_copy(0, 48, 64, 16)" in message, message


def test_the_library_nz_layout_is_not_an_answer():
    from tinycomp.targets.npu_sim import nz_layout

    def with_the_library(step, n, l1_k, l0_k):
        nz_layout.nz_shape((l1_k, n), np.float16)
        return reference.b_slice_copy(step, n, l1_k, l0_k)

    message = failure_of(graded.test_slices_hold_their_fractals, slices(b=with_the_library),
                         *graded.SLICE_SHAPES[0])  # fmt: skip
    assert "nz_shape" in message and "the library's own answer" in message, message


def test_a_wrong_return_type_is_named():
    message = failure_of(graded.test_slices_hold_their_fractals, slices(b=lambda *a: (0, 4, 512)),
                         *graded.SLICE_SHAPES[0])  # fmt: skip
    assert "tuple of 4 ints, found (0, 4, 512)" in message, message


# -- the helpers on their own ---------------------------------------------------------------------
def test_dma_count_counts_every_copy_of_a_launch():
    x, y = np.ones(4096, np.float16), np.ones(4096, np.float16)
    result = npu.launch(vector_add, (x, y, np.zeros_like(x), 1024, 2), 1, "small")
    assert dma_count(result) == 12 and dma_count(result, path="UB->GM") == 4


def test_explain_over_budget_names_the_critical_pipe_and_the_longest_wait():
    x = np.ones(4 * TILE * 4, np.float16)
    result = npu.launch(scaled_add_with(1), (x, x.copy(), np.zeros_like(x), 1.0), 4, "small")
    text = explain_over_budget(result, result.cycles / 2)
    assert "(100% over)" in text and f"{result.critical_pipe} is the critical pipe" in text
    top = pipe_waits(result, result.pipes[result.critical_pipe].core)[0]
    assert f"{top.pipe} waited the most: {top.cycles:.0f} cycles on {top.flag}" in text


def test_unbalanced_flags_are_none_for_queues():
    x = np.ones(4096, np.float16)
    result = npu.launch(vector_add, (x, x.copy(), np.zeros_like(x), 1024, 2), 1, "small")
    assert unbalanced_flags(result) == []


def test_the_ub_bill_sums_every_buffer():
    total, text = ub_bill(1000, np.float16, 3, 2, "910b2")
    assert total == 3 * 2 * 2016  # each buffer padded to 32 bytes
    assert text.endswith("<= UB 192 KiB of 910b2")


def test_a_right_a_slice_has_no_counter_example():
    assert nz_slice_counter_example("A", reference.a_slice_copy(2, 48, 96, 32), 2, 48, 96, 32) \
        is None  # fmt: skip
