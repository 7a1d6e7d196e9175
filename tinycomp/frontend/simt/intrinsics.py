"""Calls in a kernel: the gpu markers, ``math`` functions and the few builtins, as IR.

==========================================  ==============================================
call                                        IR
==========================================  ==============================================
``lane_id()``, ``syncthreads()``            ``gpu.lane_id``, ``gpu.barrier``
``syncwarp(mask)``                          ``nvvm.bar.warp.sync``
``shfl_sync/up/down/xor(mask, v, o, w)``    ``nvvm.shfl.sync idx/up/down/bfly`` (f32, i32;
                                            the width becomes PTX's clamp operand)
``ballot_sync``, ``any_sync``, ``all_sync`` ``nvvm.vote.sync ballot/any/all``
``reduce_add/min/max_sync(mask, v)``        ``nvvm.redux.sync`` (i32; f32 min/max)
``elect_sync()``                            ``nvvm.elect.sync``
``atomic.add/max/min/exch(a, i, v)``        ``memref.atomic_rmw`` (the old value)
``atomic.cas(a, i, compare, v)``            ``memref.generic_atomic_rmw`` (cmp + select)
``vload(a, (i, j), 4)``                     ``vector.load`` + 4 ``vector.extract``
``vstore(a, (i, j), (x, y, z, w))``         ``vector.from_elements`` + ``vector.store``
``shared.array``, ``local.array``           the workgroup / private attribution
``fma``, ``rsqrt``, ``math.exp`` ...        ``math.fma``, ``math.rsqrt``, ``math.exp`` ...
``abs``, ``min``, ``max``                   ``math.absf/absi``, ``arith.minnumf/minsi`` ...
``float(x)``, ``int(x)``, ``bool(x)``       conversions to f32, i32 (truncating), i1
``len(a)``, ``a.shape[k]``                  ``memref.dim``
==========================================  ==============================================

Masks and lane offsets are ``i32`` (``0xffffffff`` is ``-1``); a shuffle's width must be
a constant power of two up to 32.

>>> sorted(MATH_FUNCTIONS)[:3]
['ceil', 'cos', 'erf']
"""

from __future__ import annotations

import ast
import builtins
import math

from tinycomp.dialects import arith, gpu, memref, nvvm, vector
from tinycomp.dialects import math as math_ops
from tinycomp.dialects.nvvm import shuffle_clamp
from tinycomp.frontend.simt import markers
from tinycomp.frontend.simt.conversions import Operand, constant, convert, literal_type
from tinycomp.frontend.simt.expressions import array_indices, describe, in_block, number
from tinycomp.frontend.simt.generator import ALLOWED_BUILTINS, KernelGenerator
from tinycomp.frontend.simt.operators import truth, unify
from tinycomp.ir.types import FloatType, MemRefType, f32, i1, i32, index
from tinycomp.ir.values import Value

__all__ = ["MATH_FUNCTIONS", "translate_call"]

MATH_FUNCTIONS = {
    "exp": math_ops.ExpOp, "log": math_ops.LogOp, "sqrt": math_ops.SqrtOp,
    "tanh": math_ops.TanhOp, "erf": math_ops.ErfOp, "sin": math_ops.SinOp,
    "cos": math_ops.CosOp, "fabs": math_ops.AbsFOp, "floor": math_ops.FloorOp,
    "ceil": math_ops.CeilOp, "exp2": math_ops.Exp2Op, "log2": math_ops.Log2Op,
}  # fmt: skip
"""Python's ``math`` functions a kernel may call, and their ``math`` ops."""
SHUFFLE_KINDS = {"shfl_sync": "idx", "shfl_up_sync": "up", "shfl_down_sync": "down",
                 "shfl_xor_sync": "bfly"}  # fmt: skip
VOTE_KINDS = {"ballot_sync": "ballot", "any_sync": "any", "all_sync": "all"}
ATOMIC_KINDS = {"add": ("addf", "addi"), "max": ("maximumf", "maxs"),
                "min": ("minimumf", "mins"), "exch": ("assign", "assign")}  # fmt: skip


