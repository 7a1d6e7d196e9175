"""FLOPs and bytes of every kernel of a program, counted from its linalg ops.

A ``linalg`` op states all a cost model needs: its loop sizes (from the operand shapes
and indexing maps), the scalar work done at each point of the loops (the payload), and
the tensors it reads and writes. So a program's cost is a walk over its linalg ops:

1. FLOPs of one op = (number of points of its loop nest) x (floating-point ops in its
   payload). The counting convention is the roofline's (``tinycomp.perf.roofline``):
   an add, multiply, compare, divide, ``max`` or a ``math`` function is one FLOP;
   constants, casts and selects are free.
2. Bytes of one op = compulsory traffic: each distinct input tensor read once, each
   output written once, and an output also read once when the payload reads its old
   value (a reduction's accumulator, ``C += A @ B``). Scalars are free.
3. A program's traffic is the sum over its kernels: every tensor passed from one
   kernel to the next is written by the first and read back by the second. That is
   what fusion removes.

>>> import numpy as np, tinycomp
>>> from tinycomp.frontend import exp
>>> module = tinycomp.trace(lambda x: exp(x) * 2.0, np.ones((4, 8), np.float32))
>>> [(c.name, c.flops, c.bytes) for c in kernel_costs(module)]
[('%exp', 32, 256), ('%mul', 32, 256)]
>>> program_bytes(module)
512
"""

from __future__ import annotations

import math

from tinycomp.ir import FloatType, to_numpy_dtype
from tinycomp.ir.dialects.linalg_base import StructuredOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import ShapedType
from tinycomp.ir.values import Value
from tinycomp.perf.roofline import KernelCost

__all__ = ["kernel_cost", "kernel_costs", "payload_flops", "program_bytes", "value_bytes"]

_FREE = {"arith.constant", "arith.select", "arith.extf", "arith.truncf", "arith.bitcast"}


def payload_flops(op: StructuredOp) -> int:
    """Floating-point ops in one execution of ``op``'s payload (step 1).

    >>> import numpy as np, tinycomp
    >>> m = tinycomp.trace(lambda a, b: a @ b, np.ones((2, 3), np.float32),
    ...                    np.ones((3, 4), np.float32))
    >>> matmul = [op for op in m.walk() if op.name == "linalg.matmul"][0]
    >>> payload_flops(matmul)    # one multiply, one add
    2
    """
    count = 0
    for inner in op.body.ops:
        if inner.name in _FREE or inner.name.startswith("linalg."):
            continue
        dialect = inner.name.split(".")[0]
        floating = any(isinstance(r.type, FloatType) for r in inner.results)
        if dialect == "math" or (dialect == "arith" and (floating or inner.name == "arith.cmpf")):
            count += 1
    return count


def value_bytes(value: Value) -> int:
    """Bytes of a tensor or memref value with a static shape; 0 for scalars.

    >>> import tinycomp
    >>> m = tinycomp.parse("func.func @f(%x: tensor<4x8xf16>) { return }")
    >>> value_bytes(m.body.first_op.entry_block.arguments[0])
    64
    """
    value_type = value.type
    if not isinstance(value_type, ShapedType):
        return 0
    if not value_type.has_static_shape:
        raise ValueError(f"expected a static shape to count bytes, found {value_type}")
    return value_type.num_elements * to_numpy_dtype(value_type.element_type).itemsize


def kernel_cost(op: StructuredOp) -> KernelCost:
    """The FLOPs and compulsory bytes of one linalg op (steps 1 and 2), named after
    its first result (or first output).

    >>> import numpy as np, tinycomp
    >>> m = tinycomp.trace(lambda x: x.sum(axis=1), np.ones((4, 8), np.float32))
    >>> for cost in kernel_costs(m):  # the fill of the accumulator, then the sum
    ...     print(cost.name, cost.flops, cost.bytes)
    linalg.fill 0 16
    %sum 32 160
    """
    points = math.prod(size for size in op.static_loop_sizes())
    read = sum(value_bytes(v) for v in dict.fromkeys(op.inputs))  # each tensor once
    written = sum(value_bytes(v) for v in op.outputs)
    read += sum(
        value_bytes(v)
        for position, v in enumerate(op.outputs, start=op.num_inputs)
        if op.payload_reads(position)
    )
    named = op.results[0] if op.results else op.outputs[0]
    name = f"%{named.name_hint}" if named.name_hint else op.name
    return KernelCost(name=name, flops=points * payload_flops(op), bytes=read + written)


def kernel_costs(module: Operation) -> list[KernelCost]:
    """``kernel_cost`` of every linalg op in ``module``, in program order."""
    return [kernel_cost(op) for op in module.walk() if isinstance(op, StructuredOp)]


def program_bytes(module: Operation) -> int:
    """Total compulsory bytes of all kernels (step 3): the traffic fusion reduces."""
    return sum(int(cost.bytes) for cost in kernel_costs(module))
