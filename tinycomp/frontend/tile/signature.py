"""A launch's arguments: which are arrays, scalars and constexprs, and their types.

``bind(kernel, args, kwargs)`` matches the launch arguments to the kernel's parameters
(positionally, then by keyword) and sorts them:

* a numpy array: a flat buffer, ``memref<?xT>`` of its dtype (C-contiguous, since the
  kernel sees it as a pointer to its first element and computes offsets from the
  strides ``element_strides`` gives);
* a Python ``int`` (``i32``, ``i64`` if it does not fit), ``float`` (``f32``), ``bool``
  (``i1``) or a numpy scalar (its own dtype): a scalar argument;
* a ``constexpr`` parameter: its Python value, part of the specialisation key.

>>> import numpy as np
>>> element_strides(np.zeros((3, 5), np.float32))
(5, 1)
>>> print(scalar_type(7), scalar_type(2.5), scalar_type(np.float16(1)))
i32 f32 f16
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinycomp.frontend.simt.errors import KernelArgumentError
from tinycomp.frontend.tensor import TraceError
from tinycomp.frontend.tracer import ir_element_type
from tinycomp.ir.types import DYNAMIC, MemRefType, Type, f32, i1, i32, i64

__all__ = ["BoundArguments", "bind", "element_strides", "scalar_type"]


def element_strides(array: np.ndarray) -> tuple[int, ...]:
    """The strides of ``array`` in elements (numpy gives bytes): what a kernel adds to
    an offset to move one step along each dimension."""
    return tuple(int(s) // array.itemsize for s in array.strides)


def scalar_type(value: object) -> Type | None:
    """The IR type of a scalar launch argument, ``None`` if it is not one."""
    if isinstance(value, np.generic):  # before float: np.float64 is a float too
        return ir_element_type(value.dtype)
    if isinstance(value, bool):
        return i1
    if isinstance(value, int):
        return i32 if -(2**31) <= value < 2**31 else i64
    if isinstance(value, float):
        return f32
    return None


def _element_type(kernel: str, parameter: str, value: object) -> Type:
    """The IR type of a scalar or a dtype, or an error naming the parameter."""
    try:
        found = scalar_type(value) if not isinstance(value, np.dtype) else ir_element_type(value)
    except TraceError as error:
        message = str(error).removeprefix("trace: ")
        raise KernelArgumentError(
            f"kernel {kernel!r}: argument {parameter}: {message}", kernel
        ) from None
    assert found is not None
    return found


@dataclass
class BoundArguments:
    """The launch arguments sorted by kind, in parameter order."""

    runtime: dict[str, object]
    """Array and scalar arguments by parameter name."""
    types: dict[str, Type]
    """Their IR types."""
    constexprs: dict[str, object]
    """Constexpr parameter -> its Python value."""

    def key(self) -> tuple:
        """What selects one specialisation: the types and the constexpr values."""
        types = tuple((n, str(t)) for n, t in self.types.items())
        values = tuple((n, type(v).__name__, v) for n, v in self.constexprs.items())
        return types, values


def bind(
    name: str, parameters: list[str], constexpr_names: set[str], args: tuple, kwargs: dict
) -> BoundArguments:
    """Match ``args`` and ``kwargs`` to ``parameters`` and type them (see above).

    >>> x = np.zeros(4, np.float32)
    >>> bound = bind("k", ["x", "n", "BLOCK"], {"BLOCK"}, (x, 4), {"BLOCK": 2})
    >>> [str(t) for t in bound.types.values()], bound.constexprs
    (['memref<?xf32>', 'i32'], {'BLOCK': 2})
    """
    if len(args) > len(parameters):
        raise KernelArgumentError(
            f"kernel {name!r} takes {len(parameters)} arguments "
            f"({', '.join(parameters)}), got {len(args)}",
            name,
        )
    values = dict(zip(parameters, args, strict=False))
    for key, value in kwargs.items():
        if key not in parameters:
            raise KernelArgumentError(
                f"kernel {name!r} has no parameter {key!r} (it has: {', '.join(parameters)})", name
            )
        if key in values:
            raise KernelArgumentError(f"kernel {name!r}: {key!r} is given twice", name)
        values[key] = value
    missing = [p for p in parameters if p not in values]
    if missing:
        kinds = ["constexpr " + p if p in constexpr_names else p for p in missing]
        raise KernelArgumentError(
            f"kernel {name!r}: missing {', '.join(kinds)} (give constexprs as keywords: BLOCK=256)",
            name,
        )
    runtime, types, constexprs = {}, {}, {}
    for parameter in parameters:
        value = values[parameter]
        if parameter in constexpr_names:
            if not isinstance(value, (bool, int, float)):
                raise KernelArgumentError(
                    f"kernel {name!r}: constexpr {parameter} must be a "
                    f"Python int, float or bool, got {value!r}",
                    name,
                )
            constexprs[parameter] = value
        elif isinstance(value, np.ndarray):
            if not value.flags.c_contiguous:
                raise KernelArgumentError(
                    f"kernel {name!r}: array {parameter} must be "
                    "C-contiguous (pass np.ascontiguousarray(...))",
                    name,
                )
            runtime[parameter] = value
            types[parameter] = MemRefType((DYNAMIC,), _element_type(name, parameter, value.dtype))
        elif isinstance(value, (bool, int, float, np.generic)):
            runtime[parameter] = value
            types[parameter] = _element_type(name, parameter, value)
        else:
            raise KernelArgumentError(
                f"kernel {name!r}: argument {parameter} must be a numpy "
                f"array or a number, got {type(value).__name__}",
                name,
            )
    return BoundArguments(runtime, types, constexprs)
