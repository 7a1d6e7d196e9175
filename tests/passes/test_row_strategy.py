"""``cpu-row-strategy`` with ``vectorize-loops`` and the polynomial math: the CPU passes.

Every catalogue kernel, at odd shapes (1, 7, 13, 1000) in f32, f16 and bf16, through
``tinycomp.compile`` with the passes in the stages the CPU pipeline runs them, equals
its float64 reference on the CPU and in the interpreter; and the strategy really ran:
the row kernels got ``rows`` decisions, their temporaries are a tile of rows, their
loops are vector loops, and no ``math.exp`` is left for LLVM to scalarize.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp import CompileOptions
from tinycomp.passes import MathApproximationPass, PassError, RowStrategyPass, VectorizeLoopsPass
from tinycomp.testing import KERNELS, check_against_reference

ROW_KERNELS = ("softmax", "layernorm", "rmsnorm")
ODD_SHAPES = {
    "softmax": [{"rows": 1, "cols": 1}, {"rows": 13, "cols": 7}, {"rows": 7, "cols": 1000}],
    "layernorm": [{"rows": 1, "cols": 13}, {"rows": 13, "cols": 7}, {"rows": 7, "cols": 1000}],
    "rmsnorm": [{"rows": 1, "cols": 1}, {"rows": 13, "cols": 13}, {"rows": 1, "cols": 1000}],
    "matmul": [{"m": 1, "k": 7, "n": 13}, {"m": 13, "k": 1, "n": 7}, {"m": 7, "k": 1000, "n": 13}],
    "batch_matmul": [{"batch": 1, "m": 7, "k": 13, "n": 1}],
    "conv2d": [
        {"n": 1, "h": 7, "w": 13, "c": 1, "f": 7, "kh": 3, "kw": 1},
        {"n": 1, "h": 1, "w": 1000, "c": 1, "f": 7, "kh": 1, "kw": 3},
    ],
    "conv2d_plain": [{"n": 1, "h": 7, "w": 7, "c": 1, "f": 13, "kh": 1, "kw": 3}],
    "attention": [
        {"batch": 1, "l": 7, "s": 13, "d": 1, "dv": 7},
        {"batch": 1, "l": 13, "s": 1000, "d": 7, "dv": 1},
    ],
    "mlp2": [{"m": 1, "k": 13, "hidden": 7, "n": 13}, {"m": 7, "k": 1000, "hidden": 13, "n": 1}],
}
CASES = [(name, shape) for name, shapes in ODD_SHAPES.items() for shape in shapes]


CPU_STRATEGIES_OFF = {"rows": False, "vector": False, "math": False}
"""The CPU target's own instances of these passes, turned off: the tests run their own."""


def cpu_passes(
    target: str = "interp",
) -> tuple[RowStrategyPass, VectorizeLoopsPass, CompileOptions]:
    rows, vectorize = RowStrategyPass(tile_bytes=1024), VectorizeLoopsPass(8, min_width=4)
    extra = {"tiled": [rows], "loops": [vectorize, MathApproximationPass()]}
    off = CPU_STRATEGIES_OFF if target == "cpu" else {}
    return rows, vectorize, CompileOptions(extra_passes=extra, strategies=off)


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize(("name", "shape"), CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_catalogue_equals_numpy(name, shape, dtype):
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(7), dtype, **shape)
    targets = ["cpu"] if max(shape.values()) > 100 else ["cpu", "interp"]
    for target in targets:
        rows, _, options = cpu_passes(target)
        program = tinycomp.compile(kernel.trace(dtype, **shape), target=target, options=options)
        if dtype != "f32" and shape.get("k", 0) > 36:
            # 1000 products summed in f16/bf16 exceed the catalogue's tolerances (made for
            # reductions of at most 36, see tinycomp/testing/tolerances.py) with or without
            # these passes, which leave the contraction's loop alone: same bits as plain.
            off = CompileOptions(strategies=CPU_STRATEGIES_OFF if target == "cpu" else {})
            plain = tinycomp.compile(kernel.trace(dtype, **shape), target=target, options=off)
            np.testing.assert_array_equal(program(*inputs), plain(*inputs))
        else:
            check_against_reference(kernel, program(*inputs), inputs, dtype)
        strategies = {decision.strategy for decision in rows.decisions}
        assert ("rows" in strategies) == (name in ROW_KERNELS), rows.decisions
        if program.result_shapes[0][0][-1] >= 4:  # a vector of 4 lanes fits the last dim
            assert "vector." in program.stages["loops"], f"{name}: no vector op in the loops"


