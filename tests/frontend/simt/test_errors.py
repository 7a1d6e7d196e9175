"""Every mistake a kernel's author can make is a ``KernelSyntaxError`` that names the
kernel, the file and line, what was expected and what was found, and quotes the line."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from tinycomp.frontend import simt as gpu
from tinycomp.frontend.simt import KernelSyntaxError

F32 = np.zeros(8, np.float32)


def line_of(kernel: gpu.Kernel, text: str) -> int:
    """The file line of the first line of ``kernel``'s body containing ``text`` (the
    ``def`` line itself when the body has none)."""
    lines, first = inspect.getsourcelines(kernel.fn)
    body = [n for n, line in enumerate(lines) if n >= 2 and text in line]
    return first + (body[0] if body else 1)


def check_error(kernel, args, message: str, line_text: str) -> KernelSyntaxError:
    """Specializing ``kernel`` for ``args`` fails with ``message``, at the line holding
    ``line_text``, which the message quotes."""
    with pytest.raises(KernelSyntaxError) as caught:
        kernel.specialize(*args)
    error = caught.value
    text = str(error)
    line = line_of(kernel, line_text)
    assert f"kernel '{kernel.name}', test_errors.py:{line}: " in text, text
    assert message in text, text
    assert f"{line} | " in text and line_text in text.splitlines()[-1], text
    assert error.kernel == kernel.name and error.location.line == line
    return error


@gpu.kernel
def uses_break(x):
    for _ in range(4):
        break


@gpu.kernel
def uses_continue(x):
    k = 0
    while k < 3:
        continue


def test_break_and_continue_suggest_a_while_loop_with_a_flag():
    check_error(uses_break, [F32], "`break` is not supported in a kernel (use a while loop "
                "with a flag)", "break")  # fmt: skip
    check_error(uses_continue, [F32], "`continue` is not supported", "continue")


@gpu.kernel
def nested_return(x, n):
    for i in range(n):
        if i > 2:
            return


@gpu.kernel
def return_value(x):
    return x[0]


@gpu.kernel
def return_in_the_middle(x):
    return
    x[0] = 1.0


@gpu.kernel
def busy_early_exit(x, n):
    if n > 0:
        x[0] = 1.0
        return


def test_return_is_only_an_early_exit_at_the_top_level():
    check_error(nested_return, [F32, 3], "only supported as an early exit at the top level",
                "return")  # fmt: skip
    check_error(return_value, [F32], "a kernel returns no value", "return x[0]")
    check_error(return_in_the_middle, [F32], "`if cond: return`", "return")
    check_error(busy_early_exit, [F32, 3], "an early exit must be exactly `if cond: return`",
                "if n > 0")  # fmt: skip


@gpu.kernel
def unknown_name(x):
    x[0] = y  # noqa: F821


@gpu.kernel
def unknown_function(x):
    x[0] = np.exp(x[0])


@gpu.kernel
def uses_print(x):
    print(x)


def test_unknown_names_and_functions_are_named():
    check_error(unknown_name, [F32], "unknown name 'y'", "x[0] = y")
    check_error(unknown_function, [F32], "call to unknown function 'np.exp'", "np.exp")
    check_error(uses_print, [F32], "the builtin 'print' is not supported in a kernel", "print")


@gpu.kernel
def two_params(x, n):
    x[0] = n


def test_wrong_launch_arguments_name_the_kernel_and_the_parameter():
    with pytest.raises(
        KernelSyntaxError, match=r"kernel 'two_params' takes 2 arguments \(x, n\), got 1"
    ):
        two_params.specialize(F32)
    with pytest.raises(KernelSyntaxError, match="argument 'x': expected a numpy array or a "
                       "scalar .* got list"):  # fmt: skip
        two_params.specialize([1.0, 2.0], 3)
    supported = "float32, float16, bfloat16, int32, int64, bool"
    with pytest.raises(KernelSyntaxError, match=f"argument 'x': expected an array of "
                       f"{supported}, got an array of float64"):  # fmt: skip
        two_params.specialize(np.zeros(4), 3)
    with pytest.raises(KernelSyntaxError, match="argument 'n': expected a scalar of .* got a "
                       "float64 scalar"):  # fmt: skip
        two_params.specialize(F32, np.float64(1.0))
    with pytest.raises(KernelSyntaxError, match="argument 'x': expected a C-contiguous"):
        two_params.specialize(np.zeros((4, 4), np.float32).T, 3)
    with pytest.raises(KernelSyntaxError, match=r"passed as i32, got 4294967296; pass np.int64"):
        two_params.specialize(F32, 2**32)


def test_calling_a_kernel_says_how_to_launch_it():
    launch = r"launch it with gpu.launch\(kernel, grid, block, args\)"
    with pytest.raises(KernelSyntaxError, match=f"kernel 'two_params' cannot be called like a "
                       f"function; {launch}"):  # fmt: skip
        two_params(F32, 3)
    with pytest.raises(RuntimeError, match=r"syncthreads\(\) only has a meaning inside"):
        gpu.syncthreads()


@gpu.kernel
def writes_thread_index(x):
    gpu.thread_idx.x = 3


@gpu.kernel
def stores_wrong_rank(x):
    x[0, 1] = 1.0


@gpu.kernel
def stores_a_tuple(x):
    x[0] = gpu.vload(x, (0,), 4)


@gpu.kernel
def divides_ints(x, n):
    x[0] = n / 2


def test_assignments_and_stores_that_do_not_fit():
    check_error(writes_thread_index, [F32], "cannot assign to thread_idx.x: a thread index is "
                "read-only", "gpu.thread_idx.x = 3")  # fmt: skip
    check_error(stores_wrong_rank, [F32], "expected 1 indices for the array memref<?xf32>, got 2",
                "x[0, 1]")  # fmt: skip
    check_error(stores_a_tuple, [F32], "expected a f32 value to store, got a tuple of 4", "x[0] =")
    check_error(divides_ints, [F32, 3], "'/' on integers (i32); use '//'", "n / 2")


@gpu.kernel
def one_branch_only(x, n):
    if n > 0:
        y = 1.0
    x[0] = y  # noqa: F821


@gpu.kernel
def loop_local(x, n):
    for i in range(n):
        t = x[i]
    x[0] = t


@gpu.kernel
def loop_variable_after(x, n):
    for i in range(n):
        x[i] = 0.0
    x[i] = 1.0


def test_variables_without_a_value_are_named():
    check_error(one_branch_only, [F32, 3], "variable 'y' is assigned only in the 'if' branch",
                "x[0] = y")  # fmt: skip
    check_error(loop_local, [F32, 3], "variable 't' is assigned inside the loop", "x[0] = t")
    check_error(loop_variable_after, [F32, 3], "variable 'i' is the loop variable", "x[i] = 1.0")


@gpu.kernel
def counts_down(x):
    for i in range(8, 0, -1):
        x[i] = 0.0


@gpu.kernel
def loops_over_a_list(x):
    for i in [1, 2]:
        x[i] = 0.0


@gpu.kernel
def bad_width(x):
    x[0] = gpu.shfl_down_sync(0xFFFFFFFF, x[0], 1, 12)


@gpu.kernel
def float_reduce_add(x):
    x[0] = gpu.reduce_add_sync(0xFFFFFFFF, x[0])


@gpu.kernel
def power_of_a_value(x, n):
    x[0] = x[0] ** n


def test_loop_and_intrinsic_arguments_that_do_not_fit():
    check_error(counts_down, [F32], "expected a positive range() step, got -1", "range(8, 0, -1)")
    check_error(loops_over_a_list, [F32], "only `for i in range(...)` loops", "for i in [1, 2]")
    check_error(bad_width, [F32], "power of two up to 32, got 12", "shfl_down_sync")
    check_error(float_reduce_add, [F32], "reduce_add_sync takes an i32", "reduce_add_sync")
    check_error(power_of_a_value, [F32, 2], "'**' takes a constant exponent", "** n")


SIZE = 8


@gpu.kernel
def dynamic_shared(x, n):
    tile = gpu.shared.array(n, gpu.float32)
    tile[0] = x[0]


@gpu.kernel
def float64_shared(x):
    tile = gpu.shared.array(SIZE, np.float64)
    tile[0] = x[0]


@gpu.kernel
def uses_with(x):
    with open("f"):
        pass


@gpu.kernel
def uses_a_list_comprehension(x):
    x[0] = [v for v in range(3)]


def test_shared_arrays_and_unsupported_constructs():
    check_error(dynamic_shared, [F32, 3], "expected shared.array's shape and dtype to be "
                "constants, got 'n'", "shared.array(n")  # fmt: skip
    check_error(float64_shared, [F32], "expected shared.array's dtype to be one of float32",
                "np.float64")  # fmt: skip
    check_error(uses_with, [F32], "`with` is not supported in a kernel", "with open")
    check_error(uses_a_list_comprehension, [F32], "ListComp expressions are not supported",
                "[v for v")  # fmt: skip


def test_kernels_take_plain_parameters_and_need_their_source():
    with pytest.raises(KernelSyntaxError, match="plain positional parameters") as caught:

        @gpu.kernel
        def variadic(x, *rest):
            x[0] = 1.0

    assert "test_errors.py" in str(caught.value) and "def variadic" in str(caught.value)
    namespace: dict = {}
    exec("def generated(x):\n    x[0] = 1.0\n", namespace)
    with pytest.raises(KernelSyntaxError, match="kernel 'generated': its source is not available"):
        gpu.kernel(namespace["generated"])
