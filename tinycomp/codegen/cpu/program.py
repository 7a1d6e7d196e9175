"""``compile_for_cpu``: the last stage of ``tinycomp.compile(..., target="cpu")``.

After the ``loops`` stage a tensor program is a function on memrefs whose results are
out-params (``func.func @main(%x: memref<8x32xf32>, %out: memref<8x32xf32>
{bufferize.result})``). ``compile_for_cpu`` JIT-compiles that module and returns a
``CpuProgram``: called like the tensor program (inputs in, results out), it allocates
the out-params, runs the native code and returns them.

1. ``jit`` the module (``jit.py``) at ``opt_level``.
2. Find the entry function; remember the result shapes (needed where the out-param
   types have dynamic sizes).
3. On a call, ``CpuFunction.run`` checks the inputs, allocates the outputs and calls.

>>> import numpy as np, tinycomp
>>> x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
>>> loops = tinycomp.compile(lambda a: a * a + 1.0, x, stop_after="loops")
>>> program = compile_for_cpu(loops.module, entry="main")
>>> bool(np.allclose(program(x), x * x + 1.0))
True
>>> print(program.assembly().splitlines()[0])
main:
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tinycomp.codegen.cpu.jit import CpuModule, jit
from tinycomp.codegen.errors import CodegenError
from tinycomp.ir.operation import Operation

__all__ = ["CpuProgram", "compile_for_cpu"]


@dataclass
class CpuProgram:
    """A bufferized entry function as native code, called like the tensor program.

    >>> import numpy as np
    >>> from tinycomp.codegen.cpu import jit
    >>> module = jit('''func.func @main(%x: memref<2xf32>, %y: memref<2xf32> {bufferize.result}) {
    ...   memref.copy %x, %y : memref<2xf32> to memref<2xf32>
    ...   return
    ... }''', opt_level=0)
    >>> CpuProgram(module, "main")(np.array([1.0, 2.0], np.float32))
    array([1., 2.], dtype=float32)
    """

    cpu_module: CpuModule
    """The JIT-compiled module (LLVM IR, optimized IR, assembly, every function)."""
    entry: str
    """The function a call runs."""
    output_shapes: tuple[tuple[int, ...], ...] | None = None
    """The shape of each out-param, when the caller knows them (dynamic types need them)."""

    def __call__(self, *arrays: Any) -> Any:
        """Run ``@entry`` on ``arrays``; returns its out-params (one array or a tuple)."""
        return self.cpu_module[self.entry].run(*arrays, output_shapes=self.output_shapes)

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR tinycomp emitted."""
        return self.cpu_module.llvm_ir

    @property
    def optimized_ir(self) -> str:
        """The LLVM IR after optimization."""
        return self.cpu_module.optimized_ir

    def assembly(self, name: str | None = None) -> str:
        """The x86 assembly of function ``name`` (default: the entry function)."""
        return self.cpu_module.assembly(name or self.entry)


def compile_for_cpu(
    loops_module: Operation | str,
    entry: str = "main",
    result_shapes: Sequence[Any] | None = None,
    opt_level: int = 3,
    cpu: str | None = None,
) -> CpuProgram:
    """JIT-compile a loop-level module and return its entry as a ``CpuProgram``
    (steps 1-2 above). ``result_shapes`` is one shape per out-param, or
    ``CompiledProgram.result_shapes`` as it is (``(shape, dtype)`` pairs).

    >>> import numpy as np
    >>> program = compile_for_cpu('''func.func @main(%x: memref<?xf32>,
    ...     %y: memref<?xf32> {bufferize.result}) {
    ...   memref.copy %x, %y : memref<?xf32> to memref<?xf32>
    ...   return
    ... }''', result_shapes=[((3,), np.dtype("float32"))], opt_level=0)
    >>> program(np.arange(3, dtype=np.float32)), program.output_shapes
    (array([0., 1., 2.], dtype=float32), ((3,),))
    """
    cpu_module = jit(loops_module, opt_level=opt_level, cpu=cpu)
    if entry not in cpu_module.functions:
        known = ", ".join(f"@{name}" for name in cpu_module.functions) or "none"
        raise CodegenError(f"no public function @{entry} to run; the module has {known}")
    shapes = None
    if result_shapes is not None:
        shapes = tuple(
            tuple(item[0]) if _is_shape_and_dtype(item) else tuple(item) for item in result_shapes
        )
    return CpuProgram(cpu_module, entry, shapes)


def _is_shape_and_dtype(item: Any) -> bool:
    """``((4, 8), dtype('float32'))`` rather than ``(4, 8)``."""
    return len(item) == 2 and isinstance(item[0], (tuple, list))
