"""Graded tests for chapter 05 (`ch05_fusion.py`): fused maps, the fusion rule, duplicating
producers, and a layernorm within a byte budget.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
How each task is judged, through the real pipeline:

- 05.1: the maps are compared point by point with the maps on the op that the real
  `FusionPass` builds; a wrong map is also put on that op, and the interpreter shows an
  element it gets wrong.
- 05.2: the student's `can_fuse` is the rule of the real fusion pass (MLIR's control
  function). A pair it lets fuse that the library refuses is fused by the library's own
  `fuse_producer_into_consumer` and run on random inputs against the unfused program: the
  feedback is what breaks, or the element that comes out wrong. A pair it refuses that the
  library fuses is shown fused, and correct. Any reason text is accepted, and so is a
  fusion the library refuses when the fused program still computes the same.
- 05.3: the student's pass runs before `FusionPass` on hand-written cases, on six programs
  and on random programs; the results are compared with numpy.
- 05.4: the student's layernorm goes through the default pipeline; its numbers are compared
  with numpy and its bytes after fusion with the budget.

A task answered by calling the library's own code for it fails and says so: the library
functions of `LIBRARY_ANSWERS` are watched while the student's code runs. Random cases
come from fixed seeds and from hypothesis with `derandomize`, so a grade never changes
from one run to the next.
"""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.affine import AffineMap, const, dim, parse_affine_map
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.frontend import TensorSpec, attention, exp, gelu, layernorm, rmsnorm, softmax, tanh
from tinycomp.grading.checks import GradingFailure, expect_equal, expect_instance
from tinycomp.grading.library_calls import library_calls_refused
from tinycomp.interp import interpret
from tinycomp.ir import (
    AffineMapAttr,
    ArrayAttr,
    ModuleOp,
    Operation,
    RankedTensorType,
    VerifyError,
    ir_equal,
    parse,
    print_ir,
    verify,
)
from tinycomp.ir.naming import SSANames
from tinycomp.passes import FusionPass, PassError, PassManager
from tinycomp.passes import fusion as library_fusion
from tinycomp.passes.fusion import fuse_producer_into_consumer, why_not_fusable
from tinycomp.perf import program_bytes
from tinycomp.rewrite import PatternRewriter
from tinycomp.viz.fusion_graph import format_bytes, fusion_graph

task05_1 = pytest.mark.task05_1
task05_2 = pytest.mark.task05_2
task05_3 = pytest.mark.task05_3
task05_4 = pytest.mark.task05_4

GRADED = settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
)
"""Random cases: the same ones on every run, no time limit, reported as drawn."""


# -- the library's own answers, which a task may not call ----------------------------------------
LIBRARY_ANSWERS = {
    "05.1": {
        "tinycomp.passes.fusion._fused_indexing_maps": library_fusion._fused_indexing_maps,
        "tinycomp.passes.fusion.fuse_producer_into_consumer": fuse_producer_into_consumer,
        "tinycomp.passes.fusion.why_not_fusable": why_not_fusable,
        "FusionPass.run": FusionPass.run,
    },
    "05.2": {"tinycomp.passes.fusion.why_not_fusable": why_not_fusable},
}
"""Per task, the library functions that compute what the task asks for."""


def own_code_only(task: str, what: str):
    """Run the block (the student's code) watching for calls of the library's answer to
    ``task``; afterwards such a call becomes feedback. The watch is a profile hook, so it
    sees every way in: an import, a default argument, a method of a library object."""
    return library_calls_refused(
        LIBRARY_ANSWERS[task],
        f"{what} calls the library's {{called}}: Task {task} asks you to write that "
        "code yourself, and the library's answer cannot be graded as yours. The IR's "
        "own methods (indexing_maps(), iterator_types(), uses, ...) and the affine-map "
        "operations are building blocks you may use",
    )


# -- programs and running them -------------------------------------------------------------------
def shared_exp(a):
    """``exp(a)`` read by two kernels: the pair FusionPass refuses ("2 users")."""
    e = exp(a)
    return (e + 1.0) * (e * 2.0)


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def numpy_layernorm(x, gamma, beta, eps=1e-5):
    centered = x - x.mean(axis=-1, keepdims=True)
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(variance + eps) * gamma + beta


def numpy_rmsnorm(x, gamma, eps=1e-6):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * gamma


def numpy_attention(q, k, v):
    return numpy_softmax(q @ k.T / np.sqrt(q.shape[-1])) @ v


