"""Arithmetic ops compiled to closures: fast paths for the hot ones, the interpreter's
rules for the rest.

The interpreter's rules (``tinycomp/interp/rules``) are the statement of what every
``arith`` and ``math`` op computes, and they are elementwise, so they run unchanged on
a ``(T,)`` array of lanes or on a uniform scalar. The hottest ops skip their generality:

* ``addf subf mulf divf`` and ``addi subi muli`` (on ``index``, ``i32``, ``i64``) are
  one numpy operator (numpy keeps the operands' dtype; integers wrap, floats round in
  their type); on two Python ints (uniform ``index`` values) they are Python arithmetic;
* ``andi ori xori`` on ``i1``, ``i32``, ``i64`` and ``index`` are one operator too;
* ``cmpi`` with a signed or equality predicate, ``select`` with a uniform condition,
  ``index_cast`` and ``math.fma`` on f32 are written out.

Rules that may raise (division by zero, a shift too far, a float-to-int overflow) see
only the active lanes: inactive lanes may hold anything.

>>> sorted(FAST_OPS)[:4]
['arith.addf', 'arith.addi', 'arith.andi', 'arith.cmpi']
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.dialects.arith.compare import CMPI_PREDICATES
from tinycomp.interp.errors import InterpreterError
from tinycomp.interp.numerics import dtype_of
from tinycomp.interp.rules import ALL_RULES
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import IndexType, IntegerType
from tinycomp.targets.gpu_sim.context import ChunkState
from tinycomp.targets.gpu_sim.lanes import Mask

__all__ = ["ARITH_COMPILERS", "FAST_OPS", "compile_rule"]

OpFn = Callable[[ChunkState, Mask], None]

BINARY = {
    "arith.addf": operator.add, "arith.subf": operator.sub, "arith.mulf": operator.mul,
    "arith.divf": operator.truediv, "arith.addi": operator.add, "arith.subi": operator.sub,
    "arith.muli": operator.mul,
}  # fmt: skip
LOGIC = {"arith.andi": operator.and_, "arith.ori": operator.or_, "arith.xori": operator.xor}
"""Bitwise ops with a fast path (on ``i1`` too: numpy bools and Python bools)."""
SIGNED_COMPARE = {
    "eq": operator.eq, "ne": operator.ne, "slt": operator.lt, "sle": operator.le,
    "sgt": operator.gt, "sge": operator.ge,
}  # fmt: skip
RAISING = frozenset(
    [
        "arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.floordivsi",
        "arith.ceildivsi", "arith.ceildivui", "arith.shli", "arith.shrui", "arith.shrsi",
        "arith.fptosi", "arith.fptoui",
    ]
)  # fmt: skip
FAST_OPS = frozenset(
    [*BINARY, *LOGIC, "arith.cmpi", "arith.select", "arith.index_cast", "math.fma"]
)
"""The ops with a fast path."""


def _is_plain_int(t: Any) -> bool:
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width in (32, 64))


def compile_binary(c: Any, op: Operation) -> OpFn:
    """``addf``, ``mulf``, ``addi``... as one operator."""
    t = op.results[0].type
    if op.name.endswith("i") and not _is_plain_int(t):
        return compile_rule(c, op)
    f = BINARY[op.name]
    a, b, r = c.slot(op.operands[0]), c.slot(op.operands[1]), c.slot(op.results[0])
    if isinstance(t, IntegerType):  # uniform i32/i64 are numpy scalars; wrap like them
        dtype = dtype_of(t)

        def run_int(st: ChunkState, m: Mask) -> None:
            v = st.v
            x = f(v[a], v[b])
            v[r] = x if type(x) is np.ndarray else dtype.type(x)

        return run_int

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        v[r] = f(v[a], v[b])

    return run


def compile_logic(c: Any, op: Operation) -> OpFn:
    """``andi``, ``ori``, ``xori`` on ``i1`` (bools), ``i32``, ``i64`` and ``index``."""
    t = op.results[0].type
    is_bool = isinstance(t, IntegerType) and t.width == 1
    if not (is_bool or _is_plain_int(t)):
        return compile_rule(c, op)
    f = LOGIC[op.name]
    a, b, r = c.slot(op.operands[0]), c.slot(op.operands[1]), c.slot(op.results[0])
    uniform: Any = bool if is_bool else dtype_of(t).type if isinstance(t, IntegerType) else int

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        x = f(v[a], v[b])
        v[r] = x if type(x) is np.ndarray else uniform(x)

    return run


def compile_cmpi(c: Any, op: Operation) -> OpFn:
    """``arith.cmpi``: Python comparisons for signed and equality predicates."""
    predicate = op.attributes.get("predicate")
    name = CMPI_PREDICATES[predicate.value] if isinstance(predicate, IntegerAttr) else ""
    if name not in SIGNED_COMPARE or not _is_plain_int(op.operands[0].type):
        return compile_rule(c, op)
    f = SIGNED_COMPARE[name]
    a, b, r = c.slot(op.operands[0]), c.slot(op.operands[1]), c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        x = f(v[a], v[b])
        v[r] = x if type(x) is np.ndarray else bool(x)

    return run


def compile_select(c: Any, op: Operation) -> OpFn:
    """``arith.select``: one side when the condition is uniform, else ``np.where``."""
    cond, a, b = (c.slot(x) for x in op.operands)
    r = c.slot(op.results[0])
    dtype = dtype_of(op.results[0].type)

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        k = v[cond]
        if type(k) is np.ndarray:
            x = np.where(k, v[a], v[b])
            v[r] = x if x.dtype == dtype else x.astype(dtype)
        else:
            v[r] = v[a] if k else v[b]

    return run


def compile_index_cast(c: Any, op: Operation) -> OpFn:
    """``arith.index_cast``: sign-extend to ``index`` or truncate from it."""
    source, target = op.operands[0].type, op.results[0].type
    if not (_is_plain_int(source) and _is_plain_int(target)):
        return compile_rule(c, op)
    a, r = c.slot(op.operands[0]), c.slot(op.results[0])
    dtype = dtype_of(target)
    to_index = isinstance(target, IndexType)

    def run(st: ChunkState, m: Mask) -> None:
        x = st.v[a]
        if type(x) is np.ndarray:
            st.v[r] = x.astype(dtype)
        else:
            st.v[r] = int(x) if to_index else dtype.type(np.int64(x).astype(dtype))

    return run


def compile_fma(c: Any, op: Operation) -> OpFn:
    """``math.fma`` on f32: the product exact in f64, the sum rounded (as the rule)."""
    if str(op.results[0].type) != "f32":
        return compile_rule(c, op)
    a, b, d = (c.slot(x) for x in op.operands)
    r = c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        total = np.multiply(v[a], v[b], dtype=np.float64) + v[d]
        v[r] = total.astype(np.float32)

    return run


def compile_rule(c: Any, op: Operation) -> OpFn:
    """Any op the interpreter has a rule for, run on the lanes (or the uniform value)."""
    rule = ALL_RULES.get(op.name)
    if rule is None:
        raise c.unsupported(op, "the SIMT simulator has no rule for this op")
    args = [c.slot(x) for x in op.operands]
    results = [c.slot(x) for x in op.results]
    raising = op.name in RAISING
    run_context = c.run

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        operands = [v[s] for s in args]
        arr = m.arr
        try:
            if raising and arr is not None and any(type(x) is np.ndarray for x in operands):
                picked = [x[arr] if type(x) is np.ndarray else x for x in operands]
                values = rule(op, picked, None)
                for slot, value in zip(results, values, strict=True):
                    full = np.zeros(st.lanes.total, np.asarray(value).dtype)
                    full[arr] = value
                    v[slot] = full
                return
            values = rule(op, operands, None)
        except InterpreterError as error:
            raise run_context.error("arithmetic", op, error.message) from None
        for slot, value in zip(results, values, strict=True):
            v[slot] = value

    return run


ARITH_COMPILERS: dict[str, Callable[[Any, Operation], OpFn]] = {
    **{name: compile_binary for name in BINARY},
    **{name: compile_logic for name in LOGIC},
    "arith.cmpi": compile_cmpi,
    "arith.select": compile_select,
    "arith.index_cast": compile_index_cast,
    "math.fma": compile_fma,
}
"""Op name -> compiler of its fast closure (every other arith/math op: ``compile_rule``)."""