@settings(max_examples=6, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("name", [*ROW_KERNELS, "matmul", "mlp2"])
def test_random_shapes_equal_numpy_on_the_cpu(name, data):
    kernel = KERNELS[name]
    shape = data.draw(kernel.shape_strategy())
    dtype = data.draw(st.sampled_from(["f32", "f16", "bf16"]))
    inputs = kernel.make_inputs(np.random.default_rng(1), dtype, **shape)
    _, _, options = cpu_passes("cpu")
    program = tinycomp.compile(kernel.trace(dtype, **shape), target="cpu", options=options)
    check_against_reference(kernel, program(*inputs), inputs, dtype)


@pytest.mark.parametrize("name", ROW_KERNELS)
def test_row_kernels_are_one_tiled_vector_loop_nest(name):
    kernel = KERNELS[name]
    rows, vectorize, options = cpu_passes()
    program = tinycomp.compile(kernel.trace("f32", rows=64, cols=96), options=options)
    (decision,) = rows.decisions
    assert decision.strategy == "rows" and decision.kernel.startswith("%")
    assert "2 rows of 96 f32 per tile" in decision.reason  # 1024 bytes / 384 per row
    allocations = [op for op in program.module.walk() if op.name == "memref.alloc"]
    sizes = [int(np.prod(op.results[0].type.shape)) for op in allocations]
    assert sizes and max(sizes) <= 2 * 96, f"a temporary larger than one tile: {sizes}"
    loop_nests = [op for op in program.module.walk() if op.name == "scf.for"]
    outermost = [loop for loop in loop_nests if loop.parent_op().name == "func.func"]
    assert len(outermost) == 1, "every kernel of the row is inside the one row-tile loop"
    assert vectorize.report.decisions and all(
        d.vectorized for d in vectorize.report.decisions if (d.trip_count or 0) >= 8
    )
    names = {op.name for op in program.module.walk()}
    assert "vector.load" in names and "vector.reduction" in names
    assert "math.exp" not in names, "exp left for LLVM to call expf lane by lane"


def test_contractions_are_left_to_their_strategy():
    """Attention after fusion is two contractions (the softmax's divide is fused into the
    second): they are the contraction strategy's to report, so the rows record nothing;
    a softmax whose producer is a contraction is left to vectorize-loops, with that reason."""
    rows, _, options = cpu_passes()
    tinycomp.compile(KERNELS["attention"].trace("f32"), options=options, stop_after="tiled")
    assert rows.decisions == []
    rows, _, options = cpu_passes()
    a = np.ones((6, 5), np.float32)
    tinycomp.compile(lambda a, b: tinycomp.frontend.softmax(a @ b), a, a.T.copy(),
                     options=options, stop_after="tiled")  # fmt: skip
    (decision,) = rows.decisions  # the divide, elementwise: its rows would pull in the matmul
    assert decision.strategy == "vector" and decision.chosen
    assert "its producer" in decision.reason and "contraction" in decision.reason


def test_elementwise_kernels_get_the_vector_strategy():
    rows, vectorize, options = cpu_passes()
    x = np.ones((5, 19), np.float32)
    tinycomp.compile(lambda a: tinycomp.frontend.exp(a) * 2.0, x, options=options)
    (decision,) = rows.decisions
    assert decision.strategy == "vector" and decision.chosen
    assert all(d.vectorized for d in vectorize.report.decisions)


def test_tile_bytes_is_checked():
    with pytest.raises(PassError, match="tile_bytes >= 1"):
        RowStrategyPass(tile_bytes=0)


def test_native_softmax_calls_no_expf():
    """With the passes, the compiled softmax has no library call left in its code."""
    _, _, options = cpu_passes()
    x = np.random.default_rng(3).standard_normal((9, 203)).astype(np.float32)
    program = tinycomp.compile(KERNELS["softmax"].fn, x, target="cpu", options=options)
    assembly = program.native.assembly("main")
    assert "expf" not in assembly and "ymm" in assembly
    assert "@llvm.exp." not in program.native.optimized_ir
    check_against_reference(KERNELS["softmax"], program(x), (x,), "f32")


@pytest.mark.parametrize("name", ROW_KERNELS)
def test_temporaries_shrink_to_a_tile_of_rows(name):
    """The bufferized peak: whole-matrix temporaries without the strategy, a tile with it.
    Every full-size buffer is then an input or the output, touched inside the one row
    loop: the matrix crosses memory once each way, not once per kernel."""
    peaks = []
    for extra in ({}, {"tiled": [RowStrategyPass(tile_bytes=1024)]}):
        options = CompileOptions(extra_passes=extra)
        trace = KERNELS[name].trace("f32", rows=64, cols=96)
        program = tinycomp.compile(trace, options=options, stop_after="bufferized")
        peaks.append(program.reports["buffer-deallocation"].peak_bytes["buffer-deallocation"])
    untiled, tiled = peaks
    row_bytes = 96 * 4
    assert tiled <= 2 * (2 * row_bytes + 2 * 4), f"{name}: {tiled} bytes held at the peak"
    assert untiled >= 64 * 4 and tiled * 8 <= untiled, (untiled, tiled)


@pytest.mark.parametrize("target", ["cpu", "interp"])
def test_batched_rows_are_tiled_along_the_last_row_loop(target):
    x = np.random.default_rng(5).standard_normal((3, 5, 37)).astype(np.float32)
    rows, _, options = cpu_passes(target)
    program = tinycomp.compile(KERNELS["softmax"].fn, x, target=target, options=options)
    (decision,) = rows.decisions
    assert decision.strategy == "rows" and "5 rows of 37 f32" in decision.reason
    check_against_reference(KERNELS["softmax"], program(x), (x,), "f32")


def test_two_row_kernels_sharing_producers():
    """Each root gets its own row loop (the shared producers are computed in both) and
    its tile is sized by the widest row among its producers, not its own 1-wide output."""

    def two_outputs(x):
        e = tinycomp.frontend.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True), e.sum(axis=-1, keepdims=True) * 2.0

    x = np.random.default_rng(0).standard_normal((13, 37)).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    for target in ("cpu", "interp"):
        rows, _, options = cpu_passes(target)
        probabilities, sums = tinycomp.compile(two_outputs, x, target=target, options=options)(x)
        np.testing.assert_allclose(probabilities, e / e.sum(-1, keepdims=True), rtol=1e-5)
        np.testing.assert_allclose(sums, 2 * e.sum(-1, keepdims=True), rtol=1e-5)
        assert [d.reason.split(",")[0] for d in rows.decisions] == ["6 rows of 37 f32 per tile"] * 2


def test_kernels_already_tiled_are_left_alone():
    """Run twice: the second run finds only ops inside the first run's row loops."""
    rows, _, options = cpu_passes()
    again = RowStrategyPass(tile_bytes=1024)
    options = CompileOptions(extra_passes={"tiled": [rows, again]})
    kernel = KERNELS["softmax"]
    inputs = kernel.make_inputs(np.random.default_rng(2), "f32", rows=9, cols=40)
    program = tinycomp.compile(kernel.trace("f32", rows=9, cols=40), options=options)
    assert [d.strategy for d in rows.decisions] == ["rows"] and again.decisions == []
    check_against_reference(kernel, program(*inputs), inputs, "f32")
