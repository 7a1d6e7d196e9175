"""The IR checks pass on equal IR and behaviour, and say what differs when it does not."""

import numpy as np
import pytest

from tinycomp.grading import GradingFailure
from tinycomp.grading.ir_checks import (
    expect_built_module,
    expect_ir,
    expect_same_behaviour,
    expect_verifies,
    random_value,
    run_for_one_result,
    run_function,
    same_bits,
    show_value,
    without_names,
)
from tinycomp.ir import ModuleOp, parse, parse_type

SCALE = """\
module {
  func.func @scale(%a: f32, %x: f32) -> f32 {
    %r = arith.mulf %a, %x : f32
    return %r : f32
  }
}"""

STORE = """\
module {
  func.func @store(%m: memref<4xf32>, %v: f32) {
    %c1 = arith.constant 1 : index
    memref.store %v, %m[%c1] : memref<4xf32>
    return
  }
}"""


def failure_of(check, *args, **kwargs) -> str:
    """The message `check(*args, **kwargs)` fails with."""
    with pytest.raises(GradingFailure) as caught:
        check(*args, **kwargs)
    return str(caught.value)


def test_random_values_have_the_type_asked_for():
    rng = np.random.default_rng(7)
    values = [random_value(parse_type(text), rng) for text in ["f32", "i8", "i1", "index"]]
    assert [type(v).__name__ for v in values] == ["float32", "int8", "bool", "int"]
    tensor = random_value(parse_type("tensor<3x5xf64>"), rng)
    assert tensor.shape == (3, 5) and tensor.dtype == np.float64


def test_random_floats_include_special_values():
    rng = np.random.default_rng(11)
    values = np.array([random_value(parse_type("f32"), rng) for _ in range(200)])
    assert np.isnan(values).any() and np.isinf(values).any()
    assert np.isfinite(values).sum() > 100


def test_same_bits_tells_zeros_apart_and_nans_together():
    rng = np.random.default_rng(3)
    array = rng.standard_normal(6).astype(np.float32)
    assert same_bits(array, array.copy())
    changed = array.copy()
    changed[4] = np.nextafter(changed[4], np.float32(np.inf))
    assert not same_bits(array, changed)
    assert same_bits(np.float64("nan"), np.float64("nan"))
    assert not same_bits(np.float64(-0.0), np.float64(0.0))
    assert not same_bits(np.int32(3), np.int64(3))


def test_show_value_shortens_arrays():
    assert show_value(np.float32(2.5)) == "2.5"
    assert show_value(np.zeros((2, 5), np.int8)) == "array(2, 5) [0, 0, 0, 0, 0, 0, ...]"


def test_run_function_returns_results_then_memrefs_and_keeps_the_inputs():
    rng = np.random.default_rng(5)
    memory = rng.standard_normal(4).astype(np.float32)
    value = np.float32(rng.standard_normal())
    results = run_function(parse(STORE), "store", [memory, value])
    expected = memory.copy()
    expected[1] = value
    assert len(results) == 1 and same_bits(results[0], expected)
    assert not same_bits(memory, expected)  # the caller's array is untouched


def test_run_for_one_result_matches_numpy():
    rng = np.random.default_rng(9)
    a, x = rng.standard_normal(2).astype(np.float32)
    assert same_bits(run_for_one_result(parse(SCALE), "scale", a, x), a * x)


def test_expect_same_behaviour_passes_on_the_same_function():
    expect_same_behaviour("nothing", SCALE, parse(SCALE), np.random.default_rng(1))


def test_expect_same_behaviour_names_the_result_that_changed():
    after = parse(SCALE.replace("arith.mulf", "arith.addf"))
    message = failure_of(
        expect_same_behaviour, "mul -> add", SCALE, after, np.random.default_rng(1)
    )
    assert message.startswith("mul -> add: @scale computes something else after the rewrite: ")
    assert "result #0 was" in message and "IR before:" in message and "IR after:" in message


def test_expect_same_behaviour_checks_what_is_stored():
    after = parse(STORE.replace("constant 1 : index", "constant 2 : index"))
    message = failure_of(expect_same_behaviour, "moved", STORE, after, np.random.default_rng(2))
    assert "memref argument #0 was array(4,) [" in message


def test_expect_verifies_passes_on_valid_ir_and_reports_a_verify_error():
    expect_verifies("fine", parse(SCALE), SCALE)
    module = parse(SCALE)
    function = module.body.first_op
    function.entry_block.last_op.erase()  # the function no longer returns
    message = failure_of(expect_verifies, "erased the return", module, SCALE)
    assert message.startswith("erased the return: the IR no longer verifies: ")
    assert "IR before:" in message and "IR after:" in message


def test_expect_ir_ignores_names_and_shows_a_diff():
    expect_ir("renamed", parse(SCALE.replace("%r", "%product")), SCALE)
    message = failure_of(expect_ir, "swapped", parse(SCALE.replace("mulf", "addf")), SCALE)
    assert message.startswith("swapped: the IR differs from the reference: text differs at line 3")
    assert "-    %r = arith.mulf %a, %x : f32" in message


def test_without_names_drops_every_name():
    text = without_names(parse(SCALE))
    assert "%a:" not in text and "%r " not in text
    assert "@scale(%arg0: f32, %arg1: f32)" in text and "%0 = arith.mulf %arg0, %arg1" in text


def test_expect_built_module_returns_the_module_or_names_the_difference():
    module = parse(SCALE.replace("%r", "%0"))
    assert expect_built_module("build_scale()", module, SCALE) is module
    message = failure_of(
        expect_built_module, "build_scale()", parse(SCALE.replace("mulf", "addf")), SCALE
    )
    first_line = message.splitlines()[0]
    assert first_line.startswith(
        "build_scale(): first difference from the reference (yours vs reference): "
    )
    assert "build_scale() (SSA names dropped): text differs at line 3" in message


def test_expect_built_module_wants_a_module():
    message = failure_of(expect_built_module, "build_scale()", 42, SCALE)
    assert message == (
        "build_scale(): expected a ModuleOp (build it with ModuleOp.build([func])), found int 42"
    )
    assert isinstance(parse(SCALE), ModuleOp)