def numpy_gelu(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


PROGRAMS: dict[str, tuple[Callable, Callable, list[tuple[int, ...]]]] = {
    "softmax": (softmax, numpy_softmax, [(4, 8)]),
    "layernorm": (layernorm, numpy_layernorm, [(4, 8), (8,), (8,)]),
    "rmsnorm": (rmsnorm, numpy_rmsnorm, [(4, 8), (8,)]),
    "attention": (attention, numpy_attention, [(4, 8), (6, 8), (6, 5)]),
    "gelu": (gelu, numpy_gelu, [(3, 8)]),
    "shared_exp": (shared_exp, lambda a: (np.exp(a) + 1) * (np.exp(a) * 2), [(4, 8)]),
}
"""name: (traced function, numpy reference, argument shapes)."""


def random_arrays(shapes, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def program_stage(name: str, stage: str) -> ModuleOp:
    """Program ``name`` after the pipeline stage ``stage`` ("traced", "generalized")."""
    fn, _, shapes = PROGRAMS[name]
    specs = [TensorSpec(shape) for shape in shapes]
    return tinycomp.compile(fn, *specs, stop_after=stage).ir(stage)


def run_passes(what: str, passes: list, module: ModuleOp):
    """Run ``passes`` with the pass manager (it verifies after each one). A stub's
    ``NotImplementedError`` comes out as itself; any other failure as feedback."""
    before = print_ir(module)
    try:
        return PassManager(passes).run(module)
    except PassError as error:
        if isinstance(error.__cause__, NotImplementedError):
            raise error.__cause__ from None
        raise GradingFailure(f"{what}: {error}\nIR before:\n{before}") from None


def expect_numbers(what: str, module: ModuleOp, reference: Callable, arrays) -> None:
    """``module`` computes ``reference`` on ``arrays`` (f32, rtol 1e-4)."""
    found = interpret(module, *arrays)
    expected = reference(*arrays)
    if not np.allclose(found, expected, rtol=1e-4, atol=1e-5):
        where = tuple(int(i) for i in np.argwhere(~np.isclose(found, expected, 1e-4, 1e-5))[0])
        raise GradingFailure(
            f"{what}: the program computes something else now: at {list(where)} numpy says "
            f"{float(expected[where]):.6g}, the IR gives {float(found[where]):.6g}\n"
            f"IR:\n{print_ir(module)}"
        )


def count_generics(module: Operation, reductions_only: bool = False) -> int:
    return sum(
        1
        for op in module.walk()
        if isinstance(op, GenericOp) and (not reductions_only or "reduction" in op.iterator_types())
    )


def generics(module: Operation) -> list[GenericOp]:
    """The ``linalg.generic`` ops of ``module`` in program order (a fresh parse of the same
    text gives them in the same order)."""
    return [op for op in module.walk() if isinstance(op, GenericOp)]


def top_module(op: Operation) -> Operation:
    """The outermost op that holds ``op`` (its module)."""
    while op.parent_op() is not None:
        op = op.parent_op()
    return op


def value_name(value) -> str:
    """The name ``print_ir`` gives ``value`` (``%exp``, ``%1``): one op, one name."""
    anchor = value.defining_op() or value.parent_block().parent_op()
    return SSANames(top_module(anchor), use_asm_names=True).value_name(value)


def random_inputs_for(module: ModuleOp, seed: int) -> list[np.ndarray]:
    """Standard-normal f32 arrays for the tensor arguments of the module's function."""
    function = next(op for op in module.walk() if op.name == "func.func")
    rng = np.random.default_rng(seed)
    arrays = []
    for argument in function.regions[0].entry_block.arguments:
        assert isinstance(argument.type, RankedTensorType), argument.type
        arrays.append(rng.standard_normal(argument.type.shape).astype(np.float32))
    return arrays


def first_wrong_element(before: ModuleOp, after: ModuleOp, seed: int = 505) -> str | None:
    """Run both modules on the same random inputs; the first element that differs, in
    words, or ``None`` when they agree."""
    arrays = random_inputs_for(before, seed)
    expected = interpret(before, *arrays)
    try:
        found = interpret(after, *arrays)
    except Exception as error:
        return f"running the fused program fails: {type(error).__name__}: {error}"
    expected = expected if isinstance(expected, tuple) else (expected,)
    found = found if isinstance(found, tuple) else (found,)
    for number, (old, new) in enumerate(zip(expected, found, strict=True)):
        old, new = np.asarray(old), np.asarray(new)
        if old.shape != new.shape:
            return f"result #{number} has shape {new.shape}, the unfused one {old.shape}"
        wrong = ~np.isclose(new, old, rtol=1e-5, atol=1e-6)
        if wrong.any():
            where = tuple(int(i) for i in np.argwhere(wrong)[0])
            return (
                f"element {list(where)} of result #{number} comes out {float(new[where]):.6g}, "
                f"where the unfused program computes {float(old[where]):.6g}"
            )
    return None


# == Task 05.1: the maps of a fused operand =======================================================
MAP_CASES = {  # name: (producer operand map, producer result map, consumer operand map)
    "all identities": ("(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, d1)"),
    "transposing producer": (
        "(d0, d1) -> (d0, d1)",
        "(d0, d1) -> (d1, d0)",
        "(d0, d1) -> (d0, d1)",
    ),
    "3-D rotation": (
        "(d0, d1, d2) -> (d0, d1, d2)",
        "(d0, d1, d2) -> (d1, d2, d0)",
        "(d0, d1, d2) -> (d0, d1, d2)",
    ),
    "keepdims read (d0, 0)": (
        "(d0, d1) -> (d0, d1)",
        "(d0, d1) -> (d0, d1)",
        "(d0, d1) -> (d0, 0)",
    ),
    "broadcast producer input": (
        "(d0, d1) -> (d1)",
        "(d0, d1) -> (d0, d1)",
        "(d0, d1, d2) -> (d0, d2)",
    ),
    "consumer with more loops": (
        "(d0, d1) -> (d0)",
        "(d0, d1) -> (d1, d0)",
        "(d0, d1, d2) -> (d2, d0)",
    ),
}
MAP_HINTS = {
    "all identities": "elementwise on the same shape: every map stays the identity",
    "transposing producer": "the producer writes out[d1, d0]; the consumer's (i, j) was computed "
    "at producer point (j, i)",
    "3-D rotation": "the inverse of a 3-cycle is not the 3-cycle itself: invert the producer's "
    "result map with inverse_permutation()",
    "keepdims read (d0, 0)": "the consumer reads column 0 of a 4x1 tensor: the producer's second "
    "loop is the constant 0",
    "broadcast producer input": "the producer reads its operand at (d1) only; the fused map "
    "keeps that broadcast",
    "consumer with more loops": "the fused map takes the consumer's 3 loops, and has one result "
    "per dimension of the producer's operand",
}


def map_triple(case: str) -> tuple[AffineMap, AffineMap, AffineMap]:
    return tuple(parse_affine_map(text) for text in MAP_CASES[case])  # type: ignore[return-value]


def call(what: str, function: Callable, *args):
    """Call the student's function (which may not call the library's fusion maps); a
    ``ValueError`` (a compose of mismatched maps) becomes feedback about the order of
    composition."""
    try:
        with own_code_only("05.1", what):
            return function(*args)
    except ValueError as error:
        raise GradingFailure(
            f"{what} raised ValueError: {error}\nhint: f.compose(g) is f ∘ g: g is applied "
            "first, and f needs one of g's results per dimension. Start from the consumer's "
            "map (applied first), then inverse(producer result map), then the producer's "
            "operand map"
        ) from None


def expect_same_map(what: str, found: object, expected: AffineMap, mistakes: dict) -> None:
    """``found`` is a map equal to ``expected`` at every point of a small box of loops."""
    expect_instance(what, found, AffineMap, "an AffineMap")
    assert isinstance(found, AffineMap)
    shape = (found.num_dims, found.num_symbols, found.num_results)
    wanted = (expected.num_dims, 0, expected.num_results)
    if shape != wanted:
        raise GradingFailure(
            f"{what}: expected a map of {wanted[0]} loops (the consumer's) to "
            f"{wanted[2]} result(s) (one per dimension of the operand) like {expected}, found "
            f"{found} ({shape[0]} dims, {shape[1]} symbols, {shape[2]} results)"
            + _diagnose(found, mistakes)
        )
    for point in itertools.product(range(3), repeat=expected.num_dims):
        if found.evaluate(point) != expected.evaluate(point):
            at = ", ".join(f"d{i}={v}" for i, v in enumerate(point))
            raise GradingFailure(
                f"{what}: expected {expected}, found {found}: at ({at}) the reference "
                f"reads element {expected.evaluate(point)}, yours {found.evaluate(point)}"
                + _diagnose(found, mistakes)
            )


def _diagnose(found: AffineMap, mistakes: dict) -> str:
    """Name a known wrong formula that gives ``found``."""
    for formula, (candidate, hint) in mistakes.items():
        try:
            same = candidate() == found
        except ValueError:
            same = False
        if same:
            return f"\nthat is {formula}: {hint}"
    return ""


def fused_map_mistakes(p: AffineMap, o: AffineMap, c: AffineMap) -> dict:
    return {
        "producer_map ∘ producer_result_map ∘ consumer_map": (
            lambda: p.compose(o).compose(c),
            "the result map goes from producer loops to the element; to get back from the "
            "element to the producer loop, use its inverse (o.inverse_permutation())",
        ),
        "inverse(producer_result_map) ∘ consumer_map": (
            lambda: o.inverse_permutation().compose(c),
            "that is producer_loops; the operand is read at the producer's operand map of "
            "those loops: compose the producer's operand map on the left",
        ),
        "producer_map ∘ consumer_map": (
            lambda: p.compose(c),
            "the consumer's map gives the element of the intermediate tensor, not the "
            "producer's loop; go through inverse(producer_result_map) in between",
        ),
    }


@task05_1
@pytest.mark.parametrize("case", list(MAP_CASES))
def test_producer_loops(impl, case):
    _, result_map, consumer_map = map_triple(case)
    what = f"producer_loops({result_map}, {consumer_map}) [case '{case}']"
    found = call(what, impl.producer_loops, result_map, consumer_map)
    expected = result_map.inverse_permutation().compose(consumer_map)
    mistakes = {
        "producer_result_map ∘ consumer_map": (
            lambda: result_map.compose(consumer_map),
            "the result map goes from producer loops to elements; you need the way back, "
            "its inverse",
        )
    }
    try:
        expect_same_map(what, found, expected, mistakes)
    except GradingFailure as failure:
        raise GradingFailure(f"{failure}\nhint: {MAP_HINTS[case]}") from None


@task05_1
@pytest.mark.parametrize("case", list(MAP_CASES))
def test_fused_operand_map(impl, case):
    p, o, c = map_triple(case)
    what = f"fused_operand_map({p}, {o}, {c}) [case '{case}']"
    found = call(what, impl.fused_operand_map, p, o, c)
    expected = p.compose(o.inverse_permutation().compose(c))
    try:
        expect_same_map(what, found, expected, fused_map_mistakes(p, o, c))
    except GradingFailure as failure:
        raise GradingFailure(f"{failure}\nhint: {MAP_HINTS[case]}") from None


@st.composite
def fusable_pairs(draw) -> tuple[str, AffineMap, AffineMap, AffineMap]:
    """A producer (one input, a permutation output map) and an elementwise consumer
    reading it through a projected permutation with broadcasts, as MLIR text."""
    rank = draw(st.integers(1, 3))
    result_map = AffineMap.from_permutation(draw(st.permutations(range(rank))))
    consumer_loops = draw(st.integers(rank, 3))
    sizes = [2, 3, 5][:consumer_loops]
    dims = draw(st.permutations(range(consumer_loops)))[:rank]
    broadcast = draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
    consumer_map = AffineMap(
        consumer_loops, 0, [const(0) if b else dim(d) for b, d in zip(broadcast, dims, strict=True)]
    )
    middle_shape = [1 if b else sizes[d] for b, d in zip(broadcast, dims, strict=True)]
    producer_sizes = [0] * rank
    for position, loop in enumerate(result_map.permutation_vector()):
        producer_sizes[loop] = middle_shape[position]
    read = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    operand_map = AffineMap(rank, 0, [dim(d) for d in read])
    text = _pair_module(operand_map, result_map, consumer_map, producer_sizes, middle_shape, sizes)
    return text, operand_map, result_map, consumer_map


def _tensor(shape) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>" if shape else "tensor<f32>"


def _pair_module(operand_map, result_map, consumer_map, producer_sizes, middle, sizes) -> str:
    """``%c = addf(%p, %p)`` of ``%p = negf(%x)``: the two generics of a fusable pair
    (for loops that the producer's operand does not use, the init gives the size)."""
    x_shape = [producer_sizes[r.position] for r in operand_map.results]
    identity = AffineMap.identity(len(sizes))
    return f"""
func.func @main(%x: {_tensor(x_shape)}) -> {_tensor(sizes)} {{
  %e0 = tensor.empty() : {_tensor(middle)}
  %p = linalg.generic {{indexing_maps = [affine_map<{operand_map}>, affine_map<{result_map}>],
      iterator_types = [{", ".join(['"parallel"'] * len(producer_sizes))}]}}
      ins(%x : {_tensor(x_shape)}) outs(%e0 : {_tensor(middle)}) {{
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }} -> {_tensor(middle)}
  %e1 = tensor.empty() : {_tensor(sizes)}
  %c = linalg.generic {{indexing_maps = [affine_map<{consumer_map}>, affine_map<{identity}>],
      iterator_types = [{", ".join(['"parallel"'] * len(sizes))}]}}
      ins(%p : {_tensor(middle)}) outs(%e1 : {_tensor(sizes)}) {{
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  }} -> {_tensor(sizes)}
  return %c : {_tensor(sizes)}
}}"""


@task05_1
@settings(GRADED)
@given(case=fusable_pairs())
def test_fused_operand_map_is_what_fusion_pass_builds(impl, case):
    """Random permutations and broadcasts: your map is the one on the real fused op."""
    text, p, o, c = case
    module = parse(text)
    FusionPass().run(module)
    fused = generics(module)[0]
    expected = fused.indexing_maps()[0]
    what = f"fused_operand_map({p}, {o}, {c})"
    found = call(what, impl.fused_operand_map, p, o, c)
    try:
        expect_same_map(what, found, expected, fused_map_mistakes(p, o, c))
    except GradingFailure as failure:
        raise GradingFailure(
            f"{failure}\nthe pair, before FusionPass fused it:\n{text.strip()}\n"
            f"the fused op FusionPass built:\n{print_ir(fused)}" + run_with_map(text, found)
        ) from None


def run_with_map(text: str, found: AffineMap) -> str:
    """What goes wrong when the fused op of ``text`` reads ``%x`` through ``found``: the
    element that comes out wrong, or why the op is not even valid."""
    module = parse(text)
    FusionPass().run(module)
    fused = generics(module)[0]
    maps = fused.indexing_maps()
    fused.attributes["indexing_maps"] = ArrayAttr([AffineMapAttr(m) for m in [found, *maps[1:]]])
    try:
        verify(module)
    except VerifyError as error:
        return f"\nwith your map on that op, it does not verify: {error}"
    problem = first_wrong_element(parse(text), module, seed=511)
    return f"\nwith your map on that op, {problem}" if problem else ""


# == Task 05.2: the rule ==========================================================================
ELEMENTWISE = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : tensor<3x4xf32>, tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  return %c : tensor<3x4xf32>
}"""

TRANSPOSE_THEN_ADD = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%x: tensor<4x3xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #swap], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %y : tensor<3x4xf32>, tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  return %c : tensor<3x4xf32>
}"""

EXP_THEN_ROW_SUM = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<3x4xf32>, %acc: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<3x4xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  return %c : tensor<3xf32>
}"""

PRODUCER_READS_ITS_INIT = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xf32>, %acc: tensor<5xf32>) -> tensor<5xf32> {
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%acc : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %e = tensor.empty() : tensor<5xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %c : tensor<5xf32>
}"""

