"""linalg-generalize-named-ops: every named linalg op becomes an equivalent linalg.generic.

Each case builds a module around one named op, on tensors and on memrefs, with random
shapes (fixed seeds). After the pass no named op remains, the IR verifies, running it
gives the same numbers as before on random inputs, and real ``mlir-opt`` produces the
same IR (where it is installed).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.ir import Operation, ir_equal, parse, verify
from tinycomp.ir.equality import first_difference
from tinycomp.passes import PassManager
from tinycomp.passes.generalize import NAMED_STRUCTURED_OPS, GeneralizePass

from . import helpers

SEEDS = [0, 1, 2]


def shaped(kind: str, shape: tuple[int, ...], element: str = "f32") -> str:
    """``tensor<2x3xf32>`` or ``memref<2x3xf32>``."""
    return f"{kind}<{'x'.join(str(d) for d in shape)}x{element}>"


def named_op_function(
    kind: str,
    inputs: list[tuple[int, ...] | None],
    output: tuple[int, ...],
    op_text: Callable[[list[str], str, str], str],
) -> str:
    """``func.func @main`` taking the inputs (``None`` is an f32 scalar) and the output,
    running the op given by ``op_text(input_types, output_type, result_suffix)``, and
    returning its result on tensors (on memrefs the output argument is written)."""
    types = ["f32" if shape is None else shaped(kind, shape) for shape in inputs]
    out_type = shaped(kind, output)
    params = [f"%in{i}: {t}" for i, t in enumerate(types)] + [f"%out: {out_type}"]
    if kind == "tensor":
        body = f"  %r = {op_text(types, out_type, f' -> {out_type}')}\n"
        body += f"  return %r : {out_type}"
        signature = f"({', '.join(params)}) -> {out_type}"
    else:
        body = f"  {op_text(types, out_type, '')}\n  return"
        signature = f"({', '.join(params)})"
    return f"func.func @main{signature} {{\n{body}\n}}\n"


def ins_outs(types: list[str], out_type: str) -> str:
    names = ", ".join(f"%in{i}" for i in range(len(types)))
    return f"ins({names} : {', '.join(types)}) outs(%out : {out_type})"


def fill_case(kind: str, rng: np.random.Generator) -> str:
    shape = tuple(int(d) for d in rng.integers(1, 5, size=2))
    return named_op_function(
        kind, [None], shape, lambda t, o, r: f"linalg.fill {ins_outs(t, o)}{r}"
    )


def matmul_case(kind: str, rng: np.random.Generator) -> str:
    m, n, k = (int(d) for d in rng.integers(1, 5, size=3))
    return named_op_function(
        kind, [(m, k), (k, n)], (m, n), lambda t, o, r: f"linalg.matmul {ins_outs(t, o)}{r}"
    )


def batch_matmul_case(kind: str, rng: np.random.Generator) -> str:
    b, m, n, k = (int(d) for d in rng.integers(1, 4, size=4))
    return named_op_function(
        kind,
        [(b, m, k), (b, k, n)],
        (b, m, n),
        lambda t, o, r: f"linalg.batch_matmul {ins_outs(t, o)}{r}",
    )


def conv_case(kind: str, rng: np.random.Generator) -> str:
    n, c, f = (int(d) for d in rng.integers(1, 3, size=3))
    kh, kw = (int(d) for d in rng.integers(1, 3, size=2))
    h, w = kh + int(rng.integers(0, 3)), kw + int(rng.integers(0, 3))
    return named_op_function(
        kind,
        [(n, h, w, c), (kh, kw, c, f)],
        (n, h - kh + 1, w - kw + 1, f),
        lambda t, o, r: (
            "linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
            f"strides = dense<1> : tensor<2xi64>}} {ins_outs(t, o)}{r}"
        ),
    )


def transpose_case(kind: str, rng: np.random.Generator) -> str:
    shape = tuple(int(d) for d in rng.integers(1, 5, size=3))
    # Not the identity: MLIR's greedy driver folds an identity transpose on tensors away
    # before generalizing it, so mlir-opt would return the input instead of a generic.
    permutation = [int(p) for p in rng.permutation(3)]
    while permutation == [0, 1, 2]:
        permutation = [int(p) for p in rng.permutation(3)]
    output = tuple(shape[p] for p in permutation)
    return named_op_function(
        kind,
        [shape],
        output,
        lambda t, o, r: f"linalg.transpose {ins_outs(t, o)} permutation = {permutation}",
    )


def broadcast_case(kind: str, rng: np.random.Generator) -> str:
    shape = tuple(int(d) for d in rng.integers(1, 5, size=2))
    added = int(rng.integers(0, 3))
    output = list(shape)
    output.insert(added, int(rng.integers(1, 4)))
    return named_op_function(
        kind,
        [shape],
        tuple(output),
        lambda t, o, r: f"linalg.broadcast {ins_outs(t, o)} dimensions = [{added}]",
    )


def map_case(kind: str, rng: np.random.Generator) -> str:
    shape = tuple(int(d) for d in rng.integers(1, 5, size=2))
    return named_op_function(
        kind,
        [shape, shape],
        shape,
        lambda t, o, r: (
            f"linalg.map {ins_outs(t, o)}\n"
            "    (%a: f32, %b: f32, %o: f32) {\n"
            "      %p = arith.mulf %a, %b : f32\n"
            "      %s = arith.addf %p, %a : f32\n"
            "      linalg.yield %s : f32\n"
            "    }"
        ),
    )


def reduce_case(kind: str, rng: np.random.Generator) -> str:
    shape = tuple(int(d) for d in rng.integers(1, 5, size=3))
    dimension = int(rng.integers(0, 3))
    output = tuple(d for i, d in enumerate(shape) if i != dimension)
    return named_op_function(
        kind,
        [shape],
        output,
        lambda t, o, r: (
            f"linalg.reduce {ins_outs(t, o)} dimensions = [{dimension}]\n"
            "    (%a: f32, %acc: f32) {\n"
            "      %s = arith.addf %a, %acc : f32\n"
            "      linalg.yield %s : f32\n"
            "    }"
        ),
    )


CASES = {
    "linalg.fill": fill_case,
    "linalg.matmul": matmul_case,
    "linalg.batch_matmul": batch_matmul_case,
    "linalg.conv_2d_nhwc_hwcf": conv_case,
    "linalg.transpose": transpose_case,
    "linalg.broadcast": broadcast_case,
    "linalg.map": map_case,
    "linalg.reduce": reduce_case,
}

PARAMS = [
    pytest.param(name, kind, seed, id=f"{name.removeprefix('linalg.')}-{kind}-{seed}")
    for name in CASES
    for kind in ("tensor", "memref")
    for seed in SEEDS
]


def build_case(name: str, kind: str, seed: int) -> str:
    return CASES[name](kind, np.random.default_rng(seed))


def op_names(module: Operation) -> list[str]:
    return [op.name for op in module.walk()]


def random_arguments(module: Operation, seed: int) -> list:
    rng = np.random.default_rng(1000 + seed)
    function = module.body.first_op
    return [helpers.random_argument(a.type, rng) for a in function.entry_block.arguments]


def assert_same_numbers(before: tuple, after: tuple) -> None:
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        if a is None:  # a function without results (the memref cases)
            assert b is None
            continue
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-6, atol=0)


def test_every_named_op_has_a_case():
    assert set(CASES) == NAMED_STRUCTURED_OPS


@pytest.mark.parametrize(("name", "kind", "seed"), PARAMS)
def test_generalize_removes_the_named_op_and_keeps_the_results(name: str, kind: str, seed: int):
    interpret = helpers.interpret_or_skip()
    text = build_case(name, kind, seed)
    original = parse(text)
    module = parse(text)
    assert name in op_names(module)
    generalize = GeneralizePass()
    generalize.run(module)
    verify(module)
    names = op_names(module)
    assert not NAMED_STRUCTURED_OPS & set(names), f"named op left in:\n{module}"
    assert names.count("linalg.generic") == 1
    assert dict(generalize.statistics) == {"GeneralizeNamedOp": 1}
    arguments = random_arguments(original, seed)
    before = helpers.outcome(interpret, original, "main", arguments)
    after = helpers.outcome(interpret, module, "main", arguments)
    assert not any(isinstance(x, str) for x in before), "the named op failed to run"
    assert_same_numbers(before, after)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(("name", "kind", "seed"), PARAMS)
def test_generalize_agrees_with_mlir_opt(name: str, kind: str, seed: int):
    text = build_case(name, kind, seed)
    module = parse(text)
    GeneralizePass().run(module)
    expected = parse(run_mlir_opt(text, "--linalg-generalize-named-ops"))
    assert ir_equal(module, expected), (
        f"{first_difference(module, expected)}\ntinycomp:\n{module}\nmlir-opt:\n{expected}"
    )


def test_generalize_through_the_pass_manager_with_canonicalize():
    interpret = helpers.interpret_or_skip()
    text = build_case("linalg.matmul", "tensor", 0)
    original = parse(text)
    module = parse(text)
    result = PassManager.parse("linalg-generalize-named-ops,canonicalize").run(module)
    assert [stage.name for stage in result.stages] == [
        "input",
        "linalg-generalize-named-ops",
        "canonicalize",
    ]
    assert "linalg.matmul" not in op_names(module)
    assert "linalg.generic" in op_names(module)
    arguments = random_arguments(original, 0)
    assert_same_numbers(
        helpers.outcome(interpret, original, "main", arguments),
        helpers.outcome(interpret, module, "main", arguments),
    )


def test_generic_ops_are_left_alone():
    text = build_case("linalg.map", "tensor", 0)
    module = parse(text)
    GeneralizePass().run(module)
    once = str(module)
    generalize = GeneralizePass()
    generalize.run(module)
    assert str(module) == once
    assert not generalize.statistics


FILL_THEN_MATMUL = """
func.func @main(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>, %bias: f32) -> tensor<3x2xf32> {
  %empty = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%bias : f32) outs(%empty : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x2xf32>)
                     outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
