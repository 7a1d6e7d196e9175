"""``@kernel``: a Python function as a Triton-style tile kernel.

``kernel(fn)`` reads ``fn``'s source and returns a ``TileKernel``. Indexing it with a
grid and calling it launches it on the reference interpreter; ``ir(...)`` and
``specialize(...)`` give the traced program for one set of launch arguments (its
types and constexpr values pick the specialisation, built once and kept).

>>> import numpy as np
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> from tinycomp.frontend.tile.values import constexpr
>>> @kernel
... def double(x, n, BLOCK: constexpr):
...     offs = tm.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tm.store(x + offs, tm.load(x + offs, mask=offs < n) * 2.0, mask=offs < n)
>>> x = np.arange(5, dtype=np.float32)
>>> double[(2,)](x, 5, BLOCK=4)
>>> x
array([0., 2., 4., 6., 8.], dtype=float32)
>>> double.specialize(x, 5, BLOCK=4) is double.specialize(x, 3, BLOCK=4)
True
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from tinycomp.frontend.simt.errors import KernelSource
from tinycomp.frontend.tile.generator import generate
from tinycomp.frontend.tile.gpu_launch import TileLaunch
from tinycomp.frontend.tile.gpu_launch import launch_gpu as _launch_gpu
from tinycomp.frontend.tile.launch import Grid, run_grid
from tinycomp.frontend.tile.layout_choice import LayoutFor
from tinycomp.frontend.tile.signature import bind
from tinycomp.frontend.tile.values import constexpr
from tinycomp.ir import ModuleOp
from tinycomp.ir.printer import print_ir

__all__ = ["TileKernel", "kernel"]


class TileKernel:
    """A tile kernel: its source, its parameters and its specialisations."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self._source = KernelSource.from_function(fn)
        self.name = self._source.name
        """The kernel's name (the function's)."""
        arguments = self._source.function.args
        extras = [arguments.vararg, arguments.kwarg, *arguments.kwonlyargs]
        if any(e is not None for e in extras) or arguments.defaults or arguments.posonlyargs:
            raise self._source.error(
                None,
                "a tile kernel takes plain parameters (no *args, "
                "**kwargs, keyword-only parameters or defaults)",
            )
        self.parameters = [a.arg for a in arguments.args]
        """The parameter names."""
        self.constexprs = {a.arg for a in arguments.args if _is_constexpr(a.annotation)}
        """The parameters annotated ``tile.constexpr`` (read from the source, so string
        annotations count too)."""
        self._modules: dict[tuple, ModuleOp] = {}

    def specialize(self, *args: object, **kwargs: object) -> ModuleOp:
        """The module for these launch arguments (one per argument types and constexpr
        values; the same object each time, so copy it before changing it).

        >>> import numpy as np
        >>> from tinycomp.frontend.tile import memory_builtins as tm
        >>> @kernel
        ... def first(x, n):
        ...     tm.store(x + tm.program_id(0), n)
        >>> module = first.specialize(np.zeros(3, np.float16), 3)
        >>> print(module.body.first_op.function_type)
        (memref<?xf16>, i32, index) -> ()
        """
        bound = bind(self.name, self.parameters, self.constexprs, args, kwargs)
        key = bound.key()
        if key not in self._modules:
            self._modules[key] = generate(self._source, self.fn, bound.types, bound.constexprs)
        return self._modules[key]

    def ir(self, *args: object, **kwargs: object) -> str:
        """The IR text of ``specialize(*args, **kwargs)``.

        >>> import numpy as np
        >>> @kernel
        ... def nothing(x, BLOCK: constexpr):
        ...     pass
        >>> print(nothing.ir(np.zeros(2, np.float32), BLOCK=2).splitlines()[1].strip())
        func.func @nothing(%x: memref<?xf32>) {
        """
        return print_ir(self.specialize(*args, **kwargs))

    def run(self, grid: Grid, *args: object, **kwargs: object) -> None:
        """Launch on ``grid`` (what ``kernel[grid](*args, **kwargs)`` does).

        >>> import numpy as np
        >>> from tinycomp.frontend.tile import memory_builtins as tm
        >>> @kernel
        ... def seven(x):
        ...     tm.store(x, 7.0)
        >>> x = np.zeros(2, np.float32)
        >>> seven.run((1,), x)
        >>> x
        array([7., 0.], dtype=float32)
        """
        bound = bind(self.name, self.parameters, self.constexprs, args, kwargs)
        module = self.specialize(*args, **kwargs)
        run_grid(module, self.name, bound, grid)

    def launch_gpu(
        self, grid: Grid, *args: object, num_warps: int = 4, preset: str = "classroom",
        layout_for: LayoutFor | None = None, **kwargs: object,
    ) -> TileLaunch:  # fmt: skip
        """Run on the SIMT simulator instead: one block of ``32 * num_warps`` threads per
        program, each tile spread over them by its blocked layout (``gpu_launch.py``;
        ``layout_for(shape, num_warps)`` chooses the layouts instead of the default)."""
        return _launch_gpu(
            self, grid, *args, num_warps=num_warps, preset=preset, layout_for=layout_for,
            **kwargs,
        )  # fmt: skip

    def __getitem__(self, grid: Grid) -> Callable[..., None]:
        def launch(*args: object, **kwargs: object) -> None:
            self.run(grid, *args, **kwargs)

        return launch

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            f"tile kernel {self.name!r} is launched on a grid: {self.name}[(programs,)](...)"
        )

    def __repr__(self) -> str:
        return f"<tile kernel {self.name!r} ({', '.join(self.parameters)})>"


def _is_constexpr(annotation: ast.expr | None) -> bool:
    """True for the annotations ``constexpr`` and ``<module>.constexpr``."""
    if isinstance(annotation, ast.Name):
        return annotation.id == constexpr.__name__
    if isinstance(annotation, ast.Attribute):
        return annotation.attr == constexpr.__name__
    return False


def kernel(fn: Callable) -> TileKernel:
    """Mark ``fn`` as a tile kernel (the decorator ``@tile.kernel``).

    >>> @kernel
    ... def nothing(x, BLOCK: constexpr):
    ...     pass
    >>> nothing
    <tile kernel 'nothing' (x, BLOCK)>
    """
    return TileKernel(fn)
