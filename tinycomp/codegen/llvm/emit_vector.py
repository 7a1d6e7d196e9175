"""vector to LLVM: SIMD values are LLVM vector types, ``<8 x float>``.

LLVM IR has vector types of its own, so most of the vector dialect is one instruction
each (MLIR's ``-convert-vector-to-llvm`` is the same table), and ``arith``/``math`` on
vectors need nothing new: ``fadd <8 x float>`` is written like ``fadd float``.

=======================  ===============================================================
vector                   LLVM
=======================  ===============================================================
load / store             ``load <8 x float>, ptr %p, align 4`` at the lane-0 address
                         (aligned only to one element: ``vmovups``, not ``vmovaps``)
broadcast                ``insertelement`` into lane 0 of ``poison``, then
                         ``shufflevector`` with an all-zero mask: a *splat*
                         (``vbroadcastss``)
fma                      ``@llvm.fma.v8f32`` (``vfmadd231ps`` with FMA3)
reduction <add>, <mul>   ``@llvm.vector.reduce.fadd.v8f32(float %start, <8 x float> %v)``:
                         ordered (lane by lane from ``start``) unless the op carries
                         ``fastmath<reassoc>``, as LLVM's reference says; ``start`` is
                         the acc, or the identity ``-0.0`` (``1.0`` for mul)
reduction <max...>       ``@llvm.vector.reduce.fmaximum`` / ``fminimum`` / ``fmax`` /
                         ``fmin`` / ``smax`` / ``umin`` / ``and`` / ``or`` / ``xor`` ...,
                         then combined with the acc (any order gives the same result)
extract / insert         ``extractelement`` / ``insertelement``
=======================  ===============================================================

For ``half`` and ``bfloat`` a reduction is written lane by lane (``extractelement`` and
one scalar op per lane, in order): x86 has no half-precision adder, LLVM promotes each
scalar op to ``float`` and rounds back, which is exactly the dialect's ordered meaning.
Only 1-D vectors are emitted; MLIR first unrolls n-D vectors into 1-D ones (its
``-convert-vector-to-llvm`` turns ``vector<4x8xf32>`` into an array of ``<8 x float>``),
and tinycomp's vectorizer makes 1-D vectors only.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> print(emit_llvm(parse('''func.func @axpy(%a: f32, %x: memref<16xf32>, %i: index)
...     -> vector<8xf32> {
...   %va = vector.broadcast %a : f32 to vector<8xf32>
...   %vx = vector.load %x[%i] : memref<16xf32>, vector<8xf32>
...   %r = vector.fma %va, %vx, %vx : vector<8xf32>
...   return %r : vector<8xf32>
... }''')).text.split("entry:")[1].strip())  # doctest: +NORMALIZE_WHITESPACE
%va.lane0 = insertelement <8 x float> poison, float %a, i64 0
  %va = shufflevector <8 x float> %va.lane0, <8 x float> poison, <8 x i32> zeroinitializer
  %ptr = getelementptr inbounds float, ptr %x.aligned, i64 %i
  %vx = load <8 x float>, ptr %ptr, align 4
  %r = call <8 x float> @llvm.fma.v8f32(<8 x float> %va, <8 x float> %vx, <8 x float> %vx)
  ret <8 x float> %r
}
"""

from __future__ import annotations

from tinycomp.codegen.llvm.emit_arith import fastmath_flags, result_name
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.codegen.llvm.types import float_literal, intrinsic_suffix
from tinycomp.dialects.common.mixed_indices import DYNAMIC_INDEX
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FloatType, VectorType

__all__ = ["REDUCE_INTRINSICS"]

REDUCE_INTRINSICS = {
    "add": ("llvm.vector.reduce.fadd", "llvm.vector.reduce.add"),
    "mul": ("llvm.vector.reduce.fmul", "llvm.vector.reduce.mul"),
    "maximumf": ("llvm.vector.reduce.fmaximum", None),
    "minimumf": ("llvm.vector.reduce.fminimum", None),
    "maxnumf": ("llvm.vector.reduce.fmax", None),
    "minnumf": ("llvm.vector.reduce.fmin", None),
    "maxsi": (None, "llvm.vector.reduce.smax"),
    "minsi": (None, "llvm.vector.reduce.smin"),
    "maxui": (None, "llvm.vector.reduce.umax"),
    "minui": (None, "llvm.vector.reduce.umin"),
    "and": (None, "llvm.vector.reduce.and"),
    "or": (None, "llvm.vector.reduce.or"),
    "xor": (None, "llvm.vector.reduce.xor"),
}
"""Kind -> (the float reduction intrinsic, the integer one)."""