MATMUL_THEN_RELU = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>, %acc: tensor<3x2xf32>)
    -> tensor<3x2xf32> {
  %p = linalg.matmul ins(%a, %b : tensor<3x4xf32>, tensor<4x2xf32>)
      outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  } -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}"""

READ_AS_INIT = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<5xf32>) outs(%p : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %c : tensor<5xf32>
}"""

TWO_RESULTS = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %0 = math.exp %in : f32
    %1 = arith.negf %in : f32
    linalg.yield %0, %1 : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p#0, %p#1 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %c : tensor<4xf32>
}"""

ROW_SUM_THEN_DIVIDE = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<3x4xf32>, %acc: tensor<3xf32>) -> tensor<3x4xf32> {
  %p = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  %e = tensor.empty() : tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : tensor<3x4xf32>, tensor<3xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  return %c : tensor<3x4xf32>
}"""

DIAGONAL = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<4xf32>, %init: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, d0)>],
      iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%init : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}"""

TWO_READERS = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %c : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %d : tensor<5xf32>
}"""

READ_TWICE = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %p : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %c : tensor<5xf32>
}"""

ALSO_RETURNED = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %e = tensor.empty() : tensor<5xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %p, %c : tensor<5xf32>, tensor<5xf32>
}"""

USES_INDEX = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %0 = arith.addf %in, %f : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  return %c : tensor<3x4xf32>
}"""

SUM_OF_A_FILL = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%acc: tensor<3xf32>) -> tensor<3xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, #id],
      iterator_types = ["parallel", "parallel"]} ins(%one : f32) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<3x4xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  return %c : tensor<3xf32>
}"""