def call_arguments(
    gen: KernelGenerator, node: ast.Call, name: str, parameters: list[str], defaults: dict
) -> dict[str, ast.expr | object]:
    """``node``'s arguments by parameter name (defaults filled in), or an error quoting
    the signature ``name(parameters)``."""
    signature = f"{name}({', '.join(parameters)})"
    if len(node.args) > len(parameters):
        raise gen.error(
            node, f"{signature} takes {len(parameters)} arguments, got {len(node.args)}"
        )
    found: dict[str, ast.expr | object] = dict(zip(parameters, node.args, strict=False))
    for keyword in node.keywords:
        if keyword.arg not in parameters or keyword.arg in found:
            raise gen.error(node, f"unexpected keyword argument '{keyword.arg}' for {signature}")
        found[keyword.arg] = keyword.value
    for parameter in parameters:
        if parameter not in found:
            if parameter not in defaults:
                raise gen.error(node, f"{signature} is missing its argument '{parameter}'")
            found[parameter] = defaults[parameter]
    return found


def _operand(gen: KernelGenerator, argument: object, what: str) -> Operand:
    return number(gen, argument, what) if isinstance(argument, ast.AST) else argument


def as_i32(gen: KernelGenerator, argument: object, what: str) -> Value:
    """An argument as an ``i32`` value (masks, lane offsets)."""
    value = _operand(gen, argument, what)
    if not isinstance(value, Value):
        if isinstance(value, float):
            raise gen.error(argument, f"expected an integer {what}, got {value!r}")
        return constant(gen.builder, value, i32)
    if isinstance(value.type, FloatType):
        raise gen.error(argument, f"expected an integer {what}, got a {value.type} value")
    return convert(gen.builder, value, i32)


def as_float(gen: KernelGenerator, value: Operand) -> Value:
    """A number as a float value (integers become f32)."""
    if not isinstance(value, Value):
        return constant(gen.builder, float(value), f32)
    return value if isinstance(value.type, FloatType) else convert(gen.builder, value, f32)


def constant_int(gen: KernelGenerator, argument: object, what: str) -> int:
    """An argument that must be a compile-time integer (a width)."""
    value = gen.expression(argument) if isinstance(argument, ast.AST) else argument
    if isinstance(value, bool) or not isinstance(value, int):
        raise gen.error(argument, f"expected a constant integer {what}, got {describe(value)}")
    return value


def array_argument(gen: KernelGenerator, argument: ast.expr, name: str) -> Value:
    """An argument that must be an array."""
    value = gen.expression(argument)
    if not (isinstance(value, Value) and isinstance(value.type, MemRefType)):
        raise gen.error(argument, f"expected an array as {name}'s first argument, got "
                        f"{describe(value)}")  # fmt: skip
    return value


def _element_operand(gen: KernelGenerator, argument: ast.expr, element) -> Value:
    value = number(gen, argument, "a value")
    if not isinstance(value, Value):
        value = constant(gen.builder, value, literal_type(value, element))
    return convert(gen.builder, value, element)


# -- the markers -----------------------------------------------------------------------------
def _shuffle(gen: KernelGenerator, node: ast.Call, name: str) -> Value:
    kind = SHUFFLE_KINDS[name]
    offset_name = {"idx": "src_lane", "bfly": "lane_mask"}.get(kind, "delta")
    args = call_arguments(gen, node, name, ["mask", "value", offset_name, "width"], {"width": 32})
    mask = as_i32(gen, args["mask"], "mask")
    value = _operand(gen, args["value"], "a value to shuffle")
    if not isinstance(value, Value):
        value = constant(gen.builder, value, literal_type(value))
    if not isinstance(value.type, FloatType):
        value = convert(gen.builder, value, i32)
    if value.type not in (f32, i32):
        raise gen.error(node, f"{name} takes an f32 or i32 value, got {value.type}")
    offset = as_i32(gen, args[offset_name], offset_name)
    width = constant_int(gen, args["width"], "width")
    try:
        clamp = constant(gen.builder, shuffle_clamp(kind, width), i32)
    except ValueError as error:
        raise gen.error(node, f"{name}: {error}") from None
    return gen.builder.insert(nvvm.ShflSyncOp.build(kind, mask, value, offset, clamp)).result


def _vote(gen: KernelGenerator, node: ast.Call, name: str) -> Value:
    args = call_arguments(gen, node, name, ["mask", "predicate"], {})
    mask = as_i32(gen, args["mask"], "mask")
    predicate = truth(gen.builder, _operand(gen, args["predicate"], "a predicate"))
    if not isinstance(predicate, Value):
        predicate = constant(gen.builder, predicate, i1)
    return gen.builder.insert(nvvm.VoteSyncOp.build(VOTE_KINDS[name], mask, predicate)).result


