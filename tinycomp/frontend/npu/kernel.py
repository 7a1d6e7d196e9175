"""``@npu.kernel``: an Ascend-C-style Python function, traced into npu IR per launch.

The function takes the launch's arguments: each numpy array becomes a ``GlobalTensor``
(an array in GM), each Python ``int`` / ``float`` / ``bool`` stays a Python value (the
kernel is specialised to it, as a tiling parameter is), each numpy scalar becomes a
kernel argument of its type. ``kernel.specialize(*args)`` traces the function and
returns the module; launches with the same argument types and Python values reuse it.

A MIX kernel is traced twice, once per core kind (``npu.is_aic()`` says which), into
``@name_aic`` and ``@name_aiv``.

>>> import numpy as np
>>> from tinycomp import npu
>>> @npu.kernel
... def scale(x, y, n):
...     pipe = npu.TPipe()
...     q = npu.TQue(npu.VECIN)
...     pipe.init_buffer(q, 1, n * 2)
...     t = q.alloc_tensor(np.float16)
...     npu.data_copy(t, x, n)
...     q.enque(t)
...     t = q.deque(np.float16)
...     npu.muls(t, t, 3.0, n)
...     npu.set_flag("V", "MTE3", 0)
...     npu.wait_flag("V", "MTE3", 0)
...     npu.data_copy(y, t, n)
...     q.free_tensor(t)
>>> module = scale.specialize(np.ones(256, np.float16), np.zeros(256, np.float16), 256)
>>> [op.name for op in module.body.first_op.entry_block.ops][-4:]
['npu.copy', 'npu.set_flag', 'npu.wait_flag', 'func.return']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tinycomp.dialects.npu import KERNEL_TYPES
from tinycomp.frontend.npu.scalar import Scalar
from tinycomp.frontend.npu.tensors import GlobalTensor
from tinycomp.frontend.npu.trace import NpuKernelError, Trace
from tinycomp.frontend.simt.signature import SUPPORTED, element_type_of
from tinycomp.ir import MemRefType, ModuleOp, Type
from tinycomp.ir.attributes import StringAttr

__all__ = ["NpuKernel", "kernel"]


class NpuKernel:
    """A traced-per-launch NPU kernel (module docstring)."""

    def __init__(self, function: Callable[..., Any], kernel_type: str) -> None:
        if kernel_type not in KERNEL_TYPES:
            raise ValueError(
                f"@npu.kernel: expected kernel_type among {', '.join(KERNEL_TYPES)}, got "
                f"{kernel_type!r}"
            )
        self.function = function
        self.name = function.__name__
        self.kernel_type = kernel_type
        self.cache: dict[tuple, ModuleOp] = {}
        functools.update_wrapper(self, function)

    def __repr__(self) -> str:
        return f"<npu kernel {self.name} ({self.kernel_type})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"npu kernel '{self.name}' runs on the simulator: npu.launch({self.name}, args, "
            "block_num=...)"
        )

    def _key(self, args: Sequence[Any]) -> tuple:
        key = []
        for value in args:
            if isinstance(value, np.ndarray):
                key.append(("array", value.shape, value.dtype.str))
            elif isinstance(value, np.generic):
                key.append(("scalar", value.dtype.str))
            else:
                key.append(("python", type(value).__name__, value))
        return tuple(key)

    def _inputs(self, args: Sequence[Any]) -> list[Type]:
        inputs: list[Type] = []
        for position, value in enumerate(args):
            where = f"kernel '{self.name}', argument #{position}"
            if isinstance(value, np.ndarray):
                element = element_type_of(value.dtype)
                if element is None:
                    raise NpuKernelError(
                        f"{where}: expected an array of {SUPPORTED}, got {value.dtype}"
                    )
                inputs.append(MemRefType((max(value.size, 1),), element))
            elif isinstance(value, np.generic):
                element = element_type_of(value.dtype)
                if element is None:
                    raise NpuKernelError(
                        f"{where}: expected a scalar of {SUPPORTED}, got {value.dtype}"
                    )
                inputs.append(element)
            elif not isinstance(value, (int, float, bool, str, tuple)):
                raise NpuKernelError(
                    f"{where}: expected a numpy array, a numpy scalar or a Python number, got "
                    f"{type(value).__name__}"
                )
        return inputs

    def _trace_half(self, kind: str, args: Sequence[Any]) -> Any:
        inputs = self._inputs(args)
        mix = self.kernel_type.startswith("mix")
        name = f"{self.name}_{kind}" if mix else self.name
        trace = Trace.begin(name, inputs, kind=kind, kernel_type=self.kernel_type)
        if mix:
            trace.func.attributes["npu.kernel"] = StringAttr(self.name)
        arguments = iter(trace.func.entry_block.arguments)
        values: list[Any] = []
        for position, value in enumerate(args):
            if isinstance(value, np.ndarray):
                argument = next(arguments)
                argument.name_hint = f"arg{position}"
                values.append(GlobalTensor(argument, value.shape, value.dtype, f"arg{position}"))
            elif isinstance(value, np.generic):
                values.append(Scalar(next(arguments)))
            else:
                values.append(value)
        try:
            self.function(*values)
            return trace.finish()
        finally:
            from tinycomp.frontend.npu import trace as trace_module

            trace_module._ACTIVE.trace = None

    def specialize(self, *args: Any) -> ModuleOp:
        """The module for these arguments (traced once per argument types and values)."""
        key = self._key(args)
        if key not in self.cache:
            kinds = {"aiv": ("aiv",), "aic": ("aic",)}.get(self.kernel_type, ("aic", "aiv"))
            funcs = [self._trace_half(kind, args) for kind in kinds]
            self.cache[key] = ModuleOp.build(funcs)
        return self.cache[key]


def kernel(function: Callable[..., Any] | None = None, *, kernel_type: str = "aiv") -> Any:
    """``@npu.kernel`` or ``@npu.kernel(kernel_type="mix_1_2")`` (module docstring)."""
    if function is None:
        return lambda f: NpuKernel(f, kernel_type)
    return NpuKernel(function, kernel_type)
