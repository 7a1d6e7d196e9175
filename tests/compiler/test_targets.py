"""The target table: one pipeline, target by target, and every kernel right on every target.

1. Every kernel of the catalogue, at odd shapes (sizes 1, 7, 13 among them) and at random
   shapes, in f32, f16 and bf16, compiled for every target in the table with its default
   options, equals the float64 numpy reference.
2. A strategy turned off is gone from the IR and the decisions; an unknown one is refused
   by name; the caller's module is never changed; the table refuses a second target of a
   name and ``compile`` refuses an unknown target.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp import CompileError, CompileOptions
from tinycomp.compiler import TARGETS, Target, register_target
from tinycomp.testing import DTYPES, KERNELS, check_against_reference

ODD = {
    "softmax": {"rows": 7, "cols": 13},
    "layernorm": {"rows": 13, "cols": 1},
    "rmsnorm": {"rows": 1, "cols": 37},
    "matmul": {"m": 13, "k": 7, "n": 19},
    "batch_matmul": {"batch": 3, "m": 7, "k": 1, "n": 13},
    "conv2d": {"n": 1, "h": 7, "w": 5, "c": 3, "f": 5, "kh": 3, "kw": 3},
    "conv2d_plain": {"n": 2, "h": 6, "w": 7, "c": 1, "f": 3, "kh": 2, "kw": 3},
    "attention": {"batch": 2, "l": 7, "s": 13, "d": 5, "dv": 3},
    "mlp2": {"m": 7, "k": 13, "hidden": 5, "n": 3},
}


def _check(target: str, name: str, dtype: str, shape: dict[str, int], seed: int) -> None:
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(seed), dtype, **shape)
    program = tinycomp.compile(kernel.trace(dtype, **shape), target=target)
    try:
        check_against_reference(kernel, program(*inputs), inputs, dtype)
    except AssertionError as error:
        raise AssertionError(f"{name} {shape} {dtype} on target {target!r}: {error}") from None


def test_odd_shapes_name_real_sizes():
    for name in KERNELS:
        assert set(ODD[name]) == set(KERNELS[name].default_shape), name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_kernel_on_every_target_equals_numpy(target, name, dtype):
    _check(target, name, dtype, ODD[name], seed=7)


@st.composite
def instances(draw):
    name = draw(st.sampled_from(sorted(KERNELS)))
    shape = {k: min(v, 24) for k, v in draw(KERNELS[name].shape_strategy()).items()}
    if KERNELS[name].shape_problem(shape) is not None:
        shape = ODD[name]
    return name, shape, draw(st.sampled_from(list(DTYPES)))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(0, 2**32 - 1))
def test_random_shapes_on_the_cpu_equal_numpy(instance, seed):
    name, shape, dtype = instance
    _check("cpu", name, dtype, shape, seed)


@pytest.fixture(scope="module")
def x():
    return np.random.default_rng(3).standard_normal((8, 40)).astype(np.float32)


def _vector_ops(program) -> int:
    return sum(1 for op in program.module.walk() if op.name.startswith("vector."))


def test_a_strategy_turned_off_leaves_no_trace(x):
    on = tinycomp.compile(lambda a: a * 2.0 + 1.0, x, target="cpu")
    off = tinycomp.compile(
        lambda a: a * 2.0 + 1.0,
        x,
        target="cpu",
        options=CompileOptions(strategies={"vector": False}),
    )
    assert _vector_ops(on) > 0
    assert _vector_ops(off) == 0
    assert "vectorize-loops" in [stage.name for stage in on.runs["loops"].stages]
    assert "vectorize-loops" not in [stage.name for stage in off.runs["loops"].stages]
    np.testing.assert_allclose(on(x), off(x), rtol=1e-6)


def test_the_interpreter_target_runs_the_target_independent_pipeline(x):
    program = tinycomp.compile(lambda a: a * 2.0, x)
    assert _vector_ops(program) == 0 and program.decisions == []


@pytest.mark.parametrize(
    "strategies, message",
    [
        ({"blas": False}, "target 'cpu' has no strategy 'blas' (did you mean 'blis'?)"),
        ({"vector": "off"}, "expected True (force) or False (off)"),
    ],
)
def test_unknown_or_malformed_strategies_are_refused(x, strategies, message):
    with pytest.raises(CompileError, match=re.escape(message)):
        tinycomp.compile(
            lambda a: a, x, target="cpu", options=CompileOptions(strategies=strategies)
        )


def test_the_interpreter_has_no_strategies_to_name(x):
    with pytest.raises(CompileError, match="its strategies: none"):
        tinycomp.compile(lambda a: a, x, options=CompileOptions(strategies={"blis": False}))


def test_compile_leaves_the_callers_module_alone(x):
    module = tinycomp.compile(lambda a: a * 2.0, x, stop_after="traced").module
    before = str(module)
    program = tinycomp.compile(module, target="cpu")
    assert str(module) == before
    assert program.module is not module


def test_the_table_refuses_a_second_target_of_one_name():
    with pytest.raises(CompileError, match="already registered"):
        register_target(Target("cpu", "a second CPU"))


def test_an_unknown_target_lists_the_known_ones(x):
    with pytest.raises(CompileError, match=r"unknown target 'gpu'; targets: interp \(.*\), cpu"):
        tinycomp.compile(lambda a: a, x, target="gpu")


def test_a_forced_strategy_that_a_kernel_cannot_take_is_an_error():
    a = np.ones((8, 16), np.float16)
    with pytest.raises(CompileError, match=r"forces the blis strategy, but .* f16"):
        tinycomp.compile(
            lambda a, b: a @ b, a, a.T.copy(), target="cpu",
            options=CompileOptions(strategies={"blis": True}),
        )  # fmt: skip
    unforced = tinycomp.compile(lambda a, b: a @ b, a, a.T.copy(), target="cpu")
    assert [d.strategy for d in unforced.decisions if not d.chosen] == ["loops"]


def test_a_forced_strategy_that_every_kernel_takes_compiles():
    a = np.random.default_rng(4).standard_normal((9, 7)).astype(np.float32)
    forced = CompileOptions(strategies={"blis": True})
    program = tinycomp.compile(lambda a, b: a @ b, a, a.T.copy(), target="cpu", options=forced)
    assert [d.strategy for d in program.decisions] == ["blis"]
    np.testing.assert_allclose(program(a, a.T.copy()), a @ a.T, rtol=1e-5, atol=1e-5)
