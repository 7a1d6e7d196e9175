"""``one-shot-bufferize`` end to end: every case computes the same numbers before
bufferization, after it (with and without reuse and deallocation) and after
``convert-linalg-to-loops`` (with the clean-up the compile pipeline runs after it), on
random inputs; and the IR has the expected shape."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.frontend import TensorSpec, softmax, trace
from tinycomp.interp import InterpreterError, interpret, run_bufferized
from tinycomp.ir import Operation, RankedTensorType, parse
from tinycomp.passes import CanonicalizePass, CSEPass, LinalgToLoopsPass, PassManager
from tinycomp.passes.bufferize import (
    BufferDeallocationPass,
    BufferReusePass,
    OneShotBufferizePass,
    bufferization_passes,
)
from tinycomp.passes.registry import lookup_pass

from .cases import HAND_WRITTEN, OUTPUT_SHAPES, all_cases, random_arguments

CASES = all_cases()


def results_in_bufferized_order(results, function_type) -> list:
    """``interpret``'s results reordered as ``run_bufferized`` returns them: the results
    that stay results first, then the out-params."""
    results = list(results) if isinstance(results, tuple) else [results]
    kinds = [isinstance(t, RankedTensorType) for t in function_type.results]
    return [r for r, k in zip(results, kinds, strict=True) if not k] + [
        r for r, k in zip(results, kinds, strict=True) if k
    ]


def run(module: Operation, arguments: list, name: str) -> list:
    shapes = OUTPUT_SHAPES.get(name)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in arguments]
    results = run_bufferized(module, *copies, output_shapes=shapes)
    for given, after in zip(arguments, copies, strict=True):  # arguments are read-only
        np.testing.assert_array_equal(np.asarray(after), np.asarray(given))
    return list(results) if isinstance(results, tuple) else [results]


def assert_all_equal(actual: list, expected: list) -> None:
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("reuse_and_free", [False, True], ids=["bufferize", "reuse+dealloc"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_before_bufferized_and_loops_agree(name, reuse_and_free):
    source = CASES[name]
    function_type = source.body.first_op.function_type
    arguments = random_arguments(source, seed=len(name), name=name)
    expected = results_in_bufferized_order(
        interpret(source, *[a.copy() if isinstance(a, np.ndarray) else a for a in arguments]),
        function_type,
    )
    module = parse(str(source))
    passes = bufferization_passes() if reuse_and_free else [OneShotBufferizePass()]
    PassManager(passes).run(module)
    assert not [op.name for op in module.walk() for v in (*op.operands, *op.results)
                if isinstance(v.type, RankedTensorType)]  # fmt: skip
    assert_all_equal(run(module, arguments, name), expected)
    PassManager([LinalgToLoopsPass(), CanonicalizePass(), CSEPass()]).run(module)
    assert not [op for op in module.walk() if op.name.startswith("linalg.")]
    assert_all_equal(run(module, arguments, name), expected)


def bufferized(name: str, **options) -> tuple[Operation, OneShotBufferizePass]:
    module = parse(str(CASES[name]))
    bufferize = OneShotBufferizePass(**options)
    bufferize.run(module)
    module.verify()
    return module, bufferize


def op_names(module: Operation) -> list[str]:
    return [op.name for op in module.walk()]


def test_tiled_matmul_works_on_subviews_of_the_out_param_without_copies():
    module, bufferize = bufferized("tiled matmul, partial tiles")
    function = module.body.first_op
    assert str(function.function_type) == (
        "(memref<10x5xf32>, memref<5x7xf32>, memref<10x7xf32>) -> ()"
    )
    names = op_names(module)
    assert "memref.alloc" not in names and "memref.copy" not in names
    loop = next(op for op in module.walk() if op.name == "scf.for")
    assert not loop.results and len(loop.body.arguments) == 1  # iter_args are gone
    subviews = [str(op.result.type) for op in module.walk() if op.name == "memref.subview"]
    assert subviews == [
        "memref<?x5xf32, strided<[5, 1], offset: ?>>",
        "memref<?x7xf32, strided<[7, 1], offset: ?>>",
    ]
    assert dict(bufferize.statistics) == {"in place": 4, "out-params": 1}


def test_binding_attributes_stay_on_the_loops():
    module, _ = bufferized("2-d tiled matmul + bias, bound loops")
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert [str(loop.attributes["tinycomp.bind"]) for loop in loops] == [
        '"gpu.block.y"',
        '"gpu.block.x"',
    ]


def test_a_tile_computed_elsewhere_is_copied_into_its_window():
    module, _ = bufferized("tile computed elsewhere, copied in")
    loop = next(op for op in module.walk() if op.name == "scf.for")
    body = [op.name for op in loop.body.ops]
    assert body == [
        "affine.min",
        "memref.subview",
        "memref.alloc",
        "linalg.generic",
        "memref.subview",
        "memref.copy",
        "scf.yield",
    ]
    copy = next(op for op in loop.body.ops if op.name == "memref.copy")
    assert copy.operands[1].defining_op().name == "memref.subview"


def test_rank_reducing_slices_become_rank_reducing_subviews():
    module, _ = bufferized("rank-reducing row slices")
    types = [str(op.result.type) for op in module.walk() if op.name == "memref.subview"]
    assert types == ["memref<8xf32, strided<[1], offset: ?>>"] * 2


def test_a_yield_of_another_buffer_copies_into_the_iter_buffer_and_scalars_stay():
    module, _ = bufferized("loop yields a new value")
    loop = next(op for op in module.walk() if op.name == "scf.for")
    assert [str(t) for t in loop.result_types] == ["f32"]
    assert [op.name for op in loop.body.ops][-2:] == ["memref.copy", "scf.yield"]
    assert str(module.body.first_op.function_type).endswith("-> f32")


def test_out_params_are_marked_and_counted():
    module, bufferize = bufferized("pad and reshapes")
    function = module.body.first_op
    assert "{bufferize.result}" in str(function).splitlines()[0]
    assert str(function.function_type) == (
        "(memref<2x3xf32>, memref<4x5xf32>, memref<2x2x5xf32>) -> index"
    )
    assert bufferize.statistics["out-params"] == 2


def test_writing_the_out_param_is_checked_by_the_interpreter():
    module, _ = bufferized("tiled matmul, partial tiles")
    loop = next(op for op in module.walk() if op.name == "scf.for")
    loop.erase()  # now nothing writes the result
    a, b = random_arguments(CASES["tiled matmul, partial tiles"], seed=0)
    with pytest.raises(InterpreterError, match="never written"):
        run_bufferized(module, a, b)


def test_passes_are_registered_under_their_names():
    assert lookup_pass("one-shot-bufferize") is OneShotBufferizePass
    assert lookup_pass("buffer-reuse") is BufferReusePass
    assert lookup_pass("buffer-deallocation") is BufferDeallocationPass
    module = parse(HAND_WRITTEN["branching use"])
    result = PassManager.parse("one-shot-bufferize,buffer-reuse,buffer-deallocation").run(module)
    assert [stage.name for stage in result.stages][1:] == [
        "one-shot-bufferize",
        "buffer-reuse",
        "buffer-deallocation",
    ]
    assert op_names(module).count("memref.dealloc") == 2


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_other_element_types_bufferize_and_count_their_bytes(dtype):
    import ml_dtypes

    numpy_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    traced = trace(softmax, TensorSpec((3, 8), numpy_dtype))
    x = np.random.default_rng(5).uniform(-2, 2, (3, 8)).astype(numpy_dtype)
    expected = interpret(traced, x)
    passes = bufferization_passes(reuse=False, deallocate=False)
    PassManager(passes).run(traced)
    np.testing.assert_array_equal(run_bufferized(traced, x), expected)
    size = numpy_dtype.itemsize  # max and sum: 3x1; sub and exp: 3x8
    assert passes[0].report.peak_bytes == {"one-shot-bufferize": (3 + 3 + 24 + 24) * size}


@pytest.mark.parametrize("pass_name", ["linalg-tile", "linalg-tile-and-fuse"])
def test_the_tiling_passes_output_bufferizes_and_computes_the_same(pass_name):
    """The agreed interface of the tiling passes: ``TilePass(tile_sizes, bind=())`` and
    ``TileAndFusePass(tile_sizes, bind=())`` (skipped while they do not exist)."""
    tiling = pytest.importorskip("tinycomp.passes.tiling")
    tile = tiling.TilePass if pass_name == "linalg-tile" else tiling.TileAndFusePass
    traced = trace(softmax, TensorSpec((6, 10)))
    x = np.random.default_rng(6).standard_normal((6, 10)).astype(np.float32)
    expected = interpret(traced, x)
    PassManager([tile([4, 3], bind=("gpu.block.y",)), CanonicalizePass()]).run(traced)
    assert any(op.name == "scf.for" for op in traced.walk())
    PassManager(bufferization_passes()).run(traced)
    np.testing.assert_array_equal(run_bufferized(traced, x), expected)
    PassManager([LinalgToLoopsPass(), CanonicalizePass(), CSEPass()]).run(traced)
    np.testing.assert_array_equal(run_bufferized(traced, x), expected)