USES_INDEX_TRANSPOSED = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%x: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %0 = arith.addf %in, %f : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %c = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x4xf32>) outs(%e2 : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}"""

RULE_CASES = {  # name: (module, consumer's result name, operand index, hint for feedback)
    "elementwise into elementwise": (ELEMENTWISE, "c", 1, "exp into mulf, same loops"),
    "transposing producer": (
        TRANSPOSE_THEN_ADD,
        "c",
        0,
        "the producer writes its result transposed; a permutation can be inverted, so the "
        "fused op reads x transposed instead",
    ),
    "elementwise into a reduction": (
        EXP_THEN_ROW_SUM,
        "c",
        0,
        "exp into a row sum: the consumer need not be elementwise",
    ),
    "producer reads its init": (
        PRODUCER_READS_ITS_INIT,
        "c",
        0,
        "the producer's payload reads its init (%acc): the fused op reads %acc as an input",
    ),
    "named producer": (
        MATMUL_THEN_RELU,
        "c",
        0,
        "the producer is linalg.matmul, a named op: fusion reads the payload and the maps of "
        "a linalg.generic (generalize first)",
    ),
    "read as an init": (
        READ_AS_INIT,
        "c",
        1,
        "operand 1 of %c is its init (outs): where %c starts, not an element it reads at a "
        "loop point",
    ),
    "two results": (
        TWO_RESULTS,
        "c",
        0,
        "the producer has two results (%p#0 and %p#1), and the fused op can take the place "
        "of only one of them",
    ),
    "reduction producer": (
        ROW_SUM_THEN_DIVIDE,
        "c",
        1,
        "a row sum is complete only after the whole row: no single iteration of the "
        "reduction computes it, and every element of the row needs it",
    ),
    "non-invertible output map": (
        DIAGONAL,
        "c",
        0,
        "(d0) -> (d0, d0) writes the diagonal only; element (0, 1) was computed by no "
        "producer iteration (it is the init's)",
    ),
    "two readers": (
        TWO_READERS,
        "c",
        0,
        "%p is read by %c and by %d; the library's fusion erases the producer it fused, and "
        "%d still reads it (MLIR would keep %p and compute it twice)",
    ),
    "read twice by one consumer": (
        READ_TWICE,
        "c",
        0,
        "ins(%p, %p) is two uses, though by one op (the pass merges such operands, and then "
        "%p fuses)",
    ),
    "also returned": (ALSO_RETURNED, "c", 0, "the return reads %p too: that is a use"),
    "payload uses linalg.index": (
        USES_INDEX,
        "c",
        0,
        "linalg.index 1 in the producer: both ops run the same loops here, so fusing it is "
        "right (the library refuses it anyway; either answer is accepted)",
    ),
    "linalg.index, read transposed": (
        USES_INDEX_TRANSPOSED,
        "c",
        0,
        "linalg.index 1 numbers the producer's loop d1, which is the consumer's loop d0 here: "
        "inlined as it is, the payload reads the wrong loop (MLIR renumbers it; the library's "
        "fusion does not)",
    ),
    "loop size lost": (
        SUM_OF_A_FILL,
        "c",
        0,
        "after fusion the reduction loop d1 would be in no map: the producer reads only a "
        "scalar, and the consumer's outs map is (d0, d1) -> (d0)",
    ),
}


def consumer_named(module: ModuleOp, name: str) -> GenericOp:
    for op in generics(module):
        if op.results and op.results[0].name_hint == name:
            return op
    raise AssertionError(f"no generic %{name} in the test module")


def describe_pair(producer: Operation, consumer: GenericOp, index: int) -> str:
    """``%p -> %c, operand 1`` by the printer's names (and the producer's op when named)."""
    name = value_name(consumer.operands[index])
    if producer.name != "linalg.generic":
        name += f" ({producer.name})"
    return f"{name} -> {value_name(consumer.results[0])}, operand {index}"


def call_can_fuse(rule: Callable, producer: Operation, consumer: GenericOp, index: int, what: str):
    """The student's verdict (``None`` or a reason), checked for type; a call of the
    library's rule, or an exception, becomes feedback that says where it came from."""
    try:
        with own_code_only("05.2", what):
            verdict = rule(producer, consumer, index)
    except (NotImplementedError, GradingFailure):
        raise
    except Exception as error:
        frames = [frame.name for frame in traceback.extract_tb(error.__traceback__)]
        hint = ""
        if "inverse_permutation" in frames and "expected a permutation" in str(error):
            hint = (
                "\nhint: only a permutation can be inverted: ask whether the output map is "
                "a permutation before anything inverts it"
            )
        elif "fused_operand_map" in frames or "producer_loops" in frames:
            hint = "\nhint: it came from your Task 05.1 code"
        raise GradingFailure(
            f"{what} raised {type(error).__name__}: {error}{hint}\n"
            f"the producer:\n{print_ir(producer)}\nthe consumer:\n{print_ir(consumer)}"
        ) from None
    if verdict is not None and not (isinstance(verdict, str) and verdict.strip()):
        raise GradingFailure(
            f"{what} returned {verdict!r}: expected None (the pair may fuse) or a non-empty "
            "str (why it may not). (MLIR's ControlFusionFn returns true to fuse; here the "
            "rule returns None to fuse, so that the pass can report its reasons)"
        )
    return verdict


