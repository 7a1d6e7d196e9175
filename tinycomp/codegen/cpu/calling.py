"""Calling JIT-compiled code on numpy arrays: checks, then the packed interface.

A ``CpuFunction`` is one function of a JIT-compiled module. Calling it, step by step:

1. Check the arguments against the tinycomp signature (``argument_checks.py``): one
   per parameter; a memref parameter takes a numpy array of the element's dtype, rank
   and static sizes, with the strides the type promises (an input that lacks them is
   passed as a C-contiguous copy); a scalar parameter takes a number that fits.
2. Describe each array as the memref ABI wants it (``llvm/descriptor.py``): its data
   pointer (twice: allocated and aligned), offset, shape, and strides in *elements*
   (numpy counts bytes), each in an 8-byte slot, with an array of pointers to the
   slots (plus one slot per result).
3. Call ``@_mlir_<name>`` (``packed.py``) and read the results back from their slots.

Everything in steps 1 and 2 that depends only on the arrays' shapes, dtypes and strides
is done once per such *signature* and kept as a ``CallPlan`` (``call_plan.py``); a call
with a signature seen before only writes the data pointers and the scalars, checks what
can change between calls, and calls.

``run`` is the caller of a bufferized function (like ``run_bufferized`` for the
interpreter): it allocates the out-params marked ``{bufferize.result}`` and returns
them. Float out-params start as NaN, so an element the code never writes shows up
in any comparison instead of passing as a leftover zero (the interpreter goes further
and tracks initialisation; native code cannot).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.codegen.cpu.argument_checks import check_memref_argument, check_scalar
from tinycomp.codegen.cpu.call_plan import MISALIGNED, CallPlan
from tinycomp.codegen.errors import CodegenError
from tinycomp.dialects.func.out_params import call_out_params, out_param_positions
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.ir.types import DYNAMIC, FloatType, MemRefType, Type

__all__ = ["CpuFunction"]

_PACKED_CALL = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_MAX_PLANS = 64
"""Signatures kept per function (a function called on ever new shapes starts over)."""


class CpuFunction:
    """A native function of a ``CpuModule``, callable on numpy arrays (see above).

    >>> import numpy as np
    >>> from tinycomp.codegen.cpu import jit
    >>> module = jit('''func.func @first(%x: memref<3xi32>) -> i32 {
    ...   %c0 = arith.constant 0 : index
    ...   %v = memref.load %x[%c0] : memref<3xi32>
    ...   return %v : i32
    ... }''', opt_level=0)
    >>> function = module["first"]
    >>> function, int(function(np.array([7, 8, 9], np.int32)))
    (<CpuFunction @first(memref<3xi32>) -> (i32)>, 7)
    """

    def __init__(self, func_op: Operation, address: int, engine: Any = None):
        self.op = func_op
        """The ``func.func`` the code was compiled from."""
        self.name: str = func_op.attributes["sym_name"].value
        """The function's name (without ``@``)."""
        function_type = func_op.attributes["function_type"].type
        self.parameter_types: tuple[Type, ...] = tuple(function_type.inputs)
        """The tinycomp types of the parameters."""
        self.result_types: tuple[Type, ...] = tuple(function_type.results)
        """The tinycomp types of the (scalar) results."""
        self.parameter_names: list[str] = [
            argument.name_hint or f"arg{i}" for i, argument in enumerate(func_op.arguments)
        ]
        """The tinycomp names of the parameters, for messages."""
        self.out_params: list[int] = out_param_positions(func_op)
        """Positions of the parameters marked ``{bufferize.result}``."""
        self._descriptions = [
            f"argument #{position} (%{name}: {t}) of @{self.name}"
            for position, (name, t) in enumerate(
                zip(self.parameter_names, self.parameter_types, strict=True)
            )
        ]  # for messages, printed once: calls are hot
        self._memref_positions = [
            position for position, t in enumerate(self.parameter_types) if isinstance(t, MemRefType)
        ]
        self._all_memrefs = len(self._memref_positions) == len(self.parameter_types)
        self._plans: dict[Any, CallPlan] = {}  # by signature (call_plan.py)
        self._outputs: dict[Any, tuple] = {}  # run's out-params, by inputs and shapes
        self._call = _PACKED_CALL(address)
        self._engine = engine  # the code lives as long as its execution engine: keep it

    def __repr__(self) -> str:
        params = ", ".join(str(t) for t in self.parameter_types)
        results = ", ".join(str(t) for t in self.result_types)
        return f"<CpuFunction @{self.name}({params}) -> ({results})>"

    # -- calls -------------------------------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        """Call with one argument per parameter (out-params included); returns the
        scalar result, a tuple of several, or ``None``."""
        if len(args) != len(self.parameter_types):
            raise CodegenError(
                f"@{self.name} takes {len(self.parameter_types)} arguments "
                f"({', '.join(map(str, self.parameter_types))}), got {len(args)}"
            )
        try:  # self._signature(args), inlined: calls are hot
            key = tuple([(type(a), a.shape, a.strides, a.dtype) for a in self._memrefs_of(args)])
        except AttributeError:
            key = None
        plan = self._plans.get(key)
        if plan is not None:
            result = plan.call(self._call, args)
            if result is not MISALIGNED:
                return result
        return self._plan(args).call(self._call, args)

    def _signature(self, args: Sequence[Any]) -> Any:
        """What a plan depends on: the type, shape, strides and dtype of every memref
        argument (``None`` if one is not even an array)."""
        try:
            return tuple([(type(a), a.shape, a.strides, a.dtype) for a in self._memrefs_of(args)])
        except AttributeError:
            return None

    def _memrefs_of(self, args: Sequence[Any]) -> Sequence[Any]:
        """The arguments passed for memref parameters."""
        if self._all_memrefs:
            return args
        return [args[position] for position in self._memref_positions]

    def _plan(self, args: Sequence[Any]) -> CallPlan:
        """Check ``args`` from scratch (step 1) and make their plan, kept for the next
        call with the same signature."""
        copies = {
            position: check_memref_argument(
                self._describe(position),
                args[position],
                self.parameter_types[position],
                position in self.out_params,
            )
            for position in self._memref_positions
        }
        for position, t in enumerate(self.parameter_types):
            if not isinstance(t, MemRefType):
                check_scalar(self._describe(position), args[position], t)
        plan = CallPlan(
            self.parameter_types,
            self.result_types,
            args,
            copies,
            self.out_params,
            self._describe,
        )
        if all(args[position].flags.aligned for position in self._memref_positions):
            if len(self._plans) >= _MAX_PLANS:
                self._plans.clear()
            self._plans[self._signature(args)] = plan  # a misaligned array is not typical
        return plan

    def run(self, *inputs: Any, output_shapes: Sequence[Sequence[int]] | None = None) -> Any:
        """Call a bufferized function: allocate its out-params (NaN-filled for floats),
        pass ``inputs`` for the other parameters, return the out-params (after any
        scalar results), one array or a tuple.

        Out-params are the parameters marked ``{bufferize.result}``, else the trailing
        ones beyond ``inputs``; ``output_shapes`` gives their shapes where the types
        have dynamic sizes.
        """
        try:  # the shapes as given, if hashable (``CpuProgram`` passes tuples): calls are hot
            planned = self._outputs.get((len(inputs), output_shapes))
        except TypeError:
            output_shapes = tuple(map(tuple, output_shapes))  # lists: made hashable
            planned = self._outputs.get((len(inputs), output_shapes))
        if planned is None:
            outputs = self._plan_outputs(len(inputs), output_shapes)
            trailing = all(o is None for o in outputs[: len(inputs)])
            planned = (outputs, outputs[len(inputs) :] if trailing else None)
            if len(self._outputs) >= _MAX_PLANS:
                self._outputs.clear()
            self._outputs[(len(inputs), output_shapes)] = planned
        outputs, trailing_outputs = planned
        if trailing_outputs is not None:  # inputs, then out-params: no per-argument loop
            out_arrays = [np.full(shape, fill, dtype) for shape, dtype, fill in trailing_outputs]
            result = self(*inputs, *out_arrays)
        else:
            given = iter(inputs)
            args, out_arrays = [], []
            for output in outputs:
                if output is None:
                    args.append(next(given))
                    continue
                shape, dtype, fill = output
                array = np.full(shape, fill, dtype)
                args.append(array)
                out_arrays.append(array)
            result = self(*args)
        if result is None:
            return out_arrays[0] if len(out_arrays) == 1 else (tuple(out_arrays) or None)
        values = [*result, *out_arrays] if isinstance(result, tuple) else [result, *out_arrays]
        return values[0] if len(values) == 1 else tuple(values)

    def _plan_outputs(self, given: int, output_shapes: Sequence[Sequence[int]] | None) -> list:
        """For ``run``: per parameter, ``None`` (an input) or the ``(shape, dtype, fill)``
        of the out-param to allocate; worked out once per number of inputs and shapes."""
        count = len(self.parameter_types)
        outs = call_out_params(self.op, given)  # the func dialect's convention
        if given + len(outs) != count:
            raise CodegenError(
                f"@{self.name} takes {count - len(outs)} arguments besides its "
                f"{len(outs)} out-params, got {given}"
            )
        shapes = list(output_shapes) if output_shapes is not None else [None] * len(outs)
        if len(shapes) != len(outs):
            raise CodegenError(f"expected {len(outs)} output shapes, got {len(shapes)}")
        return [
            _output(self, position, t, shapes[outs.index(position)]) if position in outs else None
            for position, t in enumerate(self.parameter_types)
        ]

    def _describe(self, position: int) -> str:
        return self._descriptions[position]


def _output(function: CpuFunction, position: int, t: Type, shape) -> tuple:
    """The ``(shape, dtype, fill)`` of a fresh out-param for ``run``: NaN for floats,
    zeros otherwise (an element the code never writes shows up in any comparison)."""
    what = function._describe(position)
    if not isinstance(t, MemRefType):
        raise CodegenError(f"{what}: expected a memref out-param")
    if shape is None:
        if DYNAMIC in t.shape:
            raise CodegenError(f"{what}: pass its shape in output_shapes (the type is dynamic)")
        shape = t.shape
    shape = tuple(int(size) for size in shape)
    if len(shape) != t.rank or any(
        want is not DYNAMIC and want != got for want, got in zip(t.shape, shape, strict=True)
    ):
        raise CodegenError(f"{what}: got the output shape {shape}")
    dtype = to_numpy_dtype(t.element_type)
    fill = np.nan if dtype.kind == "f" or isinstance(t.element_type, FloatType) else 0
    return shape, dtype, fill
