"""Interpreter rules for the vector instructions and the cube's ``npu.mmad``.

A vector instruction runs in four steps:

1. it must run on a vector core (``"wrong-core"`` otherwise), with 1 to the preset's
   ``max_repeats`` repeats and a mask of 1 to a repeat's elements (``"repeat"``: IR
   the verifier did not see);
2. the element positions of every operand, repeat by repeat (``repeat x mask``),
   from its offset and block and repeat strides (the formula of
   ``tinycomp.dialects.npu.vector``), checked to be inside the buffer and, for the
   sources, written before;
3. the math on numpy in the buffer's element type (f16 rounds every result to f16 as
   the chip does; reductions add in f32 and round once);
4. the instruction: ``startup + repeats x cycles a repeat`` on pipe V (two cycles for
   two sources, one otherwise), and the bytes each operand touched.

``mmad`` reads A and B from L0A / L0B in the NZ layout, multiplies in f32, adds to or
overwrites C in L0C (NZ, 16x16 fractals), and costs one cycle a 16x16x16 fractal plus
the cube's setup, on pipe M of the cube core.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.dialects.npu import MmadOp, VectorOp
from tinycomp.interp.memory import MemRefValue
from tinycomp.ir.operation import Operation
from tinycomp.targets.npu_sim.core_context import CoreContext, element_access
from tinycomp.targets.npu_sim.errors import sanitizer_error
from tinycomp.targets.npu_sim.nz_layout import from_nz, nz_shape, to_nz
from tinycomp.targets.npu_sim.rules_data import check_positions, mark_and_check

__all__ = ["COMPUTE_RULES"]

BLOCK = 32
L0C_COLUMNS = 16

BINARY_MATH = {
    "vadd": np.add, "vsub": np.subtract, "vmul": np.multiply, "vdiv": np.divide,
    "vmax": np.maximum, "vmin": np.minimum,
}  # fmt: skip
UNARY_MATH = {
    "vexp": np.exp, "vln": np.log, "vabs": np.abs, "vrelu": lambda x: np.maximum(x, 0),
    "vsqrt": np.sqrt, "vrec": lambda x: 1 / x, "vmov": lambda x: x,
}  # fmt: skip
SCALAR_MATH = {"vadds": np.add, "vmuls": np.multiply, "vmaxs": np.maximum, "vmins": np.minimum}
REDUCE_MATH = {"sum": np.sum, "max": np.max, "min": np.min}


def _positions(op: VectorOp, operand: int, offset: int, count: int) -> np.ndarray:
    """Element positions ``[repeat, count]`` of buffer ``operand`` (0: destination)."""
    per_block = BLOCK * 8 // op.buffers[operand].type.element_type.width
    blk, rep = op.stride(operand, "blk"), op.stride(operand, "rep")
    j = np.arange(count)
    within = (j // per_block) * blk * per_block + j % per_block
    repeats = np.arange(op.repeat, dtype=np.int64)[:, None]
    if op.short_name == "vreduce" and operand == 0:
        return offset + repeats * rep + np.zeros((1, 1), np.int64)
    return offset + repeats * rep * per_block + within[None, :]


def _wrong_core(op: Operation, core: CoreContext, wanted: str) -> None:
    if core.kind != wanted:
        unit = "the vector unit" if wanted == "aiv" else "the cube"
        where = "vector cores" if wanted == "aiv" else "the cube core"
        raise sanitizer_error(
            "wrong-core", op, core.name,
            f"{unit} is only on {where}; {core.name} has no pipe "
            f"{'V' if wanted == 'aiv' else 'M'} (check the kernel type and npu.core)",
        )  # fmt: skip


def _vector_plan(op: VectorOp, core: CoreContext) -> tuple:
    """What does not change between runs of ``op``: each operand's element positions
    from its offset, the cost, the detail (kept per core in the interpreter's cache)."""
    count = len(op.buffers)
    relative = [_positions(op, i, 0, op.mask) for i in range(count)]
    preset = core.preset
    cycles = preset.vector_startup_cycles
    cycles += op.repeat * preset.vector_cycles_per_repeat[op.cost_kind]
    detail = f"{op.repeat} repeat{'s' if op.repeat > 1 else ''}, mask {op.mask}"
    return count, relative, float(cycles), detail


def run_vector(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Any vector instruction (module docstring)."""
    assert isinstance(op, VectorOp)
    core: CoreContext = interp.core
    plan = interp.cache.get(op)
    if plan is None:
        _wrong_core(op, core, "aiv")
        mask, limit = op.mask, core.preset.max_repeats
        if not 1 <= op.repeat <= limit or not 1 <= mask <= op.elements_per_repeat:
            raise sanitizer_error(
                "repeat", op, core.name,
                f"repeat {op.repeat} and mask {mask}: an instruction runs 1 to {limit} "
                f"repeats of 1 to {op.elements_per_repeat} elements",
            )  # fmt: skip
        plan = interp.cache[op] = _vector_plan(op, core)
    count, relative, cycles, detail = plan
    memrefs: list[MemRefValue] = operands[:count]
    positions = [rel + int(offset) for rel, offset in zip(relative, operands[count : 2 * count],
                                                            strict=True)]  # fmt: skip
    names = ["the destination"] + [f"source #{i}" for i in range(count - 1)]
    for memref, where, what in zip(memrefs, positions, names, strict=True):
        check_positions(op, core, memref, where, what)
    for memref, where, what in zip(memrefs[1:], positions[1:], names[1:], strict=True):
        mark_and_check(op, core, memref, where, False, what)
    sources = [m.buffer.data[p] for m, p in zip(memrefs[1:], positions[1:], strict=True)]
    short, out = op.short_name, memrefs[0]
    if short in BINARY_MATH:
        result = BINARY_MATH[short](sources[0], sources[1])
    elif short in UNARY_MATH:
        result = UNARY_MATH[short](sources[0])
    elif short in SCALAR_MATH:
        result = SCALAR_MATH[short](sources[0], operands[-1])
    elif short == "vdup":
        result = np.full(positions[0].shape, operands[-1])
    elif short == "vconv":
        result = sources[0].astype(np.float32).astype(out.dtype)
    else:  # vreduce
        result = REDUCE_MATH[op.kind](sources[0].astype(np.float32), axis=1, keepdims=True)
    out.buffer.data[positions[0]] = np.asarray(result).astype(out.dtype)
    mark_and_check(op, core, out, positions[0], True, "the destination")
    repeat = op.repeat
    accesses = tuple(  # the sources first: a missing flag is reported as the read it is
        element_access(core, m, p, i == 0, repeat)
        for i, (m, p) in reversed(list(enumerate(zip(memrefs, positions, strict=True))))
    )
    core.record(op, "vector", short, cycles=cycles, accesses=accesses, detail=detail)
    return []


def run_mmad(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``npu.mmad``: ``C (+)= A @ B`` on NZ fractals (module docstring)."""
    assert isinstance(op, MmadOp)
    core: CoreContext = interp.core
    _wrong_core(op, core, "aic")
    c, a, b = operands[:3]
    c_off, a_off, b_off = (int(v) for v in operands[3:6])
    m, k, n = op.sizes
    shapes = {
        "A": nz_shape((m, k), a.dtype), "B": nz_shape((k, n), b.dtype),
        "C": nz_shape((m, n), np.float32, L0C_COLUMNS),
    }  # fmt: skip
    where = {}
    for name, memref, offset in (("A", a, a_off), ("B", b, b_off), ("C", c, c_off)):
        where[name] = (offset + np.arange(int(np.prod(shapes[name])))).reshape(1, -1)
        check_positions(op, core, memref, where[name], f"{name} ({m}x{k}x{n} in NZ)")
    mark_and_check(op, core, a, where["A"], False, "A")
    mark_and_check(op, core, b, where["B"], False, "B")
    left = from_nz(a.buffer.data[where["A"]].reshape(shapes["A"]), (m, k)).astype(np.float32)
    right = from_nz(b.buffer.data[where["B"]].reshape(shapes["B"]), (k, n)).astype(np.float32)
    product = left @ right
    if op.accumulate:
        mark_and_check(op, core, c, where["C"], False, "C (accumulate)")
        old = c.buffer.data[where["C"]].reshape(shapes["C"])
        product = product + from_nz(old, (m, n), L0C_COLUMNS)
    c.buffer.data[where["C"]] = to_nz(product.astype(np.float32), L0C_COLUMNS).reshape(1, -1)
    mark_and_check(op, core, c, where["C"], True, "C")
    cycles = core.preset.cube_startup_cycles + op.fractals
    accesses = (
        element_access(core, a, where["A"], False, 1),
        element_access(core, b, where["B"], False, 1),
        element_access(core, c, where["C"], True, 1),
    )
    detail = f"{m}x{k}x{n} ({op.fractals} fractals)"
    core.record(op, "cube", "mmad", cycles=float(cycles), accesses=accesses, detail=detail)
    return []


COMPUTE_RULES = {name: run_vector for name in (
    "npu.vadd", "npu.vsub", "npu.vmul", "npu.vdiv", "npu.vmax", "npu.vmin", "npu.vexp",
    "npu.vln", "npu.vabs", "npu.vrelu", "npu.vsqrt", "npu.vrec", "npu.vmov", "npu.vconv",
    "npu.vreduce", "npu.vadds", "npu.vmuls", "npu.vmaxs", "npu.vmins", "npu.vdup",
)}  # fmt: skip
COMPUTE_RULES["npu.mmad"] = run_mmad