def _reduce(gen: KernelGenerator, node: ast.Call, name: str) -> Value:
    args = call_arguments(gen, node, name, ["mask", "value"], {})
    mask = as_i32(gen, args["mask"], "mask")
    value = _operand(gen, args["value"], "a value to reduce")
    kind = name.split("_")[1]
    if isinstance(value, float) or (isinstance(value, Value) and isinstance(value.type, FloatType)):
        if kind == "add":
            raise gen.error(node, "reduce_add_sync takes an i32 (PTX redux.sync has no float "
                            "add); sum floats with shfl_down_sync")  # fmt: skip
        value = convert(gen.builder, as_float(gen, value), f32)
        kind = "f" + kind
    else:
        value = as_i32(gen, value, "value")
    return gen.builder.insert(nvvm.ReduxSyncOp.build(kind, value, mask)).result


def _atomic(gen: KernelGenerator, node: ast.Call, name: str) -> Value:
    member = name.split(".")[1]
    parameters = ["array", "index", "compare", "value"] if member == "cas" else [
        "array", "index", "value"]  # fmt: skip
    args = call_arguments(gen, node, name, parameters, {})
    array = array_argument(gen, args["array"], name)
    indices = array_indices(gen, array, args["index"], node)
    element = array.type.element_type
    value = _element_operand(gen, args["value"], element)
    if member != "cas":
        is_float = isinstance(element, FloatType)
        kind = ATOMIC_KINDS[member][0 if is_float else 1]
        return gen.builder.insert(memref.AtomicRMWOp.build(kind, value, array, indices)).result
    expected = _element_operand(gen, args["compare"], element)
    op = gen.builder.insert(memref.GenericAtomicRMWOp.build(array, indices))
    current = op.current_value
    current.name_hint = "current"
    with in_block(gen, op.body):
        if isinstance(element, FloatType):
            same = gen.builder.insert(arith.CmpFOp.build("oeq", current, expected)).result
        else:
            same = gen.builder.insert(arith.CmpIOp.build("eq", current, expected)).result
        new = gen.builder.insert(arith.SelectOp.build(same, value, current)).result
        gen.builder.insert(memref.AtomicYieldOp.build(new))
    return op.result


def _vload(gen: KernelGenerator, node: ast.Call, name: str) -> tuple:
    args = call_arguments(gen, node, name, ["array", "index", "width"], {})
    array = array_argument(gen, args["array"], name)
    indices = array_indices(gen, array, args["index"], node)
    width = constant_int(gen, args["width"], "width")
    if width not in (2, 4, 8):
        raise gen.error(node, f"expected a vload width of 2, 4 or 8, got {width}")
    lanes = gen.builder.insert(vector.LoadOp.build(array, indices, width)).result
    return tuple(
        gen.builder.insert(vector.ExtractOp.build(lanes, [lane])).result for lane in range(width)
    )


def _vstore(gen: KernelGenerator, node: ast.Call, name: str) -> None:
    args = call_arguments(gen, node, name, ["array", "index", "values"], {})
    array = array_argument(gen, args["array"], name)
    indices = array_indices(gen, array, args["index"], node)
    values_node = args["values"]
    values = gen.expression(values_node)
    if not isinstance(values, tuple) or len(values) not in (2, 4, 8):
        raise gen.error(node, f"expected vstore values to be a tuple of 2, 4 or 8, got "
                        f"{describe(values)}")  # fmt: skip
    element = array.type.element_type
    lanes = []
    for value in values:
        if not isinstance(value, Value):
            value = constant(gen.builder, value, literal_type(value, element))
        lanes.append(convert(gen.builder, value, element))
    packed = gen.builder.insert(vector.FromElementsOp.build(lanes)).result
    gen.builder.insert(vector.StoreOp.build(packed, array, indices))


def _simple_marker(gen: KernelGenerator, node: ast.Call, name: str) -> object:
    if name == "lane_id":
        call_arguments(gen, node, name, [], {})
        return gen.builder.insert(gpu.LaneIdOp.build()).result
    if name == "syncthreads":
        call_arguments(gen, node, name, [], {})
        gen.builder.insert(gpu.BarrierOp.build())
        return None
    if name == "syncwarp":
        args = call_arguments(gen, node, name, ["mask"], {"mask": 0xFFFFFFFF})
        gen.builder.insert(nvvm.BarWarpSyncOp.build(as_i32(gen, args["mask"], "mask")))
        return None
    if name == "elect_sync":
        call_arguments(gen, node, name, [], {})
        return gen.builder.insert(nvvm.ElectSyncOp.build()).result
    if name == "fma":
        args = call_arguments(gen, node, name, ["a", "b", "c"], {})
        a, b, c = (as_float(gen, _operand(gen, args[p], "a number")) for p in "abc")
        a, b = unify(gen.builder, a, b)
        a, c = unify(gen.builder, a, c)
        b = convert(gen.builder, b, a.type)
        return gen.builder.insert(math_ops.FmaOp.build(a, b, c)).result
    if name == "rsqrt":
        args = call_arguments(gen, node, name, ["x"], {})
        value = as_float(gen, _operand(gen, args["x"], "a number"))
        return gen.builder.insert(math_ops.RsqrtOp.build(value)).result
    if name in ("shared.array", "local.array"):
        return gen.attributions.value_for(node)
    raise gen.error(node, f"unknown gpu function {name}")  # pragma: no cover - all listed


