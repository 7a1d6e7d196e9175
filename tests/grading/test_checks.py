"""The feedback helpers say what was expected, what was found, and where."""

import numpy as np
import pytest

from tinycomp.grading.checks import (
    GradingFailure,
    describe_call,
    expect_array_close,
    expect_close,
    expect_equal,
    expect_instance,
    expect_text,
)


def failure_of(check, *args, **kwargs) -> str:
    """The message `check(*args, **kwargs)` fails with."""
    with pytest.raises(GradingFailure) as caught:
        check(*args, **kwargs)
    return str(caught.value)


def test_a_grading_failure_is_an_assertion_error():
    assert issubclass(GradingFailure, AssertionError)


def test_describe_call_writes_numbers_short():
    assert (
        describe_call("arithmetic_intensity", 2.0e9, 1.2e7) == "arithmetic_intensity(2.0e9, 1.2e7)"
    )
    assert describe_call(max, 3, key="x") == "max(3, key='x')"


def test_expect_close_names_the_call_the_unit_and_both_values():
    what = describe_call("arithmetic_intensity", 2.0e9, 1.2e7)
    message = failure_of(expect_close, what, 2.0e9 / 2.4e7, 2.0e9 / 1.2e7, unit="FLOP/byte")
    assert message == "arithmetic_intensity(2.0e9, 1.2e7): expected 166.67 FLOP/byte, found 83.333"


def test_expect_close_shows_enough_digits_to_see_the_difference():
    message = failure_of(expect_close, "f()", 1.0001, 1.0, rtol=1e-6)
    assert message == "f(): expected 1.0, found 1.0001"


def test_expect_close_accepts_values_within_tolerance():
    expect_close("f()", 1.0 + 1e-9, 1.0)
    expect_close("f()", np.float32(0.5), 0.5)
    expect_close("f()", 1e-12, 0.0, atol=1e-9)


@pytest.mark.parametrize(
    "found, shown", [(None, "None"), ("166", "str '166'"), (True, "True"), ([1.0], "list [1.0]")]
)
def test_expect_close_refuses_what_is_not_a_number(found, shown):
    message = failure_of(expect_close, "f()", found, 2.0, unit="s")
    assert message == f"f(): expected a number (2.0 s), found {shown}"


def test_expect_equal_compares_exactly_and_shows_reprs():
    assert failure_of(expect_equal, "g()", "compute", "memory") == (
        "g(): expected 'memory', found 'compute'"
    )
    assert failure_of(expect_equal, "g()", 47, 48) == "g(): expected 48, found 47"
    expect_equal("g()", 48.0, 48)  # an int and an equal float are equal


def test_expect_equal_names_a_wrong_type():
    message = failure_of(expect_equal, "g()", ["compute", 1.0], ("compute", 1.0))
    assert message == "g(): expected tuple ('compute', 1.0), found list ['compute', 1.0]"


def test_expect_instance():
    expect_instance("h()", (1, 2), tuple, "a pair")
    assert failure_of(expect_instance, "h()", 3.5, tuple, "a pair") == (
        "h(): expected a pair, found float 3.5"
    )


def test_expect_array_close_reports_the_first_mismatch_and_the_count():
    expected = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(4, 8)
    found = expected.copy()
    found[2, 3] += 0.25
    found[3, 1:7] -= 0.5
    message = failure_of(expect_array_close, "softmax(x)", found, expected)
    assert message == (
        "softmax(x): expected array of shape (4, 8) float32 to match numpy within rtol=1e-5; "
        f"first mismatch at [2, 3]: expected {expected[2, 3]:.5g}, found {found[2, 3]:.5g} "
        "(7 of 32 elements differ)"
    )


def test_expect_array_close_checks_kind_shape_and_dtype_first():
    expected = np.zeros((4, 8), np.float32)
    assert failure_of(expect_array_close, "f(x)", [0.0], expected) == (
        "f(x): expected a numpy array of shape (4, 8) float32, found list [0.0]"
    )
    assert failure_of(expect_array_close, "f(x)", np.zeros((8, 4), np.float32), expected) == (
        "f(x): expected array of shape (4, 8) float32, found shape (8, 4) float32"
    )
    assert failure_of(expect_array_close, "f(x)", np.zeros((4, 8)), expected) == (
        "f(x): expected array of shape (4, 8) float32, found dtype float64"
    )


def test_expect_array_close_treats_matching_nans_as_equal():
    values = np.array([1.0, np.nan])
    expect_array_close("f(x)", values.copy(), values)
    assert "found nan" in failure_of(
        expect_array_close, "f(x)", np.array([np.nan, np.nan]), np.array([np.nan, 2.0])
    )


IR = """\
func.func @f(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  return %0 : f32
}"""


def test_expect_text_shows_the_first_differing_line_and_a_diff():
    found = IR.replace("addf", "mulf")
    message = failure_of(expect_text, "canonicalize(f)", found, IR)
    lines = message.splitlines()
    assert lines[:3] == [
        "canonicalize(f): text differs at line 2",
        "  expected:   %0 = arith.addf %a, %b : f32",
        "  found:      %0 = arith.mulf %a, %b : f32",
    ]
    assert "-  %0 = arith.addf %a, %b : f32" in lines
    assert "+  %0 = arith.mulf %a, %b : f32" in lines


def test_expect_text_ignores_trailing_whitespace_and_reports_a_short_text():
    expect_text("p()", IR.replace("f32 {", "f32 {   ") + "\n\n", IR)
    message = failure_of(expect_text, "p()", "\n".join(IR.splitlines()[:2]), IR)
    assert "text differs at line 3" in message
    assert "  found:    <end of text>" in message
    assert failure_of(expect_text, "p()", None, IR) == "p(): expected text, found None"
