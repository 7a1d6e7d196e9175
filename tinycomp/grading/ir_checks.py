"""Checks on IR that graded tests share: compare modules, run them, compare bits.

A graded test for a compiler chapter asks two questions of the student's IR:

1. Is it the right IR? `expect_ir` and `expect_built_module` compare it with a
   reference text up to SSA names, and `expect_verifies` demands that it still
   verifies; on a difference the feedback shows the two texts as a diff.
2. Does it compute the same thing? `expect_same_behaviour` runs every public
   function before and after a transformation on random inputs (`random_value`:
   NaN, infinities and -0.0 included) with the reference interpreter, and demands
   the same bits (`same_bits`).

The reference answer always comes from the library or from golden text in the test,
never from the student's code. Every helper raises `GradingFailure` with a message
that names what was checked, what was expected and what was found.
"""

from __future__ import annotations

import numpy as np

from tinycomp.grading.checks import GradingFailure, expect_instance, expect_text
from tinycomp.interp import interpret
from tinycomp.ir import (
    FloatType,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    Operation,
    ShapedType,
    Type,
    VerifyError,
    first_difference,
    ir_equal,
    parse,
    print_ir,
    to_numpy_dtype,
    verify,
)

__all__ = [
    "SPECIAL_FLOATS",
    "expect_built_module",
    "expect_ir",
    "expect_same_behaviour",
    "expect_verifies",
    "random_value",
    "run_for_one_result",
    "run_function",
    "same_bits",
    "show_value",
    "without_names",
]

TWICE = """\
func.func @twice(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}"""
"""A one-op function the examples below use."""


# -- running IR on random inputs -----------------------------------------------------------
SPECIAL_FLOATS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0]
"""Floats that break naive algebra; the random inputs mix them in."""


def random_value(value_type: Type, rng: np.random.Generator) -> object:
    """A random argument of ``value_type``: a numpy scalar, or an array for shaped types.
    Floats are mostly normal, sometimes special; an ``index`` is in 0..3.

    >>> from tinycomp.ir import f32, index, parse_type
    >>> rng = np.random.default_rng(0)
    >>> type(random_value(f32, rng)).__name__, random_value(index, rng) in range(4)
    ('float32', True)
    >>> random_value(parse_type("tensor<2x3xi8>"), rng).shape
    (2, 3)
    """
    if isinstance(value_type, ShapedType):
        count = int(np.prod(value_type.shape))
        elements = [random_value(value_type.element_type, rng) for _ in range(count)]
        dtype = to_numpy_dtype(value_type.element_type)
        return np.array(elements, dtype=dtype).reshape(value_type.shape)
    if isinstance(value_type, IndexType):
        return int(rng.integers(0, 4))
    dtype = to_numpy_dtype(value_type)
    if isinstance(value_type, IntegerType):
        if value_type.width == 1:
            return np.bool_(rng.integers(0, 2))
        info = np.iinfo(dtype)
        return dtype.type(rng.integers(info.min, info.max, endpoint=True))
    assert isinstance(value_type, FloatType), value_type
    if rng.random() < 0.3:
        return dtype.type(SPECIAL_FLOATS[rng.integers(len(SPECIAL_FLOATS))])
    return dtype.type(rng.normal(0.0, 10.0))


