"""``run_bufferized``: call a bufferized function the way a caller must, allocating its
out-params.

After bufferization ``func.func @main(%x: memref<2x5xf32>, %out: memref<2x5xf32>
{bufferize.result})`` returns nothing: it writes its result into memory the caller
provides. ``run_bufferized(module, x)`` is that caller: it allocates one buffer per
out-param from the signature (the func dialect's convention,
``tinycomp.dialects.func.out_params``), runs the function in the reference
interpreter, and returns the buffers as numpy arrays, as ``interpret`` returns results.
The CPU caller (``tinycomp.codegen.cpu.calling``) does the same for native code.

The out-params start *uninitialised* in the interpreter's sense, so a function that
reads its output before writing it, or leaves part of it unwritten, fails with an
``InterpreterError`` instead of returning leftovers.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> m = parse('''func.func @main(%x: memref<3xf32>, %y: memref<3xf32> {bufferize.result}) {
...   memref.copy %x, %y : memref<3xf32> to memref<3xf32>
...   return
... }''')
>>> run_bufferized(m, np.arange(3, dtype=np.float32))
array([0., 1., 2.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tinycomp.dialects.func.out_params import call_out_params
from tinycomp.interp.arguments import to_numpy_result, to_runtime_value
from tinycomp.interp.errors import InterpreterError
from tinycomp.interp.interpreter import Interpreter
from tinycomp.interp.memory import allocate
from tinycomp.interp.numerics import dtype_of
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import parse
from tinycomp.ir.types import DYNAMIC
from tinycomp.ir.verifier import verify

__all__ = ["run_bufferized"]


def run_bufferized(
    module: Operation | str,
    *arrays: Any,
    entry: str = "main",
    output_shapes: Sequence[tuple[int, ...]] | None = None,
    rules: dict[str, Any] | None = None,
) -> Any:
    """Run ``@entry`` on ``arrays`` plus fresh out-params; return the out-params (one
    array, or a tuple), after any results the function still returns.

    Out-params are the arguments marked ``{bufferize.result}``, or else the trailing
    arguments beyond ``arrays``. ``output_shapes`` gives their shapes when their types
    have dynamic sizes. ``rules`` replaces the interpreter's rule table (a target that
    runs some ops its own way, as ``gpu-sim`` runs ``gpu.launch_func``).
    """
    if isinstance(module, str):
        module = parse(module, verify=False)
    verify(module)
    interpreter = Interpreter(module, rules=rules)
    function = interpreter.symbols.get(entry)
    if function is None or function.name != "func.func":
        raise InterpreterError(f"no function @{entry} in the module")
    inputs = function.attributes["function_type"].type.inputs
    outs = call_out_params(function, len(arrays))
    if len(arrays) + len(outs) != len(inputs):
        raise InterpreterError(
            f"@{entry} takes {len(inputs) - len(outs)} arguments besides its {len(outs)} "
            f"out-params, got {len(arrays)}"
        )
    shapes = list(output_shapes) if output_shapes is not None else [None] * len(outs)
    if len(shapes) != len(outs):
        raise InterpreterError(f"expected {len(outs)} output shapes, got {len(shapes)}")
    given = iter(arrays)
    values, out_values = [], []
    for position, arg_type in enumerate(inputs):
        if position in outs:
            shape = _out_shape(arg_type, shapes[outs.index(position)], entry, position)
            memory = allocate(dtype_of(arg_type), shape, f"out-param #{position} of @{entry}")
            memory.buffer.owned = False  # the caller's memory: the program may not free it
            values.append(memory)
            out_values.append(memory)
        else:
            what = f"argument #{position} of @{entry}"
            values.append(to_runtime_value(next(given), arg_type, what))
    results = interpreter.call(entry, values)
    converted = [to_numpy_result(v, f"result #{i} of @{entry}") for i, v in enumerate(results)]
    converted += [
        to_numpy_result(memory, f"out-param #{position} of @{entry}")
        for position, memory in zip(outs, out_values, strict=True)
    ]
    if not converted:
        return None
    return converted[0] if len(converted) == 1 else tuple(converted)


def _out_shape(arg_type, shape, entry: str, position: int) -> tuple[int, ...]:
    if shape is None:
        if DYNAMIC in arg_type.shape:
            raise InterpreterError(
                f"out-param #{position} of @{entry} has type {arg_type}: pass its shape in "
                "output_shapes"
            )
        return tuple(arg_type.shape)
    shape = tuple(int(size) for size in shape)
    static = tuple(arg_type.shape)
    matches = len(shape) == len(static) and all(
        s is DYNAMIC or s == n for s, n in zip(static, shape, strict=True)
    )
    if not matches:
        raise InterpreterError(
            f"out-param #{position} of @{entry} has type {arg_type}, got shape {shape}"
        )
    return shape
