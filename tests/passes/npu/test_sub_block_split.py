"""How the vector side of a MIX 1:2 kernel is shared by the two vector cores: one
dimension of what the kernel returns, followed back through its producers, never a
reduction loop cut in halves, and a recorded reason wherever an op falls back."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.frontend import conv2d, trace
from tinycomp.frontend.nn import layernorm, softmax
from tinycomp.ir import parse
from tinycomp.passes.npu.sub_block_split import (
    Fallback,
    Replicated,
    Split,
    split_decision,
    split_decisions,
)

F32 = np.float32


def plan(fn, *shapes):
    return split_decisions(trace(fn, *(np.zeros(s, F32) for s in shapes)).body.first_op)


def test_softmax_is_split_by_rows_because_its_reductions_run_along_the_columns():
    decisions = plan(softmax, (6, 16))
    assert decisions and all(isinstance(d, Split) for d in decisions)
    for decision in decisions:
        assert decision.op.iterator_types()[decision.loop] == "parallel"
        assert decision.extent == 6 and decision.first == 3


def test_a_column_reduction_is_split_by_columns():
    decisions = plan(lambda a: a - a.max(axis=0, keepdims=True), (4, 8))
    assert {d.extent for d in decisions if isinstance(d, Split)} == {8}


def test_layernorm_keeps_every_reduction_whole_within_a_core():
    decisions = plan(layernorm, (8, 32), (32,), (32,))
    splits = [d for d in decisions if isinstance(d, Split)]
    assert splits and all(d.extent == 8 for d in splits)  # rows, not the reduced columns


def test_a_broadcast_operand_is_read_whole_by_both_halves():
    (decision,) = plan(lambda a, b: a + b, (4, 8), (8,))
    assert decision.extent == 8 and decision.operand_dims == (1, 0, 1)
    (decision,) = plan(lambda a, b: a + b, (8, 4), (1, 4))
    assert decision.extent == 8 and decision.operand_dims == (0, None, 0)


def test_an_op_read_whole_is_computed_whole_on_both_cores():
    decisions = plan(lambda a, b: a + b * 2.0, (8, 4), (1, 4))
    kinds = [type(d) for d in decisions]
    assert kinds == [Replicated, Split]  # b * 2 is read whole by the split add


def test_an_odd_extent_gives_core_0_the_larger_half():
    (_, decision) = plan(lambda a, b: a @ b, (1, 8), (8, 5))
    assert (decision.loop, decision.extent, decision.first) == (1, 5, 3)
    assert decision.op.loop_name(decision.loop) == "n"  # never k, the reduction


def test_a_convolution_is_split_by_its_filters_not_its_window():
    decisions = plan(lambda x, w: conv2d(x, w), (1, 6, 6, 2), (3, 3, 2, 4))
    conv = decisions[-1]
    assert isinstance(conv, Split) and conv.op.loop_name(conv.loop) == "f"


def test_a_full_reduction_falls_back_to_core_0_and_says_why():
    decisions = plan(lambda a: a.sum(axis=0), (4, 1))
    assert all(isinstance(d, Fallback) for d in decisions)
    assert "no dimension of 2 or more" in decisions[0].reason


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("%v = memref.load %x[%c0] : memref<4xf32>", "side effects of its own"),
        ('"npu.set_flag"(%c0) {src = "V", dst = "MTE3"} : (index) -> ()',
         "synchronisation resources"),
        ('"test.unknown"() : () -> ()', "effects are unknown"),
    ],
)  # fmt: skip
def test_ops_that_cannot_be_split_safely_fall_back_with_their_reason(body, reason):
    module = parse(
        "func.func @f(%x: memref<4xf32>) {\n  %c0 = arith.constant 0 : index\n"
        f"  {body}\n  return\n}}"
    )
    op = module.body.first_op.entry_block.ops[1]
    decision = split_decision(op)
    assert isinstance(decision, Fallback) and reason in decision.reason
    assert str(decision).endswith(f"({decision.reason})")
