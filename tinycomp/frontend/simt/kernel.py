"""``@kernel``: a Python function as a CUDA-style GPU kernel, compiled once per signature.

``kernel(fn)`` reads ``fn``'s source and returns a ``Kernel``. ``specialize(*args)``
translates it for the types of those launch arguments (``signature.py``) into a
``gpu.module @kernels`` holding one ``gpu.func ... kernel``, and keeps the module per
signature. ``gpu.launch(kernel, grid, block, args)`` runs it; calling the kernel like a
function is an error that says so.

>>> import numpy as np
>>> from tinycomp.frontend.simt import block_dim, block_idx, thread_idx
>>> @kernel
... def saxpy(a, x, y, n):
...     i = block_idx.x * block_dim.x + thread_idx.x
...     if i < n:
...         y[i] = a * x[i] + y[i]
>>> x = np.ones(8, np.float32)
>>> print(saxpy.signature_of(np.float32(2.0), x, x, 8))
(f32, memref<?xf32>, memref<?xf32>, i32)
>>> saxpy.specialize(2.0, x, x, 8) is saxpy.specialize(3.0, x, x, 5)
True
"""

from __future__ import annotations

from collections.abc import Callable

from tinycomp.frontend.simt.errors import KernelSource, KernelSyntaxError
from tinycomp.frontend.simt.generator import generate_kernel
from tinycomp.frontend.simt.signature import argument_types, signature_key
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.printer import print_ir

__all__ = ["Kernel", "KernelSignature", "kernel"]


class KernelSignature(tuple):
    """The parameter types of one specialization, printed as ``(f32, memref<?xf32>)``."""

    def __str__(self) -> str:
        return "(" + ", ".join(str(t) for t in self) + ")"


class Kernel:
    """A kernel written in Python: ``name``, ``source``, and its IR per signature."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self._source = KernelSource.from_function(fn)
        self.name = self._source.name
        """The kernel's name (the function's)."""
        self.source = (self._source.file, self._source.first_line)
        """Where it is defined: (file, first line)."""
        self.parameters = [argument.arg for argument in self._source.function.args.args]
        """The parameter names."""
        self._check_parameters()
        self._modules: dict[tuple[str, ...], ModuleOp] = {}

    def _check_parameters(self) -> None:
        arguments = self._source.function.args
        extras = [arguments.vararg, arguments.kwarg, *arguments.kwonlyargs, *arguments.posonlyargs]
        if any(extra is not None for extra in extras) or arguments.defaults:
            raise self._source.error(
                None, "a kernel takes plain positional parameters (no *args, **kwargs, "
                "keyword-only parameters or defaults)",
            )  # fmt: skip

    def signature_of(self, *args: object) -> KernelSignature:
        """The parameter types launching with ``args`` gives (the cache key)."""
        return KernelSignature(argument_types(self.name, self.parameters, args))

    def specialize(self, *args: object) -> ModuleOp:
        """The module of this kernel for the types of ``args`` (built once per signature;
        the same module object is returned each time, so copy it before changing it)."""
        types = list(self.signature_of(*args))
        key = signature_key(types)
        if key not in self._modules:
            self._modules[key] = generate_kernel(self._source, self.fn, types)
        return self._modules[key]

    def ir(self, *args: object) -> str:
        """The IR text of ``specialize(*args)``."""
        return print_ir(self.specialize(*args))

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise KernelSyntaxError(
            f"kernel {self.name!r} cannot be called like a function; launch it with "
            "gpu.launch(kernel, grid, block, args)",
            self.name,
        )

    def __repr__(self) -> str:
        return f"<gpu kernel {self.name!r} ({', '.join(self.parameters)})>"


def kernel(fn: Callable) -> Kernel:
    """Mark ``fn`` as a GPU kernel (use it as the decorator ``@gpu.kernel``).

    >>> @kernel
    ... def fill(out, value):
    ...     out[0] = value
    >>> fill
    <gpu kernel 'fill' (out, value)>
    """
    return Kernel(fn)
