"""Static memory planning of on-chip buffers: aligned, inside the space, no two buffers
live at once sharing a byte, bytes reused once a buffer is dead, and a clear error (the
space, the buffer, what is live with it) when they cannot fit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.passes.npu.memory_plan import (
    ALIGNMENT,
    BufferRequest,
    MemoryPlanError,
    choose_buffer_count,
    plan_memory,
)

UB = {"UB": 192 * 1024}


@st.composite
def requests(draw):
    count = draw(st.integers(1, 8))
    out = []
    for n in range(count):
        start = draw(st.integers(0, 20))
        out.append(BufferRequest(
            f"b{n}", "UB", draw(st.integers(1, 40 * 1024)), start,
            start + draw(st.integers(0, 10)), draw(st.integers(1, 3)),
        ))  # fmt: skip
    return out


@settings(max_examples=200, deadline=None)
@given(requests())
def test_a_plan_never_puts_two_live_buffers_on_one_byte(asked):
    peak_live = max(
        sum(r.footprint for r in asked if r.start <= step <= r.end) for step in range(31)
    )
    try:
        plan = plan_memory(asked, UB)
    except MemoryPlanError as error:
        assert "does not fit UB (192 KiB)" in str(error)
        return
    assert plan.peak("UB") >= peak_live  # no plan beats the bytes live at once
    for p in plan.placements:
        assert p.offset % ALIGNMENT == 0 and p.end <= UB["UB"]
    for a in plan.placements:
        for b in plan.placements:
            if a is not b and a.request.live_with(b.request):
                assert a.end <= b.offset or b.end <= a.offset, (a, b)


def test_buffers_never_live_together_share_their_bytes():
    plan = plan_memory(
        [BufferRequest("in", "UB", 96 * 1024, 0, 5), BufferRequest("out", "UB", 96 * 1024, 6, 9),
         BufferRequest("tmp", "UB", 96 * 1024, 3, 7)],
        UB,
    )  # fmt: skip
    assert plan.offset("in") == plan.offset("out") == 0 and plan.offset("tmp") == 96 * 1024
    assert plan.peak("UB") == 192 * 1024
    assert "UB: 192 KiB of 192 KiB" in str(plan)


def test_a_buffer_that_cannot_fit_names_what_is_live_with_it():
    with pytest.raises(MemoryPlanError) as caught:
        plan_memory(
            [BufferRequest("x", "UB", 64 * 1024, 0, 9, copies=2),
             BufferRequest("y", "UB", 64 * 1024, 0, 9, copies=2)],
            UB,
        )  # fmt: skip
    message = str(caught.value)
    assert message.startswith("buffer 'y' (128 KiB, 2 copies) does not fit UB (192 KiB)")
    assert "live with it x (128 KiB)" in message and "end at byte 262144" in message


def test_a_buffer_in_a_space_the_core_lacks_is_named():
    with pytest.raises(MemoryPlanError, match=r"no space 'L1' on this core \(it has UB\)"):
        plan_memory([BufferRequest("a", "L1", 32, 0, 0)], UB)


def test_sizes_are_rounded_up_to_32_bytes():
    plan = plan_memory([BufferRequest("a", "UB", 33, 0, 1), BufferRequest("b", "UB", 1, 0, 1)],
                       UB)  # fmt: skip
    assert sorted(p.offset for p in plan.placements) == [0, 64]


@pytest.mark.parametrize(
    ("stage", "other", "count"),
    [(48 * 1024, 16 * 1024, 3), (80 * 1024, 16 * 1024, 2), (150 * 1024, 0, 1)],
)
def test_the_buffer_count_is_the_most_that_fit_and_says_why(stage, other, count):
    chosen, reason = choose_buffer_count(stage, UB["UB"], other)
    assert chosen == count and "fit UB (192 KiB)" in reason
    assert ("would need" in reason) == (count < 3)


def test_a_stage_too_big_for_one_buffer_is_an_error():
    with pytest.raises(MemoryPlanError, match="does not fit UB .* make the tile smaller"):
        choose_buffer_count(200 * 1024, UB["UB"])
