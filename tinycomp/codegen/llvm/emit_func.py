"""func to LLVM: functions, their calling convention, ``return`` and ``call``.

A ``func.func`` becomes an LLVM ``define`` (or a ``declare`` when it has no body).
The signature follows MLIR's ``-convert-func-to-llvm``:

* a scalar or vector parameter is one LLVM parameter of its type;
* a memref parameter is its descriptor's fields, unpacked (``descriptor.py``):
  ``%x: memref<4x?xf32>`` becomes ``ptr %x.allocated, ptr %x.aligned, i64 %x.offset,
  i64 %x.size0, i64 %x.size1, i64 %x.stride0, i64 %x.stride1``;
* no result is ``void``; one result is its type; several are a literal struct
  ``{ float, i64 }`` built with ``insertvalue`` (MLIR does the same). Memref results
  are not supported: bufferization turns them into out-params first.
* ``private`` functions with a body are ``internal``: LLVM may inline them and drop
  the copy.
* the aligned pointer of an out-param (an argument marked ``{bufferize.result}``) is
  ``noalias``: bufferization made it a buffer of its own, which no other argument
  points into, and saying so lets LLVM keep ``C[i, j]`` in a register across a
  reduction loop instead of storing and reloading it in case ``A`` or ``B`` is the
  same memory. (MLIR writes the same with the ``llvm.noalias`` argument attribute;
  the CPU caller checks that out-params overlap no other argument.)

Steps of ``emit_function``:

1. Convert the signature (above); a declaration is a ``declare`` and we are done.
2. Name the parameters after the tinycomp arguments and bind the arguments to them
   (memrefs to descriptors, with static sizes and strides as constants).
3. Give every block a label (``entry`` first) and every argument of a later block one
   phi per part, filled by the branches that reach it (``emit_cf.py``).
4. Emit the blocks' ops in order; ``func.return`` writes ``ret``.
5. Write the phis and check every block ends in a terminator.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> print(emit_llvm(parse('''func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
...   %ax = arith.mulf %a, %x : f32
...   %r = arith.addf %ax, %y : f32
...   return %r : f32
... }''')).text)
define float @axpy(float %a, float %x, float %y) {
entry:
  %ax = fmul float %a, %x
  %r = fadd float %ax, %y
  ret float %r
}
"""

from __future__ import annotations

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.descriptor import descriptor_part_names
from tinycomp.codegen.llvm.registry import FunctionEmitter, describe_op, register_emitter
from tinycomp.codegen.llvm.renderer import FunctionText, ModuleText
from tinycomp.dialects.func.out_params import out_param_positions
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import MemRefType, Type

__all__ = ["emit_function"]


def return_type(em: FunctionEmitter, results: tuple[Type, ...], op: Operation) -> str:
    """``void``, the one result's type, or ``{ t0, t1 }`` for several."""
    for t in results:
        if isinstance(t, MemRefType):
            raise em.op_error(
                op,
                f"returns a memref ({t}); expected scalar results only (bufferize with "
                "function results as out-params, as tinycomp.compile does)",
            )
    types = [em.llvm_type(t) for t in results]
    if not types:
        return "void"
    return types[0] if len(types) == 1 else "{ " + ", ".join(types) + " }"


def parameter_types(em: FunctionEmitter, inputs: tuple[Type, ...]) -> list[str]:
    """The LLVM parameter types of a function with these input types (memrefs
    unpacked into their descriptor fields)."""
    return [part for t in inputs for part in em.part_types(t)]


def emit_function(module: ModuleText, func: Operation) -> None:
    """Emit ``func`` into ``module`` (steps 1-5 of the module docstring).

    >>> from tinycomp.ir import parse
    >>> module = ModuleText()
    >>> emit_function(module, parse("func.func private @ext(f32) -> f32").body.first_op)
    >>> module.declarations
    {'ext': 'declare float @ext(float)'}
    """
    try:
        _emit_function(module, func)
    except CodegenError as error:
        if error.op is not None:
            raise
        raise CodegenError(f"{describe_op(func)}: {error.message}", func) from None


