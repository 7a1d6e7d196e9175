"""A bad tile kernel is a clear error naming the kernel, the line and the shapes; a
failing launch writes nothing."""

import numpy as np
import pytest

from tinycomp import tile
from tinycomp.interp import InterpreterError

from .kernels import add_kernel

X = np.arange(16, dtype=np.float32)


def _error(kernel, *args, **constexprs) -> str:
    with pytest.raises(tile.KernelSyntaxError) as info:
        kernel.specialize(*args, **constexprs)
    return str(info.value)


def test_mismatched_tile_shapes_name_both_shapes_and_the_line():
    @tile.kernel
    def bad(x, BLOCK: tile.constexpr):
        a = tile.arange(0, BLOCK)
        b = tile.arange(0, 2 * BLOCK)
        tile.store(x + a, a + b)

    message = _error(bad, X, BLOCK=4)
    assert "kernel 'bad'" in message and "test_errors.py" in message
    assert "(4,) and (8,)" in message and "b = tile.arange" not in message
    assert "a + b" in message  # the quoted line


def test_mask_of_the_wrong_shape():
    @tile.kernel
    def bad(x, BLOCK: tile.constexpr):
        offs = tile.arange(0, BLOCK)
        wide = tile.arange(0, 2 * BLOCK)
        tile.load(x + offs, mask=wide < 3)

    message = _error(bad, X, BLOCK=4)
    assert "load" in message and "(4,)" in message and "(8,)" in message
    assert "mask" in message


def test_dot_of_non_matching_inner_sizes():
    @tile.kernel
    def bad(x, BLOCK: tile.constexpr):
        a = tile.zeros((BLOCK, BLOCK), tile.float32)
        b = tile.zeros((2 * BLOCK, BLOCK), tile.float32)
        tile.dot(a, b)

    message = _error(bad, X, BLOCK=4)
    assert "dot" in message and "(4, 4) @ (8, 4)" in message and "tile.dot(a, b)" in message


def test_arange_size_must_be_a_power_of_two():
    @tile.kernel
    def bad(x, BLOCK: tile.constexpr):
        tile.arange(0, BLOCK)

    message = _error(bad, X, BLOCK=6)
    assert "power of two" in message and "6" in message


@pytest.mark.parametrize(
    "statement, expected, line",
    [
        ("while n > 0:\n        n = n - 1", "'While' statements are not supported", 3),
        ("y = [i for i in range(3)]", "ListComp expressions are not supported", 3),
        ("y = np.zeros(3)", "cannot call 'zeros'", 3),
        ("for i in range(3):\n        break", "'Break' statements are not supported", 4),
    ],
)
def test_unsupported_python_constructs(tmp_path, statement, expected, line):
    source = f"import numpy as np\ndef bad(x, n):\n    {statement}\n"
    path = tmp_path / "bad_kernel.py"
    path.write_text(source)
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    with pytest.raises(tile.KernelSyntaxError) as info:
        tile.kernel(namespace["bad"]).specialize(X, 3)
    assert expected in str(info.value) and f"bad_kernel.py:{line}:" in str(info.value)


def test_missing_constexpr():
    with pytest.raises(tile.KernelArgumentError) as info:
        add_kernel[(1,)](X, X, X, 16)
    assert "missing constexpr BLOCK" in str(info.value)


def test_wrong_argument_kinds():
    with pytest.raises(tile.KernelArgumentError, match="C-contiguous"):
        add_kernel.specialize(X[::2], X[::2], X[::2], 8, BLOCK=4)
    with pytest.raises(tile.KernelArgumentError, match="no parameter 'BLOK'"):
        add_kernel.specialize(X, X, X, 8, BLOK=4)


def test_carried_value_must_keep_its_type():
    @tile.kernel
    def bad(x, n, BLOCK: tile.constexpr):
        acc = 0.0
        for _ in range(n):
            acc = acc + tile.load(x + tile.arange(0, BLOCK))

    message = _error(bad, X, 4, BLOCK=4)
    assert "variable 'acc' changes type from f32 to tensor<4xf32>" in message


def test_variable_assigned_only_in_a_loop_is_undefined_after_it():
    @tile.kernel
    def bad(x, n, BLOCK: tile.constexpr):
        for _ in range(n):
            last = tile.load(x + tile.arange(0, BLOCK))
        tile.store(x + tile.arange(0, BLOCK), last)

    assert "variable 'last' is assigned only inside the loop" in _error(bad, X, 4, BLOCK=4)


def test_builtins_outside_a_kernel_say_so():
    with pytest.raises(tile.TileError, match="only be used inside a @tile.kernel"):
        tile.load(X)
    assert tile.cdiv(17, 8) == 3


def test_out_of_bounds_lane_names_op_lane_and_size_and_writes_nothing():
    out = np.full(16, -1.0, np.float32)
    x = np.arange(10, dtype=np.float32)

    @tile.kernel
    def unmasked(x, out, BLOCK: tile.constexpr):
        offs = tile.program_id(0) * BLOCK + tile.arange(0, BLOCK)
        tile.store(out + offs, tile.load(x + offs))

    with pytest.raises(InterpreterError) as info:
        unmasked[(4,)](x, out, BLOCK=4)
    message = str(info.value)
    assert "'tile.load'" in message and "program (2, 0, 0)" in message
    assert "lane [2]" in message and "offset 10" in message and "%x of 10 elements" in message
    # programs 0 and 1 ran, but a failing launch writes nothing back
    np.testing.assert_array_equal(out, np.full(16, -1.0, np.float32))


def test_unsupported_dtypes_name_the_argument():
    with pytest.raises(tile.KernelArgumentError, match="argument x: .*got float64"):
        add_kernel.specialize(np.zeros(4), X, X, 4, BLOCK=4)
    with pytest.raises(tile.KernelArgumentError, match="argument n: .*got float64"):
        add_kernel.specialize(X, X, X, np.float64(4), BLOCK=4)
