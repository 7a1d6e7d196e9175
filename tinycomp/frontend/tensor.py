"""The traced ``Tensor``: a stand-in for an array while a function is being traced.

``tinycomp.frontend.trace`` calls the user's function with ``Tensor`` objects instead of
numpy arrays. Each ``Tensor`` knows its static shape, its element type and the SSA
``Value`` it stands for; each operation on it (``x + y``, ``x.sum(axis=-1)``, ``a @ b``)
does not compute anything but appends ops to the function being built and returns a
new ``Tensor`` for the result. This module holds:

1. ``TraceError``, the one exception of the frontend, and ``user_location``, which
   finds the line of the user's program that a traced op came from;
2. ``TraceContext``, the state of one trace (the builder and its insertion point);
3. ``Tensor`` itself, whose operators forward to ``elementwise``, ``reductions`` and
   ``matmul``.

>>> from tinycomp.frontend import TensorSpec, trace
>>> seen = []
>>> def f(x):
...     y = x.sum(axis=0) * 2.0
...     seen.extend([x, y])
...     return y
>>> _ = trace(f, TensorSpec((2, 3)))
>>> seen
[Tensor(tensor<2x3xf32>), Tensor(tensor<3xf32>)]
"""

from __future__ import annotations

import inspect
import linecache
import os
from dataclasses import dataclass, field

from tinycomp.ir import Builder, Location, Operation
from tinycomp.ir.types import RankedTensorType, Type
from tinycomp.ir.values import Value

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The ``tinycomp`` package's folder: frames inside it are not the user's source line."""


class TraceError(Exception):
    """A shape or dtype error found while tracing; the message names the op, what was
    expected, what was found and the user's source line."""


def user_location() -> Location | None:
    """The innermost stack frame outside the ``tinycomp`` package: the user's line.

    >>> user_location().line > 0
    True
    """
    frame = inspect.currentframe()
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE_DIR + os.sep):
            return Location(frame.f_code.co_filename, frame.f_lineno, 1)
        frame = frame.f_back
    return None


def trace_error(op: str, message: str) -> TraceError:
    """A ``TraceError`` for ``op``: ``"add: <message>\\n  at file.py:12: y = x + w"``.

    >>> str(trace_error("add", "expected broadcastable shapes")).splitlines()[0]
    'add: expected broadcastable shapes'
    """
    location = user_location()
    text = f"{op}: {message}"
    if location is not None:
        source = linecache.getline(location.file, location.line).strip()
        text += f"\n  at {location.file}:{location.line}" + (f": {source}" if source else "")
    return TraceError(text)


@dataclass
class TraceContext:
    """The state of one trace: where new ops go (``builder``)."""

    builder: Builder
    """Inserts at the end of the traced function's entry block."""
    tensors: list[Tensor] = field(default_factory=list)
    """Every ``Tensor`` made in this trace, in order (handy when debugging)."""

    def insert(self, op: Operation) -> Operation:
        """Insert ``op`` at the end of the function, located at the user's line."""
        self.builder.location = user_location()
        return self.builder.insert(op)

    def wrap(self, value: Value, name_hint: str | None = None) -> Tensor:
        """A new ``Tensor`` for ``value``; ``name_hint`` names it in the printed IR."""
        if name_hint is not None and value.name_hint is None:
            value.name_hint = name_hint
        tensor = Tensor(value, self)
        self.tensors.append(tensor)
        return tensor