def _emit_function(module: ModuleText, func: Operation) -> None:
    name = func.attributes["sym_name"].value
    function_type = func.attributes["function_type"].type
    function = FunctionText(name, "void", [], op=func)
    em = FunctionEmitter(module, function)
    em.current_op = func
    function.return_type = return_type(em, function_type.results, func)
    if not func.regions[0].blocks:  # step 1: a declaration
        module.declare(name, function.return_type, parameter_types(em, function_type.inputs))
        return
    entry, *later = func.regions[0].blocks
    out_params = out_param_positions(func)
    for position, argument in enumerate(entry.arguments):  # step 2
        base = argument.name_hint or f"arg{position}"
        if isinstance(argument.type, MemRefType):
            fields = descriptor_part_names(argument.type.rank)
            names = [em.fresh(f"{base}.{field}") for field in fields]
        else:
            names = [em.fresh(base)]
        types = em.part_types(argument.type)
        if position in out_params and isinstance(argument.type, MemRefType):
            function.param_attributes[len(function.params) + 1] = "noalias"  # the aligned ptr
        function.params += [(t, n.lstrip("%")) for t, n in zip(types, names, strict=True)]
        em.bind_parts(argument, names)
    visibility = func.attributes.get("sym_visibility")
    linkage = "internal " if visibility is not None and visibility.value == "private" else ""
    function.prefix = linkage + module.hooks.function_prefix(func)
    function.attributes = module.hooks.function_attributes(func)
    em.names.fresh("entry")
    labels = {block: em.fresh_label(f"bb{i}") for i, block in enumerate(later, 1)}  # step 3
    for block, label in labels.items():
        phis = []
        for position, argument in enumerate(block.arguments):
            hint = argument.name_hint or f"{label}.arg{position}"
            names = [em.fresh(hint) for _ in em.part_types(argument.type)]
            for name, type_ in zip(names, em.part_types(argument.type), strict=True):
                em.add_phi(label, name, type_)
            em.bind_parts(argument, names)
            phis.append(names)
        em.block_targets[block] = (label, phis)
    for block in [entry, *later]:  # step 4
        em.start_block("entry" if block is entry else labels[block])
        leftover = em.emit_block(block)
        if leftover is not None:
            raise em.op_error(leftover, "expected func.return or a branch to end a function block")
    em.current_op = func
    em.finish()  # step 5
    module.functions.append(function)


@register_emitter("func.return")
def emit_return(em: FunctionEmitter, op: Operation) -> None:
    """``ret void``, ``ret float %r``, or a struct of several results."""
    if not op.operands:
        em.emit("ret void")
        return
    if len(op.operands) == 1:
        em.emit(f"ret {em.llvm_type(op.operands[0].type)} {em.value(op.operands[0])}")
        return
    struct = return_type(em, tuple(v.type for v in op.operands), op)
    aggregate = "poison"
    for position, value in enumerate(op.operands):
        built = em.fresh("ret.struct")
        em.emit(
            f"{built} = insertvalue {struct} {aggregate}, {em.llvm_type(value.type)} "
            f"{em.value(value)}, {position}"
        )
        aggregate = built
    em.emit(f"ret {struct} {aggregate}")


@register_emitter("func.call")
def emit_call(em: FunctionEmitter, op: Operation) -> None:
    """``call``: memref arguments unpacked as in a definition; several results come
    back as a struct and are taken apart with ``extractvalue``."""
    callee = op.attributes["callee"].root
    arguments = [part for value in op.operands for part in em.parts(value)]
    struct = return_type(em, op.result_types, op)
    hint = op.results[0].name_hint if op.results and op.results[0].name_hint else "call"
    result = em.call(callee, struct, arguments, hint)
    if len(op.results) == 1:
        em.bind(op.results[0], result)
    elif len(op.results) > 1:
        for position, value in enumerate(op.results):
            field = em.fresh(value.name_hint or "call.result")
            em.emit(f"{field} = extractvalue {struct} {result}, {position}")
            em.bind(value, field)


def check_function(op: Operation) -> None:
    """A ``CodegenError`` unless ``op`` is a ``func.func`` (what a module may hold)."""
    if op.name != "func.func":
        raise CodegenError(
            f"{describe_op(op)}: expected only func.func at the top of a module; "
            "no LLVM emitter for module-level ops of this kind"
        )