"""


def test_a_chain_of_named_ops_is_generalized_op_by_op():
    interpret = helpers.interpret_or_skip()
    original = parse(FILL_THEN_MATMUL)
    module = parse(FILL_THEN_MATMUL)
    generalize = GeneralizePass()
    generalize.run(module)
    verify(module)
    assert op_names(module).count("linalg.generic") == 2
    assert dict(generalize.statistics) == {"GeneralizeNamedOp": 2}
    rng = np.random.default_rng(7)
    a = rng.normal(size=(3, 5)).astype(np.float32)
    b = rng.normal(size=(5, 2)).astype(np.float32)
    bias = np.float32(rng.normal())
    expected = a.astype(np.float64) @ b.astype(np.float64) + bias
    np.testing.assert_allclose(interpret(module, a, b, bias), expected, rtol=1e-5)
    np.testing.assert_allclose(
        interpret(module, a, b, bias), interpret(original, a, b, bias), rtol=1e-6, atol=0
    )


@pytest.mark.mlir
@requires_mlir_opt
def test_a_chain_of_named_ops_agrees_with_mlir_opt():
    module = parse(FILL_THEN_MATMUL)
    GeneralizePass().run(module)
    expected = parse(run_mlir_opt(FILL_THEN_MATMUL, "--linalg-generalize-named-ops"))
    assert ir_equal(module, expected), first_difference(module, expected)


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(sorted(CASES)),
    kind=st.sampled_from(["tensor", "memref"]),
    seed=st.integers(min_value=3, max_value=10_000),
)
def test_generalize_preserves_results_on_random_shapes(name: str, kind: str, seed: int):
    interpret = helpers.interpret_or_skip()
    text = build_case(name, kind, seed)
    original = parse(text)
    module = parse(text)
    GeneralizePass().run(module)
    verify(module)
    assert not NAMED_STRUCTURED_OPS & set(op_names(module))
    arguments = random_arguments(original, seed)
    assert_same_numbers(
        helpers.outcome(interpret, original, "main", arguments),
        helpers.outcome(interpret, module, "main", arguments),
    )
