"""Running a specialised tile kernel on the reference interpreter, one program at a time.

``run_grid(module, name, bound, grid)``:

1. copy every distinct array argument once (an array passed twice is one buffer), as a
   flat C-order buffer;
2. for each program of the grid, x fastest (the order of CUDA's linear block index,
   ``x + y * nx + z * nx * ny``; Triton's own interpreter nests the loops the other way,
   z fastest), call the function with the arrays, the scalars and the grid values it
   takes (``%program_id_x``, ``%num_programs_y``, ...). Programs of a correct kernel
   are independent, so the order only shows when two programs write one element: the
   last one wins;
3. only when every program succeeded, copy the buffers back into the caller's arrays:
   a failing launch changes nothing.

A program that fails raises the interpreter's ``InterpreterError``, prefixed with its
program id.

>>> normalize_grid((4,), {}), normalize_grid(lambda meta: (meta["N"] // 2, 3), {"N": 8})
((4, 1, 1), (4, 3, 1))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from tinycomp.frontend.simt.errors import KernelArgumentError
from tinycomp.frontend.tile.memory_builtins import AXES
from tinycomp.frontend.tile.signature import BoundArguments
from tinycomp.interp import Interpreter, InterpreterError, memref_from_array
from tinycomp.interp.arguments import to_runtime_value
from tinycomp.ir import ModuleOp

__all__ = ["normalize_grid", "run_grid"]

Grid = tuple[int, ...] | Callable[[dict], tuple[int, ...]]
"""A launch grid: up to three positive ints, or a function of the constexprs giving one."""


def normalize_grid(grid: Grid, constexprs: dict[str, object]) -> tuple[int, int, int]:
    """The grid as three sizes (x, y, z); a callable grid is called with the constexprs."""
    sizes = grid(dict(constexprs)) if callable(grid) else grid
    if isinstance(sizes, int):
        sizes = (sizes,)
    valid = (
        isinstance(sizes, (tuple, list))
        and 1 <= len(sizes) <= 3
        and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in sizes
        )
    )
    if not valid:
        raise KernelArgumentError(
            f"expected a grid of one to three non-negative ints, e.g. kernel[(cdiv(n, 256),)], "
            f"got {sizes!r}"
        )
    padded = [int(s) for s in sizes] + [1] * (3 - len(sizes))
    return padded[0], padded[1], padded[2]


def run_grid(module: ModuleOp, name: str, bound: BoundArguments, grid: Grid) -> None:
    """Run every program of ``grid`` (see the module docstring).

    >>> from tinycomp.frontend.tile.signature import bind
    >>> from tinycomp.ir import parse
    >>> module = parse('''
    ... func.func @first(%x: memref<?xi32>, %program_id_x: index) {
    ...   %offsets = arith.constant dense<0> : tensor<1xi32>
    ...   %id = arith.index_cast %program_id_x : index to i32
    ...   %empty = tensor.empty() : tensor<1xi32>
    ...   %value = linalg.fill ins(%id : i32) outs(%empty : tensor<1xi32>) -> tensor<1xi32>
    ...   "tile.store"(%x, %offsets, %value) : (memref<?xi32>, tensor<1xi32>, tensor<1xi32>) -> ()
    ...   return
    ... }''')
    >>> x = np.zeros(1, np.int32)
    >>> run_grid(module, "first", bind("first", ["x"], set(), (x,), {}), (3,))
    >>> x   # the last program wrote last
    array([2], dtype=int32)
    """
    sizes = normalize_grid(grid, bound.constexprs)
    function = module.body.first_op
    copies: dict[int, tuple[np.ndarray, np.ndarray, object]] = {}
    runtime_values = []
    for parameter, value in bound.runtime.items():
        if isinstance(value, np.ndarray):
            if id(value) not in copies:
                flat = np.array(value).reshape(-1)
                memref = memref_from_array(flat, f"array {parameter}")
                copies[id(value)] = (value, flat, memref)
            runtime_values.append(copies[id(value)][2])
        else:
            what = f"argument {parameter} of kernel {name!r}"
            runtime_values.append(to_runtime_value(value, bound.types[parameter], what))
    grid_names = [a.name_hint for a in function.body.entry_block.arguments[len(runtime_values) :]]
    interpreter = Interpreter(module)
    for z, y, x in itertools.product(range(sizes[2]), range(sizes[1]), range(sizes[0])):
        ids = dict(zip(AXES, (x, y, z), strict=True))
        grid_values = []
        for grid_name in grid_names:
            kind, axis = grid_name.rsplit("_", 1)
            count = ids[axis] if kind == "program_id" else sizes[AXES.index(axis)]
            grid_values.append(np.int64(count))
        try:
            interpreter.call(name, [*runtime_values, *grid_values])
        except InterpreterError as error:
            raise InterpreterError(f"kernel {name!r}, program {(x, y, z)}: {error}") from None
    for original, flat, _ in copies.values():
        original[...] = flat.reshape(original.shape)
