"""``emit_llvm``: a loop-level tinycomp module as LLVM IR text.

1. Take the module (parse it if it is text).
2. Start an empty LLVM module for the target (``TargetHooks``: triple, data layout,
   address spaces; the default is target-agnostic).
3. Emit each ``func.func`` (``emit_func.py``); its ops go through the emitter
   registry, one emitter per op name (``registry.py``, ``emit_*.py``).
4. Render the text with the map from LLVM lines to tinycomp ops (``renderer.py``).
5. Errors name the op and its line. Ops built by passes have no line, though; when
   emission fails for such a module (or LLVM later rejects its text, see
   ``located``), print the module, parse the text back so that every op knows its
   line in that text (kept as ``LLVMModule.source``) and emit again: the same error
   comes out, now with lines. The happy path never pays for this.

The input is what ``tinycomp.compile(..., stop_after="loops")`` produces: functions on
memrefs, with ``scf``/``affine`` loops, ``memref`` accesses and views, ``arith`` and
``math``. Tensors and linalg ops have no emitter: lower them first.

>>> from tinycomp.ir import parse
>>> llvm = emit_llvm(parse('''func.func @scale(%x: memref<4xf32>, %s: f32) {
...   %c0 = arith.constant 0 : index
...   %v = memref.load %x[%c0] : memref<4xf32>
...   %w = arith.mulf %v, %s : f32
...   memref.store %w, %x[%c0] : memref<4xf32>
...   return
... }'''))
>>> print(llvm.text)  # doctest: +NORMALIZE_WHITESPACE
define void @scale(ptr %x.allocated, ptr %x.aligned, i64 %x.offset, i64 %x.size0,
                   i64 %x.stride0, float %s) {
entry:
  %ptr = getelementptr inbounds float, ptr %x.aligned, i64 0
  %v = load float, ptr %ptr, align 4
  %w = fmul float %v, %s
  %ptr.1 = getelementptr inbounds float, ptr %x.aligned, i64 0
  store float %w, ptr %ptr.1, align 4
  ret void
}
>>> llvm.line(5), llvm.source_op(5).name
('%w = fmul float %v, %s', 'arith.mulf')
"""

from __future__ import annotations

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.emit_func import check_function, emit_function
from tinycomp.codegen.llvm.hooks import TargetHooks
from tinycomp.codegen.llvm.renderer import LLVMModule, ModuleText
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import parse
from tinycomp.ir.printer import print_ir

__all__ = ["emit_llvm", "located", "with_locations"]


def has_locations(module: Operation) -> bool:
    """Whether every op of ``module`` (but the module itself) knows its source line."""
    return all(op.location is not None for op in module.walk() if op is not module)


def with_locations(module: Operation) -> tuple[Operation, str]:
    """Step 5: ``module`` printed and parsed back, so every op has a line in the
    returned text.

    >>> from tinycomp.ir import Block, ModuleOp
    >>> from tinycomp.dialects.func import FuncOp, ReturnOp
    >>> from tinycomp.ir.types import FunctionType
    >>> func = FuncOp.build("f", FunctionType((), ()))
    >>> _ = func.entry_block.append(ReturnOp.build())
    >>> module = ModuleOp.build([func])
    >>> has_locations(module), has_locations(with_locations(module)[0])
    (False, True)
    """
    source = print_ir(module)
    return parse(source), source


def emit_llvm(module: Operation | str, hooks: TargetHooks | None = None) -> LLVMModule:
    """The LLVM IR of every function of ``module`` (steps 1-5 above).

    >>> print(emit_llvm("func.func @nothing() {\\n  return\\n}").text)
    define void @nothing() {
    entry:
      ret void
    }
    """
    if isinstance(module, str):
        module = parse(module)
    hooks = hooks if hooks is not None else TargetHooks()
    try:
        return _emit(module, hooks, "")
    except CodegenError:
        if has_locations(module):
            raise
        reparsed, source = with_locations(module)
        _emit(reparsed, hooks, source)  # the same error, now with source lines
        raise


def located(llvm_module: LLVMModule) -> LLVMModule:
    """``llvm_module`` emitted again from its tinycomp module with source lines (step
    5): the same text line for line, but every line's op knows where it is.

    >>> from tinycomp.ir import Block, ModuleOp
    >>> from tinycomp.dialects.func import FuncOp, ReturnOp
    >>> from tinycomp.ir.types import FunctionType
    >>> func = FuncOp.build("f", FunctionType((), ()))
    >>> _ = func.entry_block.append(ReturnOp.build())
    >>> llvm_module = emit_llvm(ModuleOp.build([func]))
    >>> llvm_module.source_op(3).location, located(llvm_module).source_op(3).location.line
    (None, 3)
    """
    module = llvm_module.module
    if module is None or has_locations(module):
        return llvm_module
    reparsed, source = with_locations(module)
    return _emit(reparsed, llvm_module.hooks, source)


def _emit(module: Operation, hooks: TargetHooks, source: str) -> LLVMModule:
    """Steps 2-4."""
    text = ModuleText(hooks)
    body = module.regions[0].blocks[0] if module.name == "builtin.module" else None
    functions = list(body.ops) if body is not None else [module]
    for op in functions:
        check_function(op)
        emit_function(text, op)
    result = text.render(source)
    result.module = module
    return result