def fuse_one_pair(text: str, position: int, index: int) -> ModuleOp:
    """Parse ``text`` and fuse the producer of operand ``index`` of its ``position``-th
    generic with the library's ``fuse_producer_into_consumer``; the verified result, or a
    ``GradingFailure`` saying what broke."""
    module = parse(text)
    consumer = generics(module)[position]
    producer = consumer.operands[index].defining_op()
    rewriter = PatternRewriter()
    rewriter.set_current_op(consumer)
    try:
        fuse_producer_into_consumer(producer, consumer, index, rewriter)
    except Exception as error:
        raise GradingFailure(
            "the library's fuse_producer_into_consumer cannot fuse them: "
            f"{type(error).__name__}: {error}"
        ) from None
    try:
        verify(module)
    except VerifyError as error:
        raise GradingFailure(
            f"the fused IR does not verify: {error}\nthe fused IR:\n{print_ir(module)}"
        ) from None
    return module


def judge_pair(what: str, text: str, position: int, index: int, verdict, hint: str = "") -> None:
    """Check the student's ``verdict`` on one pair of ``text`` (operand ``index`` of its
    ``position``-th generic) by fusing that pair: a pair allowed must fuse into a program
    that computes the same; a pair refused must be one the library cannot fuse so."""
    module = parse(text)
    consumer = generics(module)[position]
    producer = consumer.operands[index].defining_op()
    library = why_not_fusable(producer, consumer, index)
    shown = f"the producer:\n{print_ir(producer)}\nthe consumer:\n{print_ir(consumer)}"
    hint = f"\nhint: {hint}" if hint else ""
    if verdict is not None and library is None:
        fused = fuse_one_pair(text, position, index)
        problem = first_wrong_element(module, fused)
        assert problem is None, f"the library fused {what} wrongly: {problem}"
        fused_op = generics(fused)[position - 1]  # the producer, before it, is gone
        raise GradingFailure(
            f"{what}: your rule refused this pair ({verdict!r}), but it fuses correctly: the "
            "library's fusion makes one op of the two, and on random inputs it computes what "
            f"the two computed{hint}\n{shown}\nfused into:\n{print_ir(fused_op)}"
        )
    if verdict is None and library is not None:
        try:
            fused = fuse_one_pair(text, position, index)
        except GradingFailure as broke:
            raise GradingFailure(
                f"{what}: your rule lets this pair fuse, but {broke}{hint}\n{shown}"
            ) from None
        problem = first_wrong_element(module, fused)
        if problem is not None:
            raise GradingFailure(
                f"{what}: your rule lets this pair fuse, but the fused program computes "
                f"something else: {problem}{hint}\n{shown}\nthe fused IR:\n{print_ir(fused)}"
            )


@task05_2
@pytest.mark.parametrize("case", list(RULE_CASES))
def test_can_fuse_cases(impl, case):
    text, name, index, hint = RULE_CASES[case]
    module = parse(text)
    consumer = consumer_named(module, name)
    producer = consumer.operands[index].defining_op()
    what = f"can_fuse({describe_pair(producer, consumer, index)}) [case '{case}']"
    verdict = call_can_fuse(impl.can_fuse, producer, consumer, index, what)
    judge_pair(what, text, generics(module).index(consumer), index, verdict, hint)


@task05_2
@pytest.mark.parametrize("stage", ["traced", "generalized"])
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_can_fuse_on_every_pair_of_a_program(impl, program, stage):
    """Every (producer, consumer, operand) of softmax, layernorm... traced and generalized."""
    module = program_stage(program, stage)
    text = print_ir(module)
    for position, consumer in enumerate(generics(module)):
        for index, operand in enumerate(consumer.operands):
            producer = operand.defining_op()
            if not isinstance(producer, StructuredOp):
                continue
            what = f"can_fuse({describe_pair(producer, consumer, index)}) in {program} ({stage})"
            verdict = call_can_fuse(impl.can_fuse, producer, consumer, index, what)
            judge_pair(what, text, position, index, verdict)


class WatchedRule:
    """The student's ``can_fuse`` as the fusion pass's rule, remembering every pair on
    which it and the library disagree (with the IR at that moment), to explain a failure."""

    def __init__(self, can_fuse: Callable) -> None:
        self.can_fuse = can_fuse
        self.allowed: list[tuple[str, str, int, int, str]] = []
        """Pairs the student allowed and the library refused: (what, text, position,
        index, library's reason)."""
        self.refused: list[tuple[str, str, int, int, str]] = []
        """Pairs the student refused and the library allowed: (..., the student's reason)."""

    def __call__(self, producer: Operation, consumer: GenericOp, index: int) -> str | None:
        what = f"can_fuse({describe_pair(producer, consumer, index)})"
        verdict = call_can_fuse(self.can_fuse, producer, consumer, index, what)
        library = why_not_fusable(producer, consumer, index)
        if (verdict is None) != (library is None):
            module = top_module(consumer)
            position = generics(module).index(consumer)
            entry = (what, print_ir(module), position, index, library or verdict)
            (self.allowed if verdict is None else self.refused).append(entry)
        return verdict

    def explain(self, failure: str) -> None:
        """Raise the counter-example of the first disagreement that shows one, else
        ``failure``."""
        for what, text, position, index, _ in self.allowed:
            judge_pair(what, text, position, index, None)
        for what, text, position, index, reason in self.refused:
            judge_pair(what, text, position, index, reason)
        raise GradingFailure(failure)


def fuse_with_student_rule(impl, module: ModuleOp, what: str) -> tuple[ModuleOp, ModuleOp]:
    """``module`` fused by ``FusionPass`` (the reference) and by the student's
    ``FuseWithMyRule`` (whose rule is the student's ``can_fuse``, watched)."""
    reference = parse(print_ir(module))
    FusionPass().run(reference)
    mine = parse(print_ir(module))
    original = impl.can_fuse
    rule = WatchedRule(original)
    impl.can_fuse = rule  # FuseWithMyRule reads the module's can_fuse when it runs
    try:
        PassManager([impl.FuseWithMyRule()]).run(mine)
    except PassError as error:
        if isinstance(error.__cause__, (NotImplementedError, GradingFailure)):
            raise error.__cause__ from None
        rule.explain(f"{what}: {error}\nIR before:\n{print_ir(module)}")
    finally:
        impl.can_fuse = original
    expect_fused_as_well(what, module, reference, mine, rule)
    return reference, mine


def expect_fused_as_well(what: str, before: ModuleOp, reference: ModuleOp, mine, rule) -> None:
    """The student's fused program computes what the unfused one does, in no more kernels
    than the library's fusion leaves."""
    problem = first_wrong_element(before, mine, seed=502)
    if problem is not None:
        rule.explain(f"{what}: after fusion with your rule, {problem}\nIR after:\n{print_ir(mine)}")
    if count_generics(mine) > count_generics(reference):
        rule.explain(
            f"{what}: {count_generics(mine)} kernels after fusion with your rule, the library's "
            f"rule leaves {count_generics(reference)}"
        )