class Tensor:
    """A traced tensor: the SSA value of a ``tensor<...>`` type plus numpy-like methods.

    Operators record ops: ``+ - * /`` (numpy broadcasting, Python numbers allowed),
    unary ``-``, ``@`` (2-D or batched 3-D matmul), ``<`` and ``>`` (``i1`` tensors),
    ``.T``, ``transpose``, ``reshape``, the reductions ``sum``, ``max``, ``mean``, and
    ``conv2d`` (NHWC input, HWCF filter).
    """

    __array_priority__ = 1000  # numpy scalars on the left defer to our operators

    def __init__(self, value: Value, context: TraceContext) -> None:
        if not isinstance(value.type, RankedTensorType):
            raise TypeError(f"expected a ranked tensor value, got {value.type}")
        self.value = value
        """The SSA value this tensor stands for."""
        self.context = context
        """The trace this tensor belongs to."""

    @property
    def type(self) -> RankedTensorType:
        """The IR type, e.g. ``tensor<4x8xf32>``."""
        return self.value.type

    @property
    def shape(self) -> tuple[int, ...]:
        """The static shape."""
        return tuple(self.value.type.shape)

    @property
    def dtype(self) -> Type:
        """The element type (``f32``, ``i32``, ...)."""
        return self.value.type.element_type

    @property
    def ndim(self) -> int:
        """The rank."""
        return len(self.shape)

    def __repr__(self) -> str:
        return f"Tensor({self.type})"

    # The operators forward to the modules that build the IR. Those modules import this
    # one, so they are imported inside the methods (Python's usual way to break a cycle).
    def __add__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import add

        return add(self, other)

    def __radd__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import add

        return add(other, self)

    def __sub__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import subtract

        return subtract(self, other)

    def __rsub__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import subtract

        return subtract(other, self)

    def __mul__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import multiply

        return multiply(self, other)

    def __rmul__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import multiply

        return multiply(other, self)

    def __truediv__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import divide

        return divide(self, other)

    def __rtruediv__(self, other) -> Tensor:
        from tinycomp.frontend.elementwise import divide

        return divide(other, self)

    def __neg__(self) -> Tensor:
        from tinycomp.frontend.elementwise import negative

        return negative(self)

    def __matmul__(self, other) -> Tensor:
        from tinycomp.frontend.reductions import matmul

        return matmul(self, other)

    def __lt__(self, other) -> Tensor:
        from tinycomp.frontend.compare import less

        return less(self, other)

    def __gt__(self, other) -> Tensor:
        from tinycomp.frontend.compare import greater

        return greater(self, other)

    @property
    def T(self) -> Tensor:  # noqa: N802 (numpy's name)
        """The transpose with all dimensions reversed (``linalg.transpose``)."""
        from tinycomp.frontend.shapes import transpose

        return transpose(self)

    def transpose(self, *perm: int) -> Tensor:
        """``numpy.transpose``: see ``tinycomp.frontend.shapes.transpose``."""
        from tinycomp.frontend.shapes import transpose

        if len(perm) == 1 and not isinstance(perm[0], int):
            perm = tuple(perm[0])
        return transpose(self, perm or None)

    def reshape(self, *shape: int) -> Tensor:
        """``numpy.reshape``: see ``tinycomp.frontend.shapes.reshape``."""
        from tinycomp.frontend.shapes import reshape

        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        return reshape(self, shape)

    def conv2d(
        self, w: Tensor, stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0
    ) -> Tensor:
        """2-D convolution of this NHWC tensor with the HWCF filter ``w``: see
        ``tinycomp.frontend.conv.conv2d``."""
        from tinycomp.frontend.conv import conv2d

        return conv2d(self, w, stride=stride, padding=padding)

    def sum(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.sum``: see ``tinycomp.frontend.reductions.sum``."""
        from tinycomp.frontend.reductions import sum as reduce_sum

        return reduce_sum(self, axis, keepdims)

    def max(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.max``: see ``tinycomp.frontend.reductions.max``."""
        from tinycomp.frontend.reductions import max as reduce_max

        return reduce_max(self, axis, keepdims)

    def mean(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.mean``: see ``tinycomp.frontend.reductions.mean``."""
        from tinycomp.frontend.reductions import mean

        return mean(self, axis, keepdims)


__all__ = ["Tensor", "TraceContext", "TraceError", "trace_error", "user_location"]
