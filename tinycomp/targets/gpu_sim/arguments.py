"""A kernel's arguments checked against its signature, and its buffers described.

Array arguments (memrefs) must be numpy arrays of the memref's rank and element dtype,
C-contiguous and writeable, with every static dimension matching; scalar arguments
(``i32``, ``i64``, ``index``, ``f32``, ``f16``, ``bf16``, ``i1``) are Python or numpy
numbers that fit the type. The workgroup attributions become shared buffers (placed one
after the other, 16-byte aligned, in the block's shared memory) and the private ones
local buffers.

>>> from tinycomp.ir import parse
>>> func = parse('''gpu.module @m {
...   gpu.func @k(%a: memref<?xf32>, %n: i32) kernel { gpu.return }
... }''').body.ops[0].body.ops[0]
>>> bound = bind_arguments(func, [np.zeros(4, np.float32), 4], "k")
>>> [(s.name, s.shape) for s in bound.specs], bound.scalars[0][1]
([('a', (4,))], np.int32(4))
>>> try:
...     bind_arguments(func, [np.zeros(4), 4], "k")
... except ArgumentError as error:
...     print(error)  # doctest: +ELLIPSIS
kernel 'k': argument 0 (%a) expected a numpy array of float32 (memref<?xf32>), got an array of ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tinycomp.interp.numerics import dtype_of
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FloatType, IndexType, IntegerType, MemRefType
from tinycomp.ir.values import Value
from tinycomp.targets.gpu_sim.errors import UNCHANGED, ArgumentError
from tinycomp.targets.gpu_sim.memory import BufferSpec
from tinycomp.targets.gpu_sim.op_classes import memory_space

__all__ = ["BoundArguments", "bind_arguments"]


@dataclass
class BoundArguments:
    """The buffers (arguments first, then attributions) and the scalar values."""

    specs: list[BufferSpec] = field(default_factory=list)
    by_value: dict[Value, BufferSpec] = field(default_factory=dict)
    arrays: dict[int, np.ndarray] = field(default_factory=dict)
    """Spec index -> the user's array."""
    scalars: list[tuple[Value, Any]] = field(default_factory=list)
    shared_bytes: int = 0


def _name(value: Value, position: int) -> str:
    return value.name_hint or f"arg{position}"


def _scalar(kernel: str, position: int, value: Value, given: Any) -> Any:
    t = value.type
    where = f"kernel '{kernel}': argument {position} (%{_name(value, position)})"
    dtype = dtype_of(t)
    if isinstance(t, (IntegerType, IndexType)):
        ok = isinstance(given, (int, np.integer)) and not (
            isinstance(given, bool) and not (isinstance(t, IntegerType) and t.width == 1)
        )
        if not ok:
            raise ArgumentError(f"{where} expected an integer for {t}, got {given!r}; {UNCHANGED}")
        if isinstance(t, IndexType):
            return int(given)
        if t.width == 1:
            return bool(given)
        info = np.iinfo(dtype)
        if not info.min <= int(given) <= info.max:
            raise ArgumentError(
                f"{where} expected a value that fits {t} ({info.min} to {info.max}), got "
                f"{int(given)}; {UNCHANGED}"
            )
        return dtype.type(given)
    if isinstance(t, FloatType):
        if not isinstance(given, (int, float, np.integer, np.floating)) or isinstance(given, bool):
            raise ArgumentError(f"{where} expected a number for {t}, got {given!r}; {UNCHANGED}")
        return np.asarray(given).astype(dtype)[()]
    raise ArgumentError(f"{where} has type {t}, which the simulator cannot pass; {UNCHANGED}")


def _array(kernel: str, position: int, value: Value, given: Any) -> BufferSpec:
    t: MemRefType = value.type  # type: ignore[assignment]
    dtype = dtype_of(t.element_type)
    if (
        isinstance(given, np.ndarray) and given.dtype == dtype and given.ndim == len(t.shape)
        and all(w is None or w == h for w, h in zip(t.shape, given.shape, strict=True))
        and given.flags.c_contiguous and given.flags.writeable
    ):  # fmt: skip
        return BufferSpec(_name(value, position), "global", tuple(given.shape), dtype)
    where = f"kernel '{kernel}': argument {position} (%{_name(value, position)})"
    if not isinstance(given, np.ndarray):
        raise ArgumentError(
            f"{where} expected a numpy array of {dtype} ({t}), got {type(given).__name__}; "
            f"{UNCHANGED}"
        )
    if given.dtype != dtype:
        raise ArgumentError(
            f"{where} expected a numpy array of {dtype} ({t}), got an array of {given.dtype}; "
            f"{UNCHANGED}"
        )
    if given.ndim != len(t.shape):
        raise ArgumentError(
            f"{where} expected an array of rank {len(t.shape)} ({t}), got shape {given.shape}; "
            f"{UNCHANGED}"
        )
    for dim, (want, have) in enumerate(zip(t.shape, given.shape, strict=True)):
        if want is not None and want != have:
            raise ArgumentError(
                f"{where} expected dimension {dim} to be {want} ({t}), got shape {given.shape}; "
                f"{UNCHANGED}"
            )
    what = "C-contiguous" if not given.flags.c_contiguous else "writeable"
    raise ArgumentError(
        f"{where} expected a {what} array (results are written in place), got one that is "
        f"not (use np.ascontiguousarray or a copy); {UNCHANGED}"
    )


def bind_arguments(
    func: Operation, args: list[Any] | tuple[Any, ...], kernel: str
) -> BoundArguments:
    """Check ``args`` against ``func``'s signature; describe every buffer."""
    params = list(func.arguments)  # type: ignore[attr-defined]
    if len(args) != len(params):
        signature = ", ".join(str(p.type) for p in params)
        raise ArgumentError(
            f"kernel '{kernel}': expected {len(params)} arguments ({signature}), got "
            f"{len(args)}; {UNCHANGED}"
        )
    bound = BoundArguments()
    for position, (value, given) in enumerate(zip(params, args, strict=True)):
        if isinstance(value.type, MemRefType):
            spec = _array(kernel, position, value, given)
            spec.index = len(bound.specs)
            bound.specs.append(spec)
            bound.by_value[value] = spec
            bound.arrays[spec.index] = given
        else:
            bound.scalars.append((value, _scalar(kernel, position, value, given)))
    offset = 0
    for group in (func.workgroup_attributions, func.private_attributions):  # type: ignore[attr-defined]
        for k, value in enumerate(group):
            t = value.type
            if not isinstance(t, MemRefType) or any(d is None for d in t.shape):
                raise ArgumentError(
                    f"kernel '{kernel}': attribution {k} needs a static shape, got {t}"
                )
            space = memory_space(t)
            name = value.name_hint or f"{space}{k}"
            spec = BufferSpec(name, space, tuple(t.shape), dtype_of(t.element_type))
            if space == "shared":
                offset = -(-offset // 16) * 16
                spec.base_bytes = offset
                offset += spec.nbytes
            spec.index = len(bound.specs)
            bound.specs.append(spec)
            bound.by_value[value] = spec
    bound.shared_bytes = offset
    return bound