# -- Python's builtins and math --------------------------------------------------------------
def _builtin(gen: KernelGenerator, node: ast.Call, function) -> object:
    name = function.__name__
    if name == "range":
        raise gen.error(node, "range() is only supported as the iterable of a for loop")
    if node.keywords:
        raise gen.error(node, f"{name}() takes no keyword arguments in a kernel")
    if name == "len":
        if len(node.args) != 1:
            raise gen.error(node, f"len() takes 1 argument, got {len(node.args)}")
        array = array_argument(gen, node.args[0], "len")
        zero = constant(gen.builder, 0, index)
        return gen.builder.insert(memref.DimOp.build(array, zero)).result
    values = [number(gen, argument) for argument in node.args]
    if name in ("min", "max"):
        if len(values) < 2:
            raise gen.error(node, f"{name}() takes at least 2 numbers, got {len(values)}")
        result = values[0]
        for value in values[1:]:
            result = _min_max(gen, name, result, value)
        return result
    if len(values) != 1:
        raise gen.error(node, f"{name}() takes 1 argument, got {len(values)}")
    (value,) = values
    if not isinstance(value, Value):
        return function(value)
    if name == "abs":
        op_class = math_ops.AbsFOp if isinstance(value.type, FloatType) else math_ops.AbsIOp
        return gen.builder.insert(op_class.build(value)).result
    if name == "bool":
        return truth(gen.builder, value)
    return convert(gen.builder, value, f32 if name == "float" else i32)


def _min_max(gen: KernelGenerator, name: str, a: Operand, b: Operand) -> Operand:
    if not isinstance(a, Value) and not isinstance(b, Value):
        return getattr(builtins, name)(a, b)
    a, b = unify(gen.builder, a, b)
    if isinstance(a.type, FloatType):
        op_class = arith.MinNumFOp if name == "min" else arith.MaxNumFOp
    else:
        op_class = arith.MinSIOp if name == "min" else arith.MaxSIOp
    return gen.builder.insert(op_class.build(a, b)).result


def _math_function(gen: KernelGenerator, node: ast.Call, name: str) -> Operand:
    if len(node.args) != 1 or node.keywords:
        raise gen.error(node, f"math.{name}() takes 1 argument, got {len(node.args)}")
    value = number(gen, node.args[0])
    if not isinstance(value, Value):
        return getattr(math, name)(value)
    return gen.builder.insert(MATH_FUNCTIONS[name].build(as_float(gen, value))).result


MARKER_HANDLERS = {
    **{name: _shuffle for name in SHUFFLE_KINDS},
    **{name: _vote for name in VOTE_KINDS},
    **{f"reduce_{kind}_sync": _reduce for kind in ("add", "min", "max")},
    **{f"atomic.{member}": _atomic for member in ("add", "max", "min", "exch", "cas")},
    "vload": _vload,
    "vstore": _vstore,
}
"""The translation of each gpu marker that is not a one-liner (``_simple_marker``)."""


def translate_call(gen: KernelGenerator, node: ast.Call) -> object:
    """The result of the call ``node`` (``None`` for barriers and stores)."""
    callee = gen.expression(node.func)
    if isinstance(callee, markers.Intrinsic):
        handler = MARKER_HANDLERS.get(callee.name, _simple_marker)
        return handler(gen, node, callee.name)
    if any(callee is getattr(builtins, name) for name in ALLOWED_BUILTINS):
        return _builtin(gen, node, callee)
    for name in MATH_FUNCTIONS:
        if callee is getattr(math, name):
            return _math_function(gen, node, name)
    what = ast.unparse(node.func)
    raise gen.error(node, f"call to unknown function '{what}' (kernels may call the gpu "
                    "functions, math.exp/log/sqrt/tanh/erf/sin/cos/fabs/floor/ceil and abs, "
                    "min, max, float, int, bool, len, range)")  # fmt: skip
