"""``gpu.launch_func`` in the interpreter: a host function launches a kernel on the simulator.

The interpreter (``tinycomp.interp``) runs host code: a ``func.func @main`` that
allocates memrefs, fills them, and launches a kernel of a ``gpu.module`` with
``gpu.launch_func @kernels::@k blocks in (...) threads in (...) args(...)``. The
interpreter sits below the targets, so this rule lives here and is registered with
``tinycomp.interp.rules.register_rule`` (``register()``, called when ``tinycomp.gpu`` is
imported). Running one launch:

1. find the ``gpu.func`` named by the ``kernel`` attribute (``@module::@func``) among
   the module's top-level symbols;
2. read the grid and block sizes (index values) and the kernel operands: a memref is a
   ``MemRefValue``, whose elements are copied into a C-contiguous numpy array (what
   ``simulate`` takes); scalars pass as they are;
3. simulate the kernel as written, with the sanitizer on; a ``SimulatorError`` becomes
   an ``InterpreterError`` naming the ``gpu.launch_func`` and its line;
4. write each array back into its memref; an element counts as initialised when it was
   before or the kernel changed it.

>>> import numpy as np
>>> from tinycomp.interp import interpret
>>> from tinycomp.ir import parse
>>> register()
>>> module = parse('''
... module attributes {gpu.container_module} {
...   gpu.module @kernels {
...     gpu.func @double(%x: memref<?xf32>) kernel {
...       %i = gpu.thread_id x
...       %v = memref.load %x[%i] : memref<?xf32>
...       %w = arith.addf %v, %v : f32
...       memref.store %w, %x[%i] : memref<?xf32>
...       gpu.return
...     }
...   }
...   func.func @main(%x: memref<?xf32>) {
...     %c1 = arith.constant 1 : index
...     %c32 = arith.constant 32 : index
...     gpu.launch_func @kernels::@double blocks in (%c1, %c1, %c1)
...         threads in (%c32, %c1, %c1) args(%x : memref<?xf32>)
...     return
...   }
... }''')
>>> x = np.arange(32, dtype=np.float32)
>>> interpret(module, x, entry="main")
>>> float(x[31])
62.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.dialects.gpu import GPUFuncOp
from tinycomp.interp.errors import op_error
from tinycomp.interp.memory import MemRefValue, read_all
from tinycomp.interp.rules import register_rule
from tinycomp.ir.attributes import SymbolRefAttr
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.errors import SimulatorError
from tinycomp.targets.gpu_sim.simulator import simulate

__all__ = ["register", "run_launch_func"]

_GRID, _BLOCK, _ARGS = slice(0, 3), slice(3, 6), 10
"""Where the sizes and the kernel operands are among the (synchronous) operands."""


def _kernel(op: Operation, interp: Any) -> GPUFuncOp:
    """Step 1: the ``gpu.func`` that ``op`` launches."""
    kernel = op.attributes.get("kernel")
    if not isinstance(kernel, SymbolRefAttr) or len(kernel.nested) != 1:
        raise op_error(op, f"expected a 'kernel' symbol like @module::@func, got {kernel}")
    module = interp.symbols.get(kernel.root)
    found = None
    if module is not None:
        found = next(
            (
                inner
                for inner in module.regions[0].blocks[0].ops
                if isinstance(inner, GPUFuncOp) and inner.sym_name == kernel.nested[0]
            ),
            None,
        )
    if found is None:
        raise op_error(op, f"kernel {kernel} is not a gpu.func of the module")
    return found


def run_launch_func(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``gpu.launch_func``: run the kernel on the simulator (steps 1-4 of the module
    docstring); it has no results.

    >>> from tinycomp.interp.rules import ALL_RULES
    >>> register()
    >>> ALL_RULES["gpu.launch_func"] is run_launch_func
    True
    """
    func = _kernel(op, interp)
    grid = tuple(int(v) for v in operands[_GRID])
    block = tuple(int(v) for v in operands[_BLOCK])
    kernel_operands = operands[len(operands) - len(op.kernel_operands) :]
    arrays: list[tuple[MemRefValue, np.ndarray, np.ndarray]] = []
    args: list[Any] = []
    for position, value in enumerate(kernel_operands):
        if isinstance(value, MemRefValue):
            data, initialized = read_all(op, value, f"kernel operand #{position}")
            array = np.ascontiguousarray(data)
            arrays.append((value, array, initialized))
            args.append(array)
        else:
            args.append(value)
    try:
        simulate(func, grid=grid, block=block, args=args)
    except SimulatorError as error:
        raise op_error(op, str(error)) from error
    for memref, array, initialized in arrays:  # step 4
        positions = memref.linear_indices()
        before = memref.buffer.data[positions]
        changed = ~((array == before) | (np.isnan(array) & np.isnan(before)))
        if changed.any() and memref.buffer.read_only:
            raise op_error(op, f"the kernel writes to constant memory ({memref.buffer.origin})")
        memref.buffer.data[positions] = array
        memref.buffer.initialized[positions] = initialized | changed
    return []


def register() -> None:
    """Let the interpreter run ``gpu.launch_func`` (harmless to call again)."""
    register_rule("gpu.launch_func", run_launch_func)