_COMBINE = {
    "add": ("fadd", "add"), "mul": ("fmul", "mul"),
    "maximumf": ("@llvm.maximum", None), "minimumf": ("@llvm.minimum", None),
    "maxnumf": ("@llvm.maxnum", None), "minnumf": ("@llvm.minnum", None),
    "maxsi": (None, "@llvm.smax"), "minsi": (None, "@llvm.smin"),
    "maxui": (None, "@llvm.umax"), "minui": (None, "@llvm.umin"),
    "and": (None, "and"), "or": (None, "or"), "xor": (None, "xor"),
}  # fmt: skip
"""Kind -> how two scalars combine: an instruction, or an intrinsic (``@``)."""


def _vector_type(em: FunctionEmitter, op: Operation, t) -> str:
    """The LLVM type of a 1-D vector; an error naming the op for any other shape."""
    if not isinstance(t, VectorType) or t.rank != 1:
        raise em.op_error(
            op,
            f"expected a 1-D vector, got {t}: unroll n-D vectors into 1-D ones first "
            "(MLIR's -convert-vector-to-llvm lowers them to arrays of 1-D vectors)",
        )
    return em.llvm_type(t)


@register_emitter("vector.load")
def emit_load(em: FunctionEmitter, op: Operation) -> None:
    """``load <N x T>, ptr <address of lane 0>, align <the target's vector alignment>``."""
    memref, *indices = op.operands
    type_ = _vector_type(em, op, op.results[0].type)
    address = em.element_pointer(memref, [em.value(i) for i in indices])
    result = result_name(em, op, "vload")
    align = em.hooks.vector_alignment(op, op.results[0].type)
    pointer = em.memref(memref).pointer  # "ptr", or "ptr addrspace(1)" on a GPU
    em.emit(f"{result} = load {type_}, {pointer} {address}, align {align}")
    em.bind(op.results[0], result)


@register_emitter("vector.store")
def emit_store(em: FunctionEmitter, op: Operation) -> None:
    """``store <N x T> %v, ptr <address of lane 0>, align <the target's alignment>``."""
    value, memref, *indices = op.operands
    type_ = _vector_type(em, op, value.type)
    address = em.element_pointer(memref, [em.value(i) for i in indices])
    align = em.hooks.vector_alignment(op, value.type)
    pointer = em.memref(memref).pointer
    em.emit(f"store {type_} {em.value(value)}, {pointer} {address}, align {align}")


@register_emitter("vector.broadcast")
def emit_broadcast(em: FunctionEmitter, op: Operation) -> None:
    """A splat: the scalar into lane 0, then a shuffle that copies lane 0 everywhere."""
    source = op.operands[0]
    result_type = op.results[0].type
    type_ = _vector_type(em, op, result_type)
    lanes = result_type.shape[0]
    result = result_name(em, op, "splat")
    if isinstance(source.type, VectorType):  # vector<1xT> or vector<NxT> to vector<NxT>
        source_type = _vector_type(em, op, source.type)
        if source.type.shape[0] == lanes:
            em.bind(op.results[0], em.value(source))
            return
        first = em.value(source)
    else:
        source_type = type_
        first = f"{result}.lane0"
        scalar = em.llvm_type(source.type)
        em.emit(f"{first} = insertelement {type_} poison, {scalar} {em.value(source)}, i64 0")
    mask = f"<{lanes} x i32> zeroinitializer"
    em.emit(f"{result} = shufflevector {source_type} {first}, {source_type} poison, {mask}")
    em.bind(op.results[0], result)


@register_emitter("vector.fma")
def emit_fma(em: FunctionEmitter, op: Operation) -> None:
    """``call <N x T> @llvm.fma.vNfT(a, b, c)``: one rounding per lane."""
    type_ = _vector_type(em, op, op.results[0].type)
    callee = em.intrinsic(f"llvm.fma.{intrinsic_suffix(type_)}", type_, [type_] * 3)
    arguments = ", ".join(f"{type_} {em.value(v)}" for v in op.operands)
    result = result_name(em, op, "fma")
    em.emit(f"{result} = call {type_} {callee}({arguments})")
    em.bind(op.results[0], result)


