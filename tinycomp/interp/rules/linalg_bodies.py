"""The bodies of named linalg ops, built as IR when the op carries none.

MLIR gives every named op a region (``linalg.matmul``'s is ``c + a * b`` after casting
``a`` and ``b`` to ``c``'s type), and prints it in generic form. An op parsed from
tinycomp's custom syntax may come without it; ``build_body`` writes it with the arith
and math ops it stands for, so the interpreter runs named and generic ops through the
same engine and the same rules.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%a: tensor<2x3xf16>, %b: tensor<3x2xf16>, %c: tensor<2x2xf32>) {
...   %r = "linalg.matmul"(%a, %b, %c) <{operandSegmentSizes = array<i32: 2, 1>}> ({
...   }) : (tensor<2x3xf16>, tensor<3x2xf16>, tensor<2x2xf32>) -> tensor<2x2xf32>
...   return
... }''', verify=False)
>>> matmul = m.body.first_op.entry_block.first_op
>>> [op.name for op in build_body(matmul).blocks[0]]
['arith.extf', 'arith.extf', 'arith.mulf', 'arith.addf', 'linalg.yield']
"""

from __future__ import annotations

from tinycomp.interp.errors import op_error
from tinycomp.interp.rules.common import int_list
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import FloatType, IndexType, IntegerType, Type
from tinycomp.ir.values import Value

CONTRACTION_BODIES = ("matmul", "batch_matmul", "matvec", "vecmat", "dot", "conv_2d_nhwc_hwcf")
"""Named ops whose body is ``out + in0 * in1``."""

COPY_BODIES = ("fill", "copy", "transpose", "broadcast")
"""Named ops whose body yields the input."""

ELEMENTWISE_BODIES = {
    "add": ("arith.addf", "arith.addi"),
    "sub": ("arith.subf", "arith.subi"),
    "mul": ("arith.mulf", "arith.muli"),
    "div": ("arith.divf", "arith.divsi"),
    "max": ("arith.maximumf", "arith.maxsi"),
    "min": ("arith.minimumf", "arith.minsi"),
    "exp": ("math.exp", None),
    "log": ("math.log", None),
    "abs": ("math.absf", "math.absi"),
    "negf": ("arith.negf", None),
    "sqrt": ("math.sqrt", None),
    "rsqrt": ("math.rsqrt", None),
    "tanh": ("math.tanh", None),
    "erf": ("math.erf", None),
    "floor": ("math.floor", None),
    "ceil": ("math.ceil", None),
    "powf": ("math.powf", None),
}
"""Elementwise named ops: the (float, integer) op applied to the inputs."""


def has_body(op: Operation) -> bool:
    """True when the op carries a runnable body (a block ending in ``linalg.yield``)."""
    if not op.regions or not op.regions[0].blocks:
        return False
    last = op.regions[0].blocks[0].last_op
    return last is not None and last.name == "linalg.yield"


def build_body(op: Operation) -> Region:
    """The body region of a named op (see the module docstring)."""
    name = op.name.removeprefix("linalg.")
    types = [element_type(value.type) for value in op.operands]
    n_inputs = _input_count(op)
    out_type = types[n_inputs] if n_inputs < len(types) else None
    block = Block(types)
    arguments = block.arguments
    if out_type is None:
        raise op_error(op, "expected an output operand")
    if name in CONTRACTION_BODIES:
        lhs, rhs = (_cast(block, value, out_type) for value in arguments[:2])
        is_float = isinstance(out_type, FloatType)
        product = _append(block, "arith.mulf" if is_float else "arith.muli", [lhs, rhs], out_type)
        total = _append(
            block, "arith.addf" if is_float else "arith.addi", [arguments[2], product], out_type
        )
        result = total
    elif name in COPY_BODIES:
        result = _cast(block, arguments[0], out_type)
    elif name in ELEMENTWISE_BODIES:
        float_op, int_op = ELEMENTWISE_BODIES[name]
        chosen = float_op if isinstance(out_type, FloatType) else int_op
        if chosen is None:
            raise op_error(op, f"expected float operands for linalg.{name}, got {out_type}")
        inputs = [_cast(block, value, out_type) for value in arguments[:n_inputs]]
        result = _append(block, chosen, inputs, out_type)
    else:
        raise op_error(op, "expected a body region (a block ending in linalg.yield)")
    block.append(Operation.create("linalg.yield", [result]))
    return Region([block])


def _input_count(op: Operation) -> int:
    if "operandSegmentSizes" in op.attributes:
        return int_list(op, "operandSegmentSizes")[0]
    return len(op.operands) - 1


def _append(block: Block, name: str, operands: list[Value], result_type: Type) -> Value:
    return block.append(Operation.create(name, operands, [result_type])).results[0]


def _cast(block: Block, value: Value, target: Type) -> Value:
    """``value`` converted to ``target`` as MLIR's named ops do (signed for integers)."""
    source = value.type
    if source == target:
        return value
    source_float, target_float = isinstance(source, FloatType), isinstance(target, FloatType)
    if source_float and target_float:
        name = "arith.extf" if target.width > source.width else "arith.truncf"
    elif target_float:
        name = "arith.sitofp"
    elif source_float:
        name = "arith.fptosi"
    elif isinstance(source, IndexType) or isinstance(target, IndexType):
        name = "arith.index_cast"
    elif isinstance(source, IntegerType) and isinstance(target, IntegerType):
        name = "arith.extsi" if target.width > source.width else "arith.trunci"
    else:
        raise ValueError(f"cannot convert {source} to {target}")
    return _append(block, name, [value], target)


__all__ = ["CONTRACTION_BODIES", "COPY_BODIES", "ELEMENTWISE_BODIES", "build_body", "has_body"]
