"""gpu to LLVM: thread positions, the barrier, shuffles and ``gpu.return``.

Each emitter writes what is the same on every GPU and asks the target's ``GPUHooks``
(``gpu_hooks.py``) for the intrinsic:

1. ``gpu.thread_id``, ``block_id``, ``block_dim``, ``grid_dim`` (and ``gpu.lane_id``):
   the target's ``i32`` register, widened to ``index`` (``i64``) with ``zext``, as MLIR's
   ``-convert-gpu-to-nvvm`` does (ids are never negative).
2. ``gpu.barrier``: the target's block barrier (``bar.sync 0``, ``s_barrier``).
3. ``gpu.shuffle``: 32-bit values go to the target as they are (``f32`` as a float,
   the rest as an ``i32``); narrower ones are widened to ``i32`` and cut back after;
   64-bit ones (``f64``, ``i64``, ``index``) are split into two 32-bit halves, each
   shuffled from the same lane, and joined again (CUDA's ``__shfl_sync`` on a
   ``double`` does the same: PTX's ``shfl.sync`` moves 32 bits).
4. ``gpu.return``: ``ret void`` (or the one value a device function returns).

On a target that is not a GPU (the CPU), each of these is a ``CodegenError``.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.gpu import NVPTXHooks, emit_device_llvm
>>> text = emit_device_llvm(parse('''gpu.module @m {
...   gpu.func @k(%out: memref<4xindex>) kernel {
...     %t = gpu.thread_id  x
...     memref.store %t, %out[%t] : memref<4xindex>
...     gpu.return
...   }
... }'''), NVPTXHooks()).text
>>> print("\\n".join(line for line in text.splitlines() if "thread_id" in line))
  %thread_id.x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext i32 %thread_id.x to i64
"""

from __future__ import annotations

from tinycomp.codegen.gpu.gpu_hooks import GPUHooks
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.ir.operation import Operation

__all__ = ["gpu_hooks", "shuffle_value"]


def gpu_hooks(em: FunctionEmitter, op: Operation) -> GPUHooks:
    """The target's GPU hooks, or a ``CodegenError`` naming ``op`` on a non-GPU target."""
    if not isinstance(em.hooks, GPUHooks):
        raise em.op_error(
            op, "a GPU op needs a GPU target (NVPTXHooks or AMDGPUHooks), not the host CPU"
        )
    return em.hooks


def _widen_index(em: FunctionEmitter, op: Operation, value: str) -> None:
    """Step 1: bind ``op``'s ``index`` result to ``value`` (an ``i32``) widened."""
    result = em.fresh(op.result.name_hint or op.name.split(".")[-1])
    em.emit(f"{result} = zext i32 {value} to i64")
    em.bind(op.result, result)


def _emit_position(em: FunctionEmitter, op: Operation) -> None:
    what = op.name.removeprefix("gpu.")
    _widen_index(em, op, gpu_hooks(em, op).thread_position(em, what, op.dimension))


for _name in ("gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim"):
    register_emitter(_name)(_emit_position)


@register_emitter("gpu.lane_id")
def emit_lane_id(em: FunctionEmitter, op: Operation) -> None:
    """Step 1 for the lane within the warp (or wavefront)."""
    _widen_index(em, op, gpu_hooks(em, op).lane_id(em))


@register_emitter("gpu.barrier")
def emit_barrier(em: FunctionEmitter, op: Operation) -> None:
    """Step 2."""
    gpu_hooks(em, op).emit_barrier(em)


def shuffle_value(em: FunctionEmitter, type_: str, value: str, shuffle32) -> tuple[str, str]:
    """Step 3: shuffle ``value`` of LLVM type ``type_`` with ``shuffle32(type, value) ->
    (value, valid)``, which moves one ``i32`` or ``float``; returns ``(value, valid)``."""
    if type_ in ("float", "i32"):
        return shuffle32(type_, value)
    if type_ in ("double", "i64"):
        return _shuffle_halves(em, type_, value, shuffle32)
    bits = {"half": 16, "bfloat": 16}.get(type_) or int(type_.removeprefix("i"))
    integer = value
    if type_ in ("half", "bfloat"):
        integer = em.fresh("shfl.bits")
        em.emit(f"{integer} = bitcast {type_} {value} to i16")
    wide = em.fresh("shfl.wide")
    em.emit(f"{wide} = zext i{bits} {integer} to i32")
    moved, valid = shuffle32("i32", wide)
    narrow = em.fresh("shfl.narrow")
    em.emit(f"{narrow} = trunc i32 {moved} to i{bits}")
    if type_ not in ("half", "bfloat"):
        return narrow, valid
    result = em.fresh("shfl.result")
    em.emit(f"{result} = bitcast i16 {narrow} to {type_}")
    return result, valid


def _shuffle_halves(em: FunctionEmitter, type_: str, value: str, shuffle32) -> tuple[str, str]:
    """Step 3 for 64 bits: low and high halves shuffled apart, then joined."""
    bits = value
    if type_ == "double":
        bits = em.fresh("shfl.bits")
        em.emit(f"{bits} = bitcast double {value} to i64")
    low, high_wide, high = em.fresh("shfl.lo"), em.fresh("shfl.hi64"), em.fresh("shfl.hi")
    em.emit(f"{low} = trunc i64 {bits} to i32")
    em.emit(f"{high_wide} = lshr i64 {bits}, 32")
    em.emit(f"{high} = trunc i64 {high_wide} to i32")
    low_moved, valid = shuffle32("i32", low)
    high_moved, _ = shuffle32("i32", high)
    names = {n: em.fresh(f"shfl.{n}") for n in ("lo64", "hi.up", "hi.shifted", "joined")}
    em.emit(f"{names['lo64']} = zext i32 {low_moved} to i64")
    em.emit(f"{names['hi.up']} = zext i32 {high_moved} to i64")
    em.emit(f"{names['hi.shifted']} = shl i64 {names['hi.up']}, 32")
    em.emit(f"{names['joined']} = or i64 {names['hi.shifted']}, {names['lo64']}")
    if type_ == "i64":
        return names["joined"], valid
    result = em.fresh("shfl.result")
    em.emit(f"{result} = bitcast i64 {names['joined']} to double")
    return result, valid


@register_emitter("gpu.shuffle")
def emit_shuffle(em: FunctionEmitter, op: Operation) -> None:
    """Step 3: ``%r, %valid = gpu.shuffle  xor %x, %offset, %width : T``."""
    hooks = gpu_hooks(em, op)
    value, offset, width = op.operands
    type_ = em.llvm_type(value.type)
    if type_.startswith("<"):
        raise em.op_error(op, f"expected a scalar value to shuffle, got {value.type}")

    def shuffle32(part_type: str, part: str) -> tuple[str, str]:
        return hooks.shuffle32(em, op.mode, part, part_type, em.value(offset), em.value(width))

    result, valid = shuffle_value(em, type_, em.value(value), shuffle32)
    em.bind(op.results[0], result)
    em.bind(op.results[1], valid)


@register_emitter("gpu.return")
def emit_return(em: FunctionEmitter, op: Operation) -> None:
    """Step 4."""
    if not op.operands:
        em.emit("ret void")
        return
    if len(op.operands) > 1:
        raise em.op_error(op, f"expected at most one returned value, got {len(op.operands)}")
    (value,) = op.operands
    em.emit(f"ret {em.llvm_type(value.type)} {em.value(value)}")
