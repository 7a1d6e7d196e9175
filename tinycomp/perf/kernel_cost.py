"""FLOPs and bytes of every kernel of a program, counted from its linalg ops.

A ``linalg`` op states all a cost model needs: its loop sizes (from the operand shapes
and indexing maps), the scalar work done at each point of the loops (the payload), and
the tensors it reads and writes. So a program's cost is a walk over its linalg ops:

1. FLOPs of one op = (number of points of its loop nest) x (ops in its payload). The
   counting convention is the roofline's (``tinycomp.perf.roofline``): every ``arith``
   or ``math`` op is one FLOP (an add, multiply, compare, divide, ``max``, ``exp``),
   except constants and casts, which only name or convert a value.
2. Bytes of one op = compulsory traffic, operand by operand, as if the caches were
   perfect. An operand's elements are its *footprint* over the whole loop nest (the box
   its indexing map touches: a convolution whose windows stop short of the image's
   last rows and columns never reads them).
   An input is read once if the payload uses it; an output is written once, and also
   read once when the payload uses its old value (a reduction's accumulator,
   ``C += A @ B``). Scalars live in registers and move nothing. Each operand counts on
   its own: ``ins(%x, %x)`` reads ``%x`` twice (fusion's deduplication removes such
   pairs).
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

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.cast import CastOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import bitwidth, element_type
from tinycomp.ir.types import ShapedType
from tinycomp.perf.roofline import KernelCost

__all__ = ["kernel_cost", "kernel_costs", "operand_bytes", "payload_flops", "program_bytes"]


def payload_flops(op: StructuredOp) -> int:
    """FLOPs in one execution of ``op``'s payload (step 1).

    >>> import numpy as np, tinycomp
    >>> m = tinycomp.trace(lambda a, b: a @ b, np.ones((2, 3), np.float32),
    ...                    np.ones((3, 4), np.float32))
    >>> matmul = [op for op in m.walk() if op.name == "linalg.matmul"][0]
    >>> payload_flops(matmul)    # one multiply, one add
    2
    """
    return sum(
        1
        for inner in op.body.ops
        if inner.name.startswith(("arith.", "math."))
        and not isinstance(inner, (ConstantOp, CastOp))
    )


def operand_bytes(op: StructuredOp, position: int) -> int:
    """Bytes of operand ``position``'s footprint over ``op``'s whole loop nest (step 2);
    0 for a scalar.

    >>> import numpy as np, tinycomp
    >>> m = tinycomp.trace(lambda x: x.sum(axis=1), np.ones((4, 8), np.float16))
    >>> reduction = [op for op in m.walk() if op.name == "linalg.generic"][0]
    >>> operand_bytes(reduction, 0), operand_bytes(reduction, 1)  # 4x8 in, 4x1 out
    (64, 8)
    """
    operand = op.operands[position]
    if not isinstance(operand.type, ShapedType):
        return 0
    sizes = op.static_loop_sizes()
    if None in sizes:
        raise ValueError(f"operand_bytes: '{op.name}' has dynamic loop sizes {sizes}")
    footprint = op.indexing_maps()[position].tile_footprint([0] * len(sizes), sizes)
    element_bytes = math.ceil(bitwidth(element_type(operand.type)) / 8)
    return math.prod(footprint.sizes) * element_bytes


def kernel_cost(op: StructuredOp, names: SSANames | None = None) -> KernelCost:
    """The FLOPs and compulsory bytes of one linalg op (steps 1 and 2), named after
    its first result (or first output) as ``print`` names it: pass the ``names`` of
    the module being printed (``kernel_costs`` does), or the op's name hint is used.

    >>> import numpy as np, tinycomp
    >>> m = tinycomp.trace(lambda x: x.sum(axis=1), np.ones((4, 8), np.float32))
    >>> for cost in kernel_costs(m):  # the fill of the accumulator, then the sum
    ...     print(cost.name, cost.flops, cost.bytes)
    %1 0 16
    %sum 32 160
    """
    sizes = op.static_loop_sizes()
    if None in sizes:
        raise ValueError(
            f"kernel_cost: '{op.name}' has dynamic loop sizes {sizes}; "
            "costs are counted for static shapes only"
        )
    points = math.prod(sizes)
    moved = 0
    for position in range(len(op.operands)):
        is_output = position >= op.num_inputs
        transfers = int(op.payload_reads(position)) + int(is_output)
        moved += transfers * operand_bytes(op, position)
    named = op.results[0] if op.results else op.outputs[0]
    if names is not None:
        name = names.value_name(named)
    else:
        name = f"%{named.name_hint}" if named.name_hint else op.name
    return KernelCost(name=name, flops=points * payload_flops(op), bytes=moved)


def kernel_costs(module: Operation) -> list[KernelCost]:
    """``kernel_cost`` of every linalg op in ``module``, in program order, each named
    as ``print(module)`` names its result."""
    names = SSANames(module, use_asm_names=True)
    return [kernel_cost(op, names) for op in module.walk() if isinstance(op, StructuredOp)]


def program_bytes(module: Operation) -> int:
    """Total compulsory bytes of all kernels (step 3): the traffic fusion reduces."""
    return sum(int(cost.bytes) for cost in kernel_costs(module))
