"""``trace(fn, *examples)``: run a numpy-like Python function on traced tensors and
return the tensor IR it recorded.

>>> import numpy as np
>>> from tinycomp.frontend import exp
>>> module = trace(lambda x: exp(x) * 2.0, np.ones((2, 3), np.float32))
>>> print(module.body.first_op.function_type)
(tensor<2x3xf32>) -> tensor<2x3xf32>

Steps:

1. Turn each example (a numpy array or a ``TensorSpec``) into a ``tensor<...>`` type.
2. Make ``func.func @main`` with one argument per example (named after ``fn``'s
   parameters where it has plain ones), and a ``TraceContext`` appending to its body.
3. Call ``fn`` with one ``Tensor`` per argument; every operation it does records ops.
4. ``fn`` returns a ``Tensor`` or a tuple of them: return those values, set the
   function's result types, wrap it in a module and verify it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from tinycomp.dialects.func import FuncOp, ReturnOp
from tinycomp.frontend.tensor import Tensor, TraceContext, TraceError, trace_error
from tinycomp.ir import Builder, ModuleOp, TypeAttr
from tinycomp.ir.types import FunctionType, RankedTensorType, Type, bf16, f16, f32, i1, i32, i64

_DTYPES: dict[np.dtype, Type] = {
    np.dtype(np.float32): f32,
    np.dtype(np.float16): f16,
    np.dtype(ml_dtypes.bfloat16): bf16,
    np.dtype(np.int32): i32,
    np.dtype(np.int64): i64,
    np.dtype(np.bool_): i1,
}


def ir_element_type(dtype) -> Type:
    """The IR element type of a numpy dtype (or of an IR type, returned as is).

    >>> print(ir_element_type(np.float32), ir_element_type("int32"))
    f32 i32
    """
    if isinstance(dtype, Type):
        return dtype
    try:
        key = np.dtype(dtype)
    except TypeError as error:
        raise TraceError(f"trace: expected a numpy dtype, got {dtype!r}") from error
    if key not in _DTYPES:
        known = ", ".join(str(k) for k in _DTYPES)
        raise TraceError(f"trace: expected one of the dtypes {known}, got {key}")
    return _DTYPES[key]


@dataclass(frozen=True)
class TensorSpec:
    """The shape and dtype of an argument, when no example array is at hand.

    >>> print(TensorSpec((4, 8), np.float32).type())
    tensor<4x8xf32>
    """

    shape: tuple[int, ...]
    """The static shape."""
    dtype: object = np.float32
    """A numpy dtype (``np.float32``, ``"float16"``, ...) or an IR type (``f32``)."""

    def type(self) -> RankedTensorType:
        """The ``tensor<...>`` type of this argument."""
        return RankedTensorType(tuple(int(s) for s in self.shape), ir_element_type(self.dtype))


def argument_type(example) -> RankedTensorType:
    """The IR type of one example argument (numpy array, numpy scalar or ``TensorSpec``)."""
    if isinstance(example, TensorSpec):
        return example.type()
    if isinstance(example, (np.ndarray, np.generic)):
        return RankedTensorType(tuple(example.shape), ir_element_type(example.dtype))
    raise TraceError(
        f"trace: expected numpy arrays or TensorSpec examples, got {type(example).__name__}"
    )


def _parameter_names(fn: Callable, count: int) -> list[str | None]:
    """The names of ``fn``'s first ``count`` positional parameters, where it has them."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [None] * count
    plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names: list[str | None] = [p.name if p.kind in plain else None for p in parameters[:count]]
    return names + [None] * (count - len(names))


def _check_arity(fn: Callable, count: int) -> None:
    """A ``TraceError`` when ``fn`` cannot be called with ``count`` positional tensors
    (rather than a ``TypeError`` from inside the call)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*range(count))
    except TypeError as error:
        name = getattr(fn, "__name__", "the function")
        raise TraceError(
            f"trace: {name}{signature} cannot take {count} example argument(s): {error}; "
            "pass one example array (or TensorSpec) per tensor parameter"
        ) from None


def trace(
    fn: Callable[..., Tensor | tuple[Tensor, ...]], *examples, name: str = "main"
) -> ModuleOp:
    """Trace ``fn`` on arguments shaped like ``examples``; return the verified module.

    >>> def mlp(x, w):
    ...     return (x @ w).sum(axis=0)
    >>> m = trace(mlp, TensorSpec((2, 3)), TensorSpec((3, 4)))
    >>> [op.name for op in m.body.first_op.body.entry_block.ops][-2:]
    ['linalg.generic', 'func.return']
    >>> trace(mlp, TensorSpec((2, 3)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tinycomp.frontend.tensor.TraceError: trace: mlp(x, w) cannot take 1 example argument(s): ...
    """
    _check_arity(fn, len(examples))
    input_types = [argument_type(e) for e in examples]
    function = FuncOp.build(name, FunctionType(tuple(input_types), ()))
    entry = function.body.entry_block
    for argument, hint in zip(entry.arguments, _parameter_names(fn, len(examples)), strict=True):
        argument.name_hint = hint
    context = TraceContext(Builder.at_end(entry))
    arguments = [context.wrap(a) for a in entry.arguments]
    returned = fn(*arguments)
    results = returned if isinstance(returned, (tuple, list)) else (returned,)
    for result in results:
        if not isinstance(result, Tensor) or result.context is not context:
            raise trace_error(
                "return",
                f"expected the traced function to return Tensors of this trace, "
                f"got {type(result).__name__}",
            )
    context.insert(ReturnOp.build([r.value for r in results]))
    function_type = FunctionType(tuple(input_types), tuple(r.type for r in results))
    function.attributes["function_type"] = TypeAttr(function_type)
    module = ModuleOp.build([function])
    module.verify()
    return module


__all__ = ["TensorSpec", "argument_type", "ir_element_type", "trace"]