@register_emitter("vector.reduction")
def emit_reduction(em: FunctionEmitter, op: Operation) -> None:
    """The kind's ``llvm.vector.reduce.*`` intrinsic (see the table), or lane by lane
    for ``half``/``bfloat``."""
    vector = op.operands[0]
    acc = op.operands[1] if len(op.operands) > 1 else None
    type_ = _vector_type(em, op, vector.type)
    element = vector.type.element_type
    scalar = em.llvm_type(element)
    kind = str(op.attributes.get("kind", "")).removeprefix("#vector.kind<").removesuffix(">")
    is_float = isinstance(element, FloatType)
    if kind not in REDUCE_INTRINSICS or REDUCE_INTRINSICS[kind][0 if is_float else 1] is None:
        raise em.op_error(op, f"no LLVM reduction for kind '{kind}' on {element}")
    result = result_name(em, op, "reduce")
    if is_float and element.name in ("f16", "bf16"):
        em.bind(op.results[0], _lane_by_lane(em, op, kind, type_, scalar, acc, result))
        return
    name = f"{REDUCE_INTRINSICS[kind][0 if is_float else 1]}.{intrinsic_suffix(type_)}"
    if kind in ("add", "mul") and is_float:  # ordered, from a start value
        identity = float_literal(-0.0 if kind == "add" else 1.0, element.name)
        start = em.value(acc) if acc is not None else identity
        callee = em.intrinsic(name, scalar, [scalar, type_])
        arguments = f"{scalar} {start}, {type_} {em.value(vector)}"
        em.emit(f"{result} = call {fastmath_flags(op)}{scalar} {callee}({arguments})")
        em.bind(op.results[0], result)
        return
    callee = em.intrinsic(name, scalar, [type_])
    folded = f"{result}.lanes" if acc is not None else result
    em.emit(f"{folded} = call {scalar} {callee}({type_} {em.value(vector)})")
    if acc is not None:
        folded = _combine(em, kind, is_float, scalar, em.value(acc), folded, result)
    em.bind(op.results[0], folded)


def _combine(em, kind: str, is_float: bool, scalar: str, lhs: str, rhs: str, result: str) -> str:
    """``lhs <kind> rhs`` on scalars, written into ``result``."""
    how = _COMBINE[kind][0 if is_float else 1]
    if how.startswith("@"):
        callee = em.intrinsic(f"{how[1:]}.{intrinsic_suffix(scalar)}", scalar, [scalar, scalar])
        em.emit(f"{result} = call {scalar} {callee}({scalar} {lhs}, {scalar} {rhs})")
    else:
        em.emit(f"{result} = {how} {scalar} {lhs}, {rhs}")
    return result


def _lane_by_lane(em, op, kind: str, type_: str, scalar: str, acc, result: str) -> str:
    """``((acc op v0) op v1) ...`` with one scalar op per lane, in order; returns the
    name holding the result."""
    lanes = op.operands[0].type.shape[0]
    vector = em.value(op.operands[0])
    running = em.value(acc) if acc is not None else None
    for lane in range(lanes):
        value = em.fresh(f"{result[1:]}.lane{lane}")
        em.emit(f"{value} = extractelement {type_} {vector}, i64 {lane}")
        if running is None:
            running = value
            continue
        target = result if lane == lanes - 1 else em.fresh(f"{result[1:]}.acc{lane}")
        running = _combine(em, kind, True, scalar, running, value, target)
    return running


def _position(em: FunctionEmitter, op: Operation, dynamic) -> str:
    """The lane of a 1-D extract/insert: a constant, or the index value's text."""
    static = list(op.attributes["static_position"].values)
    if len(static) != 1:
        raise em.op_error(op, f"expected one position for a 1-D vector, got {len(static)}")
    return em.value(dynamic[0]) if static[0] == DYNAMIC_INDEX else str(static[0])


@register_emitter("vector.extract")
def emit_extract(em: FunctionEmitter, op: Operation) -> None:
    """``extractelement <N x T> %v, i64 <position>``."""
    vector, *dynamic = op.operands
    type_ = _vector_type(em, op, vector.type)
    result = result_name(em, op, "lane")
    em.emit(
        f"{result} = extractelement {type_} {em.value(vector)}, i64 {_position(em, op, dynamic)}"
    )
    em.bind(op.results[0], result)


@register_emitter("vector.insert")
def emit_insert(em: FunctionEmitter, op: Operation) -> None:
    """``insertelement <N x T> %v, T %x, i64 <position>``."""
    value, vector, *dynamic = op.operands
    type_ = _vector_type(em, op, vector.type)
    scalar = em.llvm_type(value.type)
    result = result_name(em, op, "inserted")
    lane = f"{scalar} {em.value(value)}, i64 {_position(em, op, dynamic)}"
    em.emit(f"{result} = insertelement {type_} {em.value(vector)}, {lane}")
    em.bind(op.results[0], result)


@register_emitter("vector.from_elements")
def emit_from_elements(em: FunctionEmitter, op: Operation) -> None:
    """A 1-D vector from its lanes: ``insertelement`` lane by lane into ``poison``."""
    type_ = _vector_type(em, op, op.results[0].type)
    element = em.llvm_type(op.results[0].type.element_type)
    vector = "poison"
    for lane, value in enumerate(op.operands):
        built = em.fresh(op.results[0].name_hint or "vec")
        lane_value = f"{element} {em.value(value)}"
        em.emit(f"{built} = insertelement {type_} {vector}, {lane_value}, i64 {lane}")
        vector = built
    em.bind(op.results[0], vector)