@task05_2
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_fuse_with_my_rule_fuses_as_well_as_fusion_pass(impl, program):
    module = program_stage(program, "generalized")
    _, mine = fuse_with_student_rule(impl, module, f"FuseWithMyRule on {program}")
    _, numpy_reference, shapes = PROGRAMS[program]
    expect_numbers(
        f"FuseWithMyRule on {program}", mine, numpy_reference, random_arrays(shapes, 502)
    )


@st.composite
def elementwise_programs(draw) -> tuple[Callable, Callable]:
    """A random program of elementwise ops on x (3, 4), y (3, 4) and b (4,), where values
    are often read more than once, maybe ending with a row sum: (traced, numpy)."""
    step = st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 99), st.integers(0, 99))
    steps = draw(st.lists(step, min_size=1, max_size=6))
    reduce_at_end = draw(st.booleans())

    def program(x, y, b, lib):
        values = [x, y, b]
        for name, i, j in steps:
            values.append(OPS[name][lib](values[i % len(values)], values[j % len(values)]))
        result = values[-1] + x
        for value in values[3:-1]:  # every value made reaches the result
            result = result + value
        if reduce_at_end:
            result = result.sum(axis=1, keepdims=True) * result
        return result

    return (lambda x, y, b: program(x, y, b, 0)), (lambda x, y, b: program(x, y, b, 1))


OPS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "tanh": (lambda a, b: tanh(a), lambda a, b: np.tanh(a)),
    "exp_neg_square": (lambda a, b: exp(-(a * a)), lambda a, b: np.exp(-(a * a))),
}
"""Ops of the random programs: (traced, numpy). Unary ones ignore their second operand."""
RANDOM_SHAPES = [(3, 4), (3, 4), (4,)]


@task05_2
@settings(GRADED)
@given(case=elementwise_programs())
def test_fuse_with_my_rule_on_random_programs(impl, case):
    traced_fn, numpy_fn = case
    specs = [TensorSpec(shape) for shape in RANDOM_SHAPES]
    module = tinycomp.compile(traced_fn, *specs, stop_after="generalized").ir("generalized")
    what = f"FuseWithMyRule on a random program:\n{print_ir(module)}\n"
    _, mine = fuse_with_student_rule(impl, module, what)
    expect_numbers("the random program", mine, numpy_fn, random_arrays(RANDOM_SHAPES, seed=503))


# == Task 05.3: duplicating producers =============================================================
PRODUCERS = {  # how %p is made; its type; the map a reader reads it with
    "exp": (
        """%p = linalg.generic {indexing_maps = [#id, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>""",
        "tensor<4x4xf32>",
        "#id",
    ),
    "transposing exp": (
        """%p = linalg.generic {indexing_maps = [#id, #swap],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>""",
        "tensor<4x4xf32>",
        "#id",
    ),
    "row sum": (
        """%p = linalg.generic {indexing_maps = [#id, #keep],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%acc : tensor<4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4x1xf32>""",
        "tensor<4x1xf32>",
        "#keep",
    ),
    "column index": (
        """%p = linalg.generic {indexing_maps = [#id, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %0 = arith.addf %in, %f : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>""",
        "tensor<4x4xf32>",
        "#id",
    ),
    "diagonal": (
        """%p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
      affine_map<(d0) -> (d0, d0)>], iterator_types = ["parallel"]}
      ins(%v : tensor<4xf32>) outs(%x : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>""",
        "tensor<4x4xf32>",
        "#id",
    ),
    "linalg.fill": (
        """%p = linalg.fill ins(%c1 : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>""",
        "tensor<4x4xf32>",
        "#id",
    ),
}


def reader(number: int, p_type: str, p_map: str, kind: str) -> tuple[str, str]:
    """A generic ``%r<number>`` that reads ``%p`` as an input ("input"), twice ("twice"),
    or as its init ("init"); or a ``tensor.expand_shape`` of it ("reshape")."""
    if kind == "reshape":
        text = (
            f"%r{number} = tensor.expand_shape %p [[0, 1], [2]] output_shape [2, 2, 4] "
            f": {p_type} into tensor<2x2x4xf32>"
        )
        return text, "tensor<2x2x4xf32>"
    if kind == "init":
        ins, maps, args, payload = "%x : tensor<4x4xf32>", "#id, #id", "%a: f32, %o: f32", "%a, %o"
        outs = f"%p : {p_type}"
    elif kind == "twice":
        ins = f"%p, %p : {p_type}, {p_type}"
        maps, args, payload = f"{p_map}, {p_map}, #id", "%a: f32, %b: f32, %o: f32", "%a, %b"
        outs = "%e : tensor<4x4xf32>"
    else:
        ins = f"%x, %p : tensor<4x4xf32>, {p_type}"
        maps, args, payload = f"#id, {p_map}, #id", "%a: f32, %b: f32, %o: f32", "%a, %b"
        outs = "%e : tensor<4x4xf32>"
    return (
        f"""%r{number} = linalg.generic {{indexing_maps = [{maps}],
      iterator_types = ["parallel", "parallel"]}} ins({ins}) outs({outs}) {{
  ^bb0({args}):
    %0 = arith.addf {payload} : f32
    linalg.yield %0 : f32
  }} -> tensor<4x4xf32>""",
        "tensor<4x4xf32>",
    )


def producer_module(producer: str, readers: list[str], returned: bool = False) -> str:
    """A function defining ``%p`` (a ``PRODUCERS`` entry) and its ``readers``; it returns
    every reader's result (and ``%p`` too when ``returned``)."""
    text, p_type, p_map = PRODUCERS[producer]
    lines, values, types = [text], [], []
    for number, kind in enumerate(readers):
        reader_text, reader_type = reader(number, p_type, p_map, kind)
        lines.append(reader_text)
        values.append(f"%r{number}")
        types.append(reader_type)
    if returned:
        values.append("%p")
        types.append(p_type)
    body = "\n  ".join(lines)
    return f"""
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
func.func @main(%x: tensor<4x4xf32>, %v: tensor<4xf32>, %acc: tensor<4x1xf32>)
    -> ({", ".join(types)}) {{
  %c1 = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  {body}
  return {", ".join(values)} : {", ".join(types)}
}}"""


