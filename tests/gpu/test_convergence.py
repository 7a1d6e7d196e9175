"""The convergent miscompile: LLVM hoists an ordinary warp sum out of a divergent branch
and keeps a convergent one (or the NVVM intrinsics) in place; on the simulator the
hoisted kernel gives every lane the whole warp's sum."""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
import pytest

from tinycomp.gpu.convergence import (
    WARP_SUM_BY_INTRINSICS,
    count_warp_sum_calls,
    half_sums_kernel,
    llvm_hoist_outputs,
    simulate_half_sums,
)


@pytest.fixture(scope="module")
def outputs():
    return llvm_hoist_outputs()


def _blocks(function_ir: str) -> dict[str, str]:
    """Basic block label -> its text, for the IR of one function."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in function_ir.splitlines():
        if line and not line.startswith(" ") and line.split(":")[0].isidentifier():
            current = line.split(":")[0]
            blocks[current] = []
        elif current is not None:
            blocks[current].append(line)
    return {label: "\n".join(lines) for label, lines in blocks.items()}


def test_llvm_hoists_an_ordinary_warp_sum_above_the_divergent_branch(outputs):
    blocks = _blocks(outputs.plain)
    assert list(blocks) == ["entry"], "the branch should be gone"
    assert count_warp_sum_calls(outputs.plain) == 1
    entry = blocks["entry"]
    assert entry.index("@warp_sum(") > entry.index("icmp")
    assert "select i1 %low" in entry  # the two stores became one


def test_llvm_keeps_a_convergent_warp_sum_in_each_branch(outputs):
    blocks = _blocks(outputs.convergent)
    assert "br i1 %low, label %low_half, label %high_half" in blocks["entry"]
    assert "@warp_sum(" not in blocks["entry"]
    assert count_warp_sum_calls(blocks["low_half"]) == 1
    assert count_warp_sum_calls(blocks["high_half"]) == 1


def test_llvm_keeps_the_nvvm_intrinsics_in_each_branch(outputs):
    blocks = _blocks(outputs.intrinsics)
    for label in ("low_half", "high_half"):
        assert "call i32 @llvm.nvvm.activemask()" in blocks[label]
        assert "call i32 @llvm.nvvm.redux.sync.add(" in blocks[label]
    assert "@llvm.nvvm." not in blocks["entry"].replace("@llvm.nvvm.read.ptx.sreg.tid.x", "")


def test_llvm_marks_the_intrinsics_convergent_by_itself():
    module = str(llvm.parse_assembly(half_sums_kernel(WARP_SUM_BY_INTRINSICS)))
    redux = next(line for line in module.splitlines() if "declare" in line and "redux" in line)
    group = redux.split("#")[-1]
    assert "convergent" in next(
        line for line in module.splitlines() if line.startswith(f"attributes #{group} ")
    )
    assert "convergent" not in half_sums_kernel("")


def test_the_simulator_shows_what_the_hoist_does_to_the_threads():
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, 32).astype(np.int32)
    initial = rng.integers(-1000, 1000, 32).astype(np.int32)
    assert x[16:].sum() != 0 and x[:16].sum() != 0  # the two answers must differ
    runs = simulate_half_sums(x, initial)

    np.testing.assert_array_equal(runs.original.low, runs.reference.low)
    np.testing.assert_array_equal(runs.original.high, runs.reference.high)
    np.testing.assert_array_equal(runs.reference.low[:16], np.full(16, x[:16].sum()))

    whole_warp = np.full(16, x.sum(), np.int32)
    np.testing.assert_array_equal(runs.hoisted.low[:16], whole_warp)
    np.testing.assert_array_equal(runs.hoisted.high[16:], whole_warp)
    np.testing.assert_array_equal(runs.hoisted.low[16:], initial[16:])  # untouched, as before
    assert not np.array_equal(runs.hoisted.low, runs.original.low)
    assert not np.array_equal(runs.hoisted.high, runs.original.high)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="expected x to be 32 int32 values"):
        simulate_half_sums(np.ones(16, np.int32))
    with pytest.raises(ValueError, match="expected the warp sum's attributes"):
        half_sums_kernel("nounwind")
