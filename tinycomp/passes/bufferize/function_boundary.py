"""Function results become out-params (MLIR's ``-buffer-results-to-out-params``).

A function that returns a memref hands the caller memory it allocated; the caller must
free it, and a kernel launched on a GPU or NPU cannot allocate at all. The convention
compilers use instead is *destination passing* at the function boundary: the caller
allocates the result and passes it in as a trailing argument, an **out-param**::

    func.func @f(%x: memref<4xf32>) -> memref<4xf32>      // before
    func.func @f(%x: memref<4xf32>, %out: memref<4xf32>)   // after: writes %out

The algorithm, for each ``func.func`` that returns memrefs:

1. Append one argument per memref result, with the result's shape and element type
   and the identity layout, marked ``{bufferize.result}`` (MLIR's ``add-result-attr``;
   the convention itself is the func dialect's: ``tinycomp.dialects.func.out_params``).
2. If the returned buffer is a ``memref.alloc`` of the function's entry block with
   exactly that type, replace the allocation by the out-param: the
   function computes straight into the caller's memory (MLIR's ``hoist-static-allocs``
   option, here for dynamic shapes too).
3. Otherwise (a function argument, a view, a buffer returned a second time) insert
   ``memref.copy`` of the buffer into the out-param before the return.
4. Return only the non-memref values and update the function type.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
...   %a = memref.alloc() : memref<4xf32>
...   memref.copy %x, %a : memref<4xf32> to memref<4xf32>
...   return %a, %x : memref<4xf32>, memref<4xf32>
... }''')
>>> out_params = buffer_results_to_out_params(m.body.first_op)
>>> print(m.body.first_op)
func.func @f(%x: memref<4xf32>, %arg0: memref<4xf32> {bufferize.result}, %arg1: memref<4xf32> {bufferize.result}) {
  memref.copy %x, %arg0 : memref<4xf32> to memref<4xf32>
  memref.copy %x, %arg1 : memref<4xf32> to memref<4xf32>
  return
}
"""  # noqa: E501

from __future__ import annotations

from tinycomp.dialects.func import ReturnOp
from tinycomp.dialects.func.out_params import mark_out_params
from tinycomp.dialects.memref.access import CopyOp
from tinycomp.ir.attributes import ArrayAttr, DictionaryAttr, TypeAttr
from tinycomp.ir.builder import InsertionPoint
from tinycomp.ir.effects import is_pure
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FunctionType, MemRefType
from tinycomp.ir.values import Value
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["buffer_results_to_out_params"]


def buffer_results_to_out_params(function: Operation, hoist_allocations: bool = True) -> list:
    """Turn the memref results of ``function`` into out-params (module docstring);
    returns the new arguments, in result order."""
    entry = function.regions[0].blocks[0]
    terminator = entry.last_op
    if not isinstance(terminator, ReturnOp):
        return []
    returned = list(terminator.operands)
    memref_positions = [i for i, v in enumerate(returned) if isinstance(v.type, MemRefType)]
    if not memref_positions:
        return []
    rewriter = PatternRewriter()
    out_params = []
    for position in memref_positions:  # step 1
        value = terminator.operands[position]  # read again: a hoisted alloc was replaced
        param = entry.add_argument(MemRefType(value.type.shape, value.type.element_type))
        out_params.append(param)
        alloc = value.defining_op()
        can_hoist = (
            hoist_allocations
            and alloc is not None
            and alloc.name == "memref.alloc"
            and alloc.parent is entry
            and value.type == param.type
        )
        if can_hoist:  # step 2
            rewriter.replace_all_uses_with(value, param)
            sizes = list(alloc.operands)
            rewriter.erase_op(alloc)
            for size in sizes:  # the dynamic sizes were only computed for the alloc
                _erase_if_unused(size, rewriter)
        else:  # step 3
            with rewriter.at(InsertionPoint.before(terminator)):
                rewriter.insert(CopyOp.build(value, param))
    kept = [v for i, v in enumerate(terminator.operands) if i not in memref_positions]
    with rewriter.at(InsertionPoint.before(terminator)):  # step 4
        rewriter.insert(ReturnOp.build(kept))
    rewriter.erase_op(terminator)
    _update_signature(function, out_params, [v.type for v in kept])
    return out_params


def _erase_if_unused(value: Value, rewriter: PatternRewriter) -> None:
    """Erase the pure op defining ``value`` once nothing uses it, and then its inputs."""
    op = value.defining_op()
    if op is None or not is_pure(op) or any(result.has_uses for result in op.results):
        return
    inputs = list(op.operands)
    rewriter.erase_op(op)
    for operand in inputs:
        _erase_if_unused(operand, rewriter)


def _update_signature(function: Operation, out_params: list[Value], results: list) -> None:
    entry = function.regions[0].blocks[0]
    inputs = [argument.type for argument in entry.arguments]
    old = function.attributes.get("arg_attrs")
    count = len(inputs) - len(out_params)
    dicts = list(old) if isinstance(old, ArrayAttr) and len(old) == count else []
    dicts = dicts or [DictionaryAttr({}) for _ in range(count)]
    function.attributes["function_type"] = TypeAttr(FunctionType(inputs, results))
    function.attributes["arg_attrs"] = ArrayAttr(dicts + [DictionaryAttr({}) for _ in out_params])
    mark_out_params(function, range(count, len(inputs)))
    function.attributes.pop("res_attrs", None)