DUPLICATE_CASES = {  # name: (producer, readers, also returned, expected (None: either), why)
    "two generic readers": ("exp", ["input", "input"], False, True, "the case the pass is for"),
    "three generic readers": ("exp", ["input", "input", "input"], False, True, "any number"),
    "read twice by one generic": (
        "exp",
        ["twice"],
        False,
        None,
        "two uses, both inputs of one op: copies fuse, and without them the pass merges the "
        "two operands and fuses %p anyway",
    ),
    "transposing, two readers": (
        "transposing exp",
        ["input", "input"],
        False,
        True,
        "a permutation output map is fine: each copy can still fuse",
    ),
    "one reader": ("exp", ["input"], False, False, "one use: fusion takes it as it is"),
    "also returned": (
        "exp",
        ["input", "input"],
        True,
        False,
        "the return reads it: it is written to memory anyway",
    ),
    "read as an init": (
        "exp",
        ["input", "init"],
        False,
        False,
        "a reader's init is not an element read per point (use.index >= num_inputs)",
    ),
    "read by a reshape": (
        "exp",
        ["input", "reshape"],
        False,
        False,
        "tensor.expand_shape is not a linalg.generic",
    ),
    "reduction, two readers": (
        "row sum",
        ["input", "input"],
        False,
        False,
        "a copy would redo the whole reduction, and could not fuse anyway",
    ),
    "linalg.index, two readers": (
        "column index",
        ["input", "input"],
        False,
        False,
        "fusion refuses a producer whose payload uses linalg.index",
    ),
    "non-permutation output map, two readers": (
        "diagonal",
        ["input", "input"],
        False,
        False,
        "fusion refuses (d0) -> (d0, d0): it cannot be inverted",
    ),
    "named op, two readers": (
        "linalg.fill",
        ["input", "input"],
        False,
        False,
        "a linalg.fill is not a linalg.generic",
    ),
}


def producer_op(module: ModuleOp) -> Operation:
    return next(op for op in module.walk() if op.results and op.results[0].name_hint == "p")


@task05_3
@pytest.mark.parametrize("case", list(DUPLICATE_CASES))
def test_should_duplicate_cases(impl, case):
    producer, readers, returned, expected, why = DUPLICATE_CASES[case]
    text = producer_module(producer, readers, returned)
    module = parse(text)
    found = impl.should_duplicate(producer_op(module))
    if not isinstance(found, bool):
        raise GradingFailure(
            f"should_duplicate(%p) [case '{case}']: expected True or False, found {found!r}"
        )
    if expected is not None and found is not expected:
        raise GradingFailure(
            f"should_duplicate(%p) [case '{case}']: expected {expected}, found {found!r} "
            f"({why})\nIR:\n{text.strip()}"
        )


def duplicate_then_fuse(impl, module: ModuleOp, what: str):
    """Run the student's pass, then FusionPass; the module after each, and both passes."""
    duplicated = parse(print_ir(module))
    pass_ = impl.DuplicateElementwiseProducers()
    run_passes(what, [pass_], duplicated)
    fused = parse(print_ir(duplicated))
    fusion = FusionPass()
    run_passes(what, [fusion], fused)
    return duplicated, fused, pass_, fusion


def expect_duplication_worked(what: str, before: ModuleOp, duplicated: ModuleOp, pass_, fusion):
    """No reduction copied, the statistics right, no fusion refused for "users"."""
    reductions = count_generics(before, reductions_only=True)
    if count_generics(duplicated, reductions_only=True) != reductions:
        raise GradingFailure(
            f"{what}: your pass copied a reduction ({reductions} reductions before, "
            f"{count_generics(duplicated, reductions_only=True)} after): only ops with "
            f"parallel iterators may be copied\nIR after your pass:\n{print_ir(duplicated)}"
        )
    dead = [
        op
        for op in duplicated.walk()
        if isinstance(op, GenericOp) and op.results and not op.results[0].has_uses
    ]
    if dead:
        raise GradingFailure(
            f"{what}: after your pass a generic has no reader left:\n{print_ir(dead[0])}\n"
            "hint: give a copy to every use but the first; the original keeps that one"
        )
    made = count_generics(duplicated) - count_generics(before)
    expect_equal(f"{what}: statistics['copies made']", pass_.statistics["copies made"], made)
    refused = [line for line in fusion.report if "users" in line]
    if refused:
        raise GradingFailure(
            f"{what}: after your pass, FusionPass still refused {len(refused)} pair(s) "
            "because a result has several users:\n  " + "\n  ".join(refused) + "\n"
            "hint: a copy reads the producer's inputs too, so copying a producer gives *its* "
            "producer more readers; walking the ops in reverse sees those in time\n"
            f"IR after your pass:\n{print_ir(duplicated)}"
        )


@task05_3
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_duplication_lets_fusion_take_every_elementwise_producer(impl, program):
    module = program_stage(program, "generalized")
    what = f"DuplicateElementwiseProducers on {program}"
    duplicated, fused, pass_, fusion = duplicate_then_fuse(impl, module, what)
    expect_duplication_worked(what, module, duplicated, pass_, fusion)
    library_only = parse(print_ir(module))
    FusionPass().run(library_only)
    if count_generics(fused) > count_generics(library_only):
        raise GradingFailure(
            f"{what}: {count_generics(fused)} kernels after your pass and fusion, more than "
            f"the {count_generics(library_only)} of fusion alone"
        )
    _, numpy_reference, shapes = PROGRAMS[program]
    expect_numbers(what, fused, numpy_reference, random_arrays(shapes, seed=531))


@task05_3
def test_softmax_becomes_five_kernels(impl):
    """fill, max, fill, sum(exp(x - max)), exp(x - max) / sum: the two reductions and
    their inits, and the division with everything elementwise fused in."""
    module = program_stage("softmax", "generalized")
    duplicated, fused, _, _ = duplicate_then_fuse(impl, module, "softmax")
    expect_equal("kernels of softmax after your pass and FusionPass", count_generics(fused), 5)


@task05_3
@pytest.mark.parametrize(
    "case", [name for name, spec in DUPLICATE_CASES.items() if spec[3] is False]
)
def test_duplication_leaves_other_producers_alone(impl, case):
    producer, readers, returned, _, why = DUPLICATE_CASES[case]
    text = producer_module(producer, readers, returned)
    module = parse(text)
    what = f"DuplicateElementwiseProducers on case '{case}'"
    run_passes(what, [impl.DuplicateElementwiseProducers()], module)
    if not ir_equal(module, parse(text)):
        raise GradingFailure(
            f"{what}: expected the IR unchanged ({why}), found:\n{print_ir(module)}\n"
            f"IR before:\n{text.strip()}"
        )