def same_bits(a: object, b: object) -> bool:
    """Equal values, NaN equal to NaN, and -0.0 different from 0.0.

    >>> nan, minus_zero, zero = np.float32("nan"), np.float32(-0.0), np.float32(0.0)
    >>> same_bits(nan, nan), same_bits(minus_zero, zero)
    (True, False)
    >>> same_bits(np.float32(1.0), np.float64(1.0))  # the dtype counts too
    False
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "biu":  # bool, signed and unsigned integers
        return bool(np.array_equal(a, b))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return bool(
        np.array_equal(a64, b64, equal_nan=True)
        and np.array_equal(np.signbit(a64), np.signbit(b64))
    )


def show_value(value: object) -> str:
    """A value for feedback: a number, or the first elements of an array.

    >>> show_value(np.float32(-0.0)), show_value(np.bool_(True))
    ('-0.0', 'True')
    >>> show_value(np.arange(8, dtype=np.int32))
    'array(8,) [0, 1, 2, 3, 4, 5, ...]'
    """
    array = np.asarray(value)
    if array.ndim == 0:
        return repr(array.item()) if array.dtype.kind != "b" else str(bool(array))
    flat = ", ".join(repr(v) for v in array.reshape(-1)[:6].tolist())
    more = ", ..." if array.size > 6 else ""
    return f"array{array.shape} [{flat}{more}]"


def run_function(module: ModuleOp, entry: str, arguments: list) -> list:
    """Run ``@entry``; its results, then the memref arguments as the run left them.
    The arguments themselves are not touched: the run gets copies of the arrays.

    >>> twice = parse(TWICE)
    >>> run_function(twice, "twice", [np.float32(1.5)])
    [np.float32(3.0)]
    """
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in arguments]
    results = interpret(module, *copies, entry=entry)
    if results is None:
        results = ()
    elif not isinstance(results, tuple):
        results = (results,)
    memrefs = [c for c in copies if isinstance(c, np.ndarray)]
    return [*results, *memrefs]


def run_for_one_result(module: ModuleOp, entry: str, *args: object) -> object:
    """Run ``@entry`` on ``args`` with the reference interpreter; its only result.

    >>> run_for_one_result(parse(TWICE), "twice", np.float32(-2.0))
    np.float32(-4.0)
    """
    results = interpret(module, *args, entry=entry)
    if isinstance(results, (list, tuple)):
        if len(results) != 1:
            raise GradingFailure(f"@{entry} returned {len(results)} values, expected 1")
        return results[0]
    return results


def expect_same_behaviour(
    what: str, before_text: str, after: ModuleOp, rng: np.random.Generator, trials: int = 4
) -> None:
    """Run every public function before and after on random inputs; demand equal bits.
    (The memref arguments count as outputs: what a function stores must not change.)

    >>> halve = parse(TWICE.replace("arith.addf %x, %x", "arith.mulf %x, %x"))
    >>> try:
    ...     expect_same_behaviour("x + x -> x * x", TWICE, halve, np.random.default_rng(1))
    ... except GradingFailure as failure:
    ...     print(str(failure).splitlines()[0])
    x + x -> x * x: @twice computes something else after the rewrite: on the inputs (...
    """
    before = parse(before_text)
    for function in before.body:
        if function.name != "func.func" or function.attributes.get("sym_visibility"):
            continue
        entry = function.attributes["sym_name"].value
        types = [argument.type for argument in function.arguments]
        result_count = len(function.function_type.results)
        for _ in range(trials):
            arguments = [random_value(t, rng) for t in types]
            expected = run_function(before, entry, arguments)
            found = run_function(after, entry, arguments)
            for index, (old, new) in enumerate(zip(expected, found, strict=True)):
                if same_bits(old, new):
                    continue
                if index < result_count:
                    which = f"result #{index}"
                else:
                    which = f"memref argument #{_memref_position(types, index - result_count)}"
                inputs = ", ".join(show_value(a) for a in arguments)
                raise GradingFailure(
                    f"{what}: @{entry} computes something else after the rewrite: on the "
                    f"inputs ({inputs}) {which} was {show_value(old)} before and is "
                    f"{show_value(new)} after\n"
                    f"IR before:\n{print_ir(before)}\nIR after:\n{print_ir(after)}"
                )


def _memref_position(types: list[Type], memref_number: int) -> int:
    """The argument number of the ``memref_number``-th memref argument."""
    positions = [i for i, t in enumerate(types) if isinstance(t, MemRefType)]
    return positions[memref_number]


# -- checking IR --------------------------------------------------------------------------
def expect_verifies(what: str, module: ModuleOp, before_text: str) -> None:
    """The transformed IR must still verify; ``before_text`` is shown next to it if not.

    >>> expect_verifies("a rewrite", parse(TWICE), TWICE)  # verifies: nothing to say
    """
    try:
        verify(module)
    except VerifyError as error:
        raise GradingFailure(
            f"{what}: the IR no longer verifies: {error}\n"
            f"IR before:\n{print_ir(parse(before_text))}\nIR after:\n{print_ir(module)}"
        ) from None


def expect_ir(what: str, found: ModuleOp, expected_text: str) -> None:
    """``found`` equals the reference up to SSA names; on a difference, show a diff.

    >>> expect_ir("renamed", parse(TWICE.replace("%y", "%sum")), TWICE)  # names do not count
    >>> try:
    ...     expect_ir("a rewrite", parse(TWICE.replace("addf", "mulf")), TWICE)
    ... except GradingFailure as failure:
    ...     print(*str(failure).splitlines()[:3], sep="\\n")
    a rewrite: the IR differs from the reference: text differs at line 3
      expected:     %y = arith.addf %x, %x : f32
      found:        %y = arith.mulf %x, %x : f32
    """
    expected = parse(expected_text)
    if ir_equal(found, expected):
        return
    found_text, reference_text = print_ir(found), print_ir(expected)
    expect_text(f"{what}: the IR differs from the reference", found_text, reference_text)
    raise GradingFailure(  # same text, different structure: show the generic form
        f"{what}: the IR differs from the reference in something the text does not show\n"
        f"{print_ir(found, generic=True)}"
    )


def without_names(op: Operation) -> str:
    """The text of ``op`` with every name hint dropped: ``%0``, ``%arg0``... on both sides
    of a diff, so that it shows only what differs in structure.

    >>> print(without_names(parse(TWICE)))
    module {
      func.func @twice(%arg0: f32) -> f32 {
        %0 = arith.addf %arg0, %arg0 : f32
        return %0 : f32
      }
    }
    """
    try:
        copy = op.clone()
    except Exception:  # IR too broken to copy: show it as it is
        return print_ir(op)
    for nested in copy.walk():
        for result in nested.results:
            result.name_hint = None
        for region in nested.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    argument.name_hint = None
    return print_ir(copy)


def expect_built_module(what: str, found: object, reference_text: str) -> ModuleOp:
    """Check that ``found`` is a module that verifies and equals the reference up to names.
    The module, once it passes (so that a test can go on to run it).

    On a difference the message names the first op that differs (`first_difference`),
    then shows both texts, SSA names dropped, as a diff.

    >>> try:
    ...     expect_built_module("build_twice()", parse(TWICE.replace("addf", "mulf")), TWICE)
    ... except GradingFailure as failure:
    ...     print(str(failure).splitlines()[0])
    build_twice(): first difference from the reference (yours vs reference): op names differ: ...
    """
    expect_instance(what, found, ModuleOp, "a ModuleOp (build it with ModuleOp.build([func]))")
    try:
        verify(found)
    except VerifyError as error:
        raise GradingFailure(
            f"{what}: expected IR that verifies, found a VerifyError:\n{error}\n"
            f"in the IR you built:\n{print_ir(found)}"
        ) from None
    reference = parse(reference_text)
    difference = first_difference(found, reference)
    if difference is None:
        return found
    message = f"{what}: first difference from the reference (yours vs reference): {difference}"
    try:
        expect_text(f"{what} (SSA names dropped)", without_names(found), without_names(reference))
    except GradingFailure as text_difference:
        message += f"\n{text_difference}"
    else:  # same text, so the difference is in something the text does not show
        message += f"\n{print_ir(found, generic=True)}"
    raise GradingFailure(message)
