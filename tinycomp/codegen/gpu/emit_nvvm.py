"""nvvm to LLVM: the warp-synchronous ops, one NVVM intrinsic each (NVPTX only).

The nvvm dialect is NVIDIA's, so these emitters need ``NVPTXHooks``; on AMDGPU each is
a ``CodegenError`` (write ``gpu.shuffle`` there, which both targets lower).

1. ``nvvm.shfl.sync``: ``llvm.nvvm.shfl.sync.{bfly,up,down,idx}.{i32,f32}`` with the
   op's own mask and clamp; other widths go through ``emit_gpu.shuffle_value`` (16-bit
   values widened, 64-bit ones as two 32-bit shuffles).
2. ``nvvm.vote.sync``: ``llvm.nvvm.vote.{ballot,any,all,uni}.sync`` (PTX ``vote.sync``).
3. ``nvvm.redux.sync``: ``llvm.nvvm.redux.sync.{add,min,max,umin,umax,and,or,xor}``
   on ``i32`` (PTX ``redux.sync``, sm_80 and later). The ``f32`` kinds ``fmin``/``fmax``
   exist in PTX only from sm_100a: a ``CodegenError`` for sm_80 and sm_90.
4. ``nvvm.elect.sync``: ``llvm.nvvm.elect.sync`` (PTX ``elect.sync``, sm_90 and PTX ISA
   8.0); for sm_80 a ``CodegenError`` (LLVM would abort the process instead: it cannot
   select the instruction).
5. ``nvvm.bar.warp.sync``: ``llvm.nvvm.bar.warp.sync`` (``__syncwarp(mask)``).

Every one of these calls is ``convergent`` (``NVPTXHooks.convergent_prefixes``).

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.gpu import NVPTXHooks, emit_device_llvm
>>> text = emit_device_llvm(parse('''gpu.module @m {
...   gpu.func @k(%p: i1) kernel {
...     %all = arith.constant -1 : i32
...     %bits = nvvm.vote.sync  ballot %all, %p -> i32
...     gpu.return
...   }
... }'''), NVPTXHooks()).text
>>> [line.strip() for line in text.splitlines() if "%bits" in line]
['%bits = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %p) convergent']
"""

from __future__ import annotations

from tinycomp.codegen.gpu.emit_gpu import shuffle_value
from tinycomp.codegen.gpu.nvptx_hooks import NVPTXHooks
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.ir.operation import Operation

__all__: list[str] = []  # the module registers emitters; it exports nothing

_FLOAT_REDUX = ("fmin", "fmax")


def nvptx_hooks(em: FunctionEmitter, op: Operation) -> NVPTXHooks:
    """The NVPTX hooks, or a ``CodegenError`` naming ``op`` on any other target."""
    if not isinstance(em.hooks, NVPTXHooks):
        target = getattr(em.hooks, "name", "the host CPU")
        raise em.op_error(
            op, f"nvvm ops are NVIDIA's; expected the NVPTX target, got {target} "
            "(use gpu.shuffle / gpu.barrier, which every GPU target lowers)",
        )  # fmt: skip
    return em.hooks


@register_emitter("nvvm.shfl.sync")
def emit_shfl_sync(em: FunctionEmitter, op: Operation) -> None:
    """Step 1."""
    nvptx_hooks(em, op)
    if "return_value_and_is_valid" in op.attributes:
        raise em.op_error(
            op, "expected the plain form (no return_value_and_is_valid): tinycomp keeps "
            "the !llvm.struct<(T, i1)> result opaque; use gpu.shuffle for the valid bit",
        )  # fmt: skip
    mask, offset, clamp = (em.value(v) for v in (op.mask, op.offset, op.clamp))

    def shuffle32(type_: str, value: str) -> tuple[str, str]:
        suffix = "f32" if type_ == "float" else "i32"
        name = f"llvm.nvvm.shfl.sync.{op.kind}.{suffix}"
        callee = em.intrinsic(name, type_, ["i32", type_, "i32", "i32"])
        args = [("i32", mask), (type_, value), ("i32", offset), ("i32", clamp)]
        return em.call(callee, type_, args, "shfl"), "true"

    type_ = em.llvm_type(op.value.type)
    result, _ = shuffle_value(em, type_, em.value(op.value), shuffle32)
    em.bind(op.result, result)


@register_emitter("nvvm.vote.sync")
def emit_vote_sync(em: FunctionEmitter, op: Operation) -> None:
    """Step 2."""
    nvptx_hooks(em, op)
    mask, predicate = (em.value(v) for v in op.operands)
    ret = "i32" if op.kind == "ballot" else "i1"
    callee = em.intrinsic(f"llvm.nvvm.vote.{op.kind}.sync", ret, ["i32", "i1"])
    hint = op.result.name_hint or op.kind
    em.bind(op.result, em.call(callee, ret, [("i32", mask), ("i1", predicate)], hint))


@register_emitter("nvvm.redux.sync")
def emit_redux_sync(em: FunctionEmitter, op: Operation) -> None:
    """Step 3."""
    hooks = nvptx_hooks(em, op)
    if op.kind in _FLOAT_REDUX:
        raise em.op_error(
            op, f"redux.sync.{op.kind} on f32 needs sm_100a (LLVM 22 cannot select it for "
            f"sm_80 or sm_90); the target is {hooks.arch}: reduce with shuffles instead",
        )  # fmt: skip
    value, mask = (em.value(v) for v in op.operands)
    callee = em.intrinsic(f"llvm.nvvm.redux.sync.{op.kind}", "i32", ["i32", "i32"])
    hint = op.result.name_hint or "redux"
    em.bind(op.result, em.call(callee, "i32", [("i32", value), ("i32", mask)], hint))


@register_emitter("nvvm.elect.sync")
def emit_elect_sync(em: FunctionEmitter, op: Operation) -> None:
    """Step 4: the intrinsic returns ``{ i32 elected lane, i1 is me }``; keep the i1."""
    hooks = nvptx_hooks(em, op)
    if hooks.sm_version < 90:
        raise em.op_error(op, f"elect.sync needs sm_90 or later; the target is {hooks.arch}")
    mask = em.value(op.operands[0]) if op.operands else "-1"
    pair = "{ i32, i1 }"
    callee = em.intrinsic("llvm.nvvm.elect.sync", pair, ["i32"])
    both = em.call(callee, pair, [("i32", mask)], "elect")
    result = em.fresh(op.result.name_hint or "elected")
    em.emit(f"{result} = extractvalue {pair} {both}, 1")
    em.bind(op.result, result)


@register_emitter("nvvm.bar.warp.sync")
def emit_bar_warp_sync(em: FunctionEmitter, op: Operation) -> None:
    """Step 5."""
    nvptx_hooks(em, op)
    callee = em.intrinsic("llvm.nvvm.bar.warp.sync", "void", ["i32"])
    em.call(callee, "void", [("i32", em.value(op.mask))])