@task05_3
@pytest.mark.parametrize(
    "case", [name for name, spec in DUPLICATE_CASES.items() if spec[3] is True]
)
def test_duplication_gives_each_reader_its_copy(impl, case):
    producer, readers, returned, _, _ = DUPLICATE_CASES[case]
    text = producer_module(producer, readers, returned)
    what = f"DuplicateElementwiseProducers on case '{case}'"
    module = parse(text)
    duplicated, fused, pass_, fusion = duplicate_then_fuse(impl, module, what)
    expect_duplication_worked(what, module, duplicated, pass_, fusion)
    leftover = [op for op in duplicated.walk() if op.name == "linalg.generic" and
                op.results and op.results[0].num_uses > 1]  # fmt: skip
    if leftover:
        raise GradingFailure(
            f"{what}: a generic still has {leftover[0].results[0].num_uses} uses after your "
            f"pass:\n{print_ir(duplicated)}"
        )
    rng = np.random.default_rng(532)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(4, 4), (4,), (4, 1)]]
    for index, (old, new) in enumerate(
        zip(interpret(module, *arrays), interpret(fused, *arrays), strict=True)
    ):
        if not np.allclose(old, new, rtol=1e-6):
            raise GradingFailure(f"{what}: result #{index} changed\n{print_ir(duplicated)}")


@task05_3
@pytest.mark.parametrize(
    "case", [name for name, spec in DUPLICATE_CASES.items() if spec[3] is None]
)
def test_duplication_where_either_answer_is_right(impl, case):
    producer, readers, returned, _, _ = DUPLICATE_CASES[case]
    text = producer_module(producer, readers, returned)
    what = f"DuplicateElementwiseProducers on case '{case}'"
    module = parse(text)
    duplicated, fused, _, _ = duplicate_then_fuse(impl, module, what)
    library_only = parse(text)
    FusionPass().run(library_only)
    if count_generics(fused) > count_generics(library_only):
        raise GradingFailure(
            f"{what}: {count_generics(fused)} kernels after your pass and fusion, more than "
            f"the {count_generics(library_only)} of fusion alone\n{print_ir(duplicated)}"
        )
    problem = first_wrong_element(module, fused, seed=534)
    if problem is not None:
        raise GradingFailure(f"{what}: after your pass and fusion, {problem}\n{print_ir(fused)}")


@task05_3
def test_duplication_twice_changes_nothing_more(impl):
    module = program_stage("attention", "generalized")
    once = parse(print_ir(module))
    run_passes("the first run", [impl.DuplicateElementwiseProducers()], once)
    twice = parse(print_ir(once))
    second = impl.DuplicateElementwiseProducers()
    run_passes("a second run", [second], twice)
    if not ir_equal(once, twice):
        raise GradingFailure(
            "DuplicateElementwiseProducers run a second time changed the IR again: after "
            "the first run every copied producer has one reader, so there is nothing left "
            f"to copy\nafter one run:\n{print_ir(once)}\nafter two:\n{print_ir(twice)}"
        )


@task05_3
@settings(GRADED)
@given(case=elementwise_programs())
def test_duplication_on_random_programs(impl, case):
    traced_fn, numpy_fn = case
    specs = [TensorSpec(shape) for shape in RANDOM_SHAPES]
    module = tinycomp.compile(traced_fn, *specs, stop_after="generalized").ir("generalized")
    what = f"DuplicateElementwiseProducers then FusionPass on\n{print_ir(module)}\n"
    duplicated, fused, pass_, fusion = duplicate_then_fuse(impl, module, what)
    expect_duplication_worked(what, module, duplicated, pass_, fusion)
    if count_generics(module, reductions_only=True) == 0 and count_generics(fused) != 1:
        raise GradingFailure(
            f"{what}: a program of elementwise ops only should end as one kernel, found "
            f"{count_generics(fused)}:\n{print_ir(fused)}"
        )
    expect_numbers("the random program", fused, numpy_fn, random_arrays(RANDOM_SHAPES, 533))


# == Task 05.4: a layernorm within a byte budget ==================================================
BUDGET_BYTES = round(16.1 * 2**20)
"""16.1 MiB: what ``layernorm_within_budget`` may move after fusion, at 1024x1024 f32."""
BUDGET_SPECS = (TensorSpec((1024, 1024)), TensorSpec((1024,)), TensorSpec((1024,)))
LAYERNORM_SHAPES = [(4, 8), (3, 16), (2, 5)]
"""Shapes of ``x`` for the numbers (``gamma`` and ``beta`` have its last dimension)."""


def compile_student_layernorm(impl, specs, stop_after: str):
    """``tinycomp.compile`` of the student's layernorm; a tracing error becomes feedback."""
    try:
        return tinycomp.compile(impl.layernorm_within_budget, *specs, stop_after=stop_after)
    except NotImplementedError:
        raise
    except Exception as error:
        shapes = ", ".join(str(spec.shape) for spec in specs)
        raise GradingFailure(
            f"tinycomp.compile(layernorm_within_budget, {shapes}) failed: "
            f"{type(error).__name__}: {error}"
        ) from None


@task05_4
@pytest.mark.parametrize("shape", LAYERNORM_SHAPES)
def test_layernorm_within_budget_computes_layernorm(impl, shape):
    specs = [TensorSpec(shape), TensorSpec(shape[-1:]), TensorSpec(shape[-1:])]
    fused = compile_student_layernorm(impl, specs, "fused").ir("fused")
    rng = np.random.default_rng(541)
    x = (rng.standard_normal(shape) * 2.0 + 0.5).astype(np.float32)
    x[0] = 1.5  # a constant row: variance 0, so only eps keeps the division finite
    gamma, beta = (rng.standard_normal(shape[-1:]).astype(np.float32) for _ in range(2))
    expected = numpy_layernorm(x.astype(np.float64), gamma, beta)
    found = np.asarray(interpret(fused, x, gamma, beta))
    if found.shape != expected.shape:
        raise GradingFailure(
            f"layernorm_within_budget on x of shape {shape}: expected a result of shape "
            f"{expected.shape}, found {found.shape}"
        )
    wrong = ~np.isclose(found, expected, rtol=1e-4, atol=1e-4)  # NaN is never close
    if wrong.any():
        where = tuple(int(i) for i in np.argwhere(wrong)[0])
        raise GradingFailure(
            f"layernorm_within_budget on x of shape {shape}: at {list(where)} numpy's layer "
            f"normalization gives {expected[where]:.6g}, your program {found[where]:.6g} "
            f"(row {where[0]} of x: mean {x[where[0]].mean():.4g}, variance "
            f"{x[where[0]].var():.4g}, eps 1e-5)\nIR after fusion:\n{print_ir(fused)}"
        )


@task05_4
def test_layernorm_within_budget_moves_at_most_the_budget(impl):
    program = compile_student_layernorm(impl, BUDGET_SPECS, "fused")
    moved = program_bytes(program.ir("fused"))
    if moved > BUDGET_BYTES:
        graph = fusion_graph(program.ir("generalized"), renderer="text").text
        raise GradingFailure(
            f"layernorm_within_budget at x 1024x1024 f32 moves {format_bytes(moved)} after "
            f"fusion; the budget is {format_bytes(BUDGET_BYTES)}. Where the bytes go (each "
            "tensor 'written, read back' costs its size twice):\n"
            f"{graph}\nhint: a tensor with readers in two kernels is written once and read "
            "back by each; x itself has to be read by every kernel that needs it"
        )
