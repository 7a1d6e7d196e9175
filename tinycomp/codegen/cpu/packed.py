"""The packed calling interface: one ``void(void**)`` entry point per function.

Calling a native function from Python needs its exact machine-level calling
convention, and ctypes knows only C's types: it has no ``half`` or ``bfloat``, and a
function with a rank-4 memref argument takes 11 parameters. MLIR's ExecutionEngine
solves this once for all functions (``packFunctionArguments``): next to each function
``@f`` it generates a wrapper ``@_mlir_f(ptr %args)`` whose one argument points to an
array of pointers, one per parameter and one per result. The wrapper loads each
parameter through its pointer, calls ``@f`` and stores the result through the last
pointer(s). Every function is then called the same way from the host; tinycomp's
calling code (``calling.py``) only fills the array.

Steps of ``packed_wrapper`` for a function with parameters ``p0 .. p(n-1)``:

1. For each parameter ``i``: load the pointer ``args[i]``, then the value it points to.
2. Call the function with the values.
3. For each result (each field of a struct result): store it through ``args[n + k]``.

tinycomp differs from MLIR in step 3 only: a struct of several results is stored one
field per pointer, so the host reads each result from its own slot.

>>> from tinycomp.codegen.llvm.renderer import FunctionText
>>> print(packed_wrapper(FunctionText("add", "float", [("float", "a"), ("float", "b")])))
define void @_mlir_add(ptr %args) {
entry:
  %arg0.slot = getelementptr ptr, ptr %args, i64 0
  %arg0.ptr = load ptr, ptr %arg0.slot
  %arg0 = load float, ptr %arg0.ptr
  %arg1.slot = getelementptr ptr, ptr %args, i64 1
  %arg1.ptr = load ptr, ptr %arg1.slot
  %arg1 = load float, ptr %arg1.ptr
  %result = call float @add(float %arg0, float %arg1)
  %result0.slot = getelementptr ptr, ptr %args, i64 2
  %result0.ptr = load ptr, ptr %result0.slot
  store float %result, ptr %result0.ptr
  ret void
}
"""

from __future__ import annotations

from tinycomp.codegen.llvm.renderer import FunctionText

__all__ = ["PACKED_PREFIX", "packed_wrapper", "result_fields"]

PACKED_PREFIX = "_mlir_"
"""The wrapper of ``@f`` is ``@_mlir_f``, as MLIR's ExecutionEngine names it."""


def result_fields(return_type: str) -> list[str]:
    """The types of the result slots: none for ``void``, the fields of a struct.

    >>> result_fields("void"), result_fields("{ float, i64 }")
    ([], ['float', 'i64'])
    """
    if return_type == "void":
        return []
    if return_type.startswith("{"):
        return [field.strip() for field in return_type.strip("{} ").split(",")]
    return [return_type]


def packed_wrapper(function: FunctionText) -> str:
    """The LLVM IR of ``@_mlir_<name>`` (steps 1-3 above).

    >>> packed_wrapper(FunctionText("tick", "void", [])).splitlines()[2]
    '  call void @tick()'
    """
    lines = [f"define void @{PACKED_PREFIX}{function.name}(ptr %args) {{", "entry:"]
    arguments = []
    for position, (type_, _) in enumerate(function.params):  # step 1
        base = f"%arg{position}"
        lines.append(f"  {base}.slot = getelementptr ptr, ptr %args, i64 {position}")
        lines.append(f"  {base}.ptr = load ptr, ptr {base}.slot")
        lines.append(f"  {base} = load {type_}, ptr {base}.ptr")
        arguments.append(f"{type_} {base}")
    call = f"call {function.return_type} @{function.name}({', '.join(arguments)})"  # step 2
    fields = result_fields(function.return_type)
    lines.append(f"  %result = {call}" if fields else f"  {call}")
    for index, type_ in enumerate(fields):  # step 3
        slot = len(function.params) + index
        value = "%result"
        if len(fields) > 1:
            value = f"%result{index}"
            lines.append(f"  {value} = extractvalue {function.return_type} %result, {index}")
        lines.append(f"  %result{index}.slot = getelementptr ptr, ptr %args, i64 {slot}")
        lines.append(f"  %result{index}.ptr = load ptr, ptr %result{index}.slot")
        lines.append(f"  store {type_} {value}, ptr %result{index}.ptr")
    lines += ["  ret void", "}"]
    return "\n".join(lines)
