"""arith casts to LLVM: one conversion instruction each.

=================================  ====================================================
arith                              LLVM
=================================  ====================================================
extf / truncf                      ``fpext`` / ``fptrunc`` (f16 <-> f32, bf16 <-> f32)
extsi / extui / trunci             ``sext`` / ``zext`` / ``trunc``
sitofp / uitofp / fptosi / fptoui  the instructions of the same names
index_cast / index_castui          ``sext`` or ``trunc`` / ``zext`` or ``trunc`` to or
                                   from ``i64``; nothing at all between index and i64
bitcast                            ``bitcast`` (same bit width: ``f32`` <-> ``i32``)
=================================  ====================================================

``f16`` and ``bf16`` have the same width but different formats, so converting one into
the other is neither an extension nor a truncation in LLVM: tinycomp goes through
``float`` (``fpext`` then ``fptrunc``), which is exact up to the final rounding.

Steps of ``emit_cast``:

1. ``f16`` <-> ``bf16``: ``fpext`` to ``float``, then ``fptrunc``; done.
2. Otherwise find the instruction from the op and the two element widths
   (``cast_instruction``); none needed (``index`` <-> ``i64``): bind the result to the
   operand's text; done.
3. Write ``%r = <instruction> <source type> %x to <result type>`` and bind the result.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> text = emit_llvm(parse('''func.func @f(%x: bf16) -> f32 {
...   %y = arith.extf %x : bf16 to f32
...   return %y : f32
... }''')).text
>>> print(text.splitlines()[2])
  %y = fpext bfloat %x to float
"""

from __future__ import annotations

from tinycomp.codegen.llvm.emit_arith import result_name
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import bitwidth, element_type
from tinycomp.ir.types import FloatType

__all__ = ["cast_instruction"]

_FIXED = {
    "arith.sitofp": "sitofp", "arith.uitofp": "uitofp",
    "arith.fptosi": "fptosi", "arith.fptoui": "fptoui", "arith.bitcast": "bitcast",
}  # fmt: skip
_BY_WIDTH = {
    # op: (instruction when the result is wider, when it is narrower)
    "arith.extf": ("fpext", "fptrunc"), "arith.truncf": ("fpext", "fptrunc"),
    "arith.extsi": ("sext", "trunc"), "arith.extui": ("zext", "trunc"),
    "arith.trunci": ("sext", "trunc"),
    "arith.index_cast": ("sext", "trunc"), "arith.index_castui": ("zext", "trunc"),
}  # fmt: skip


def _width(t) -> int:
    """Bits of the element type, ``index`` counting as 64 as on a 64-bit target."""
    element = element_type(t)
    return 64 if str(element) == "index" else bitwidth(element)


def cast_instruction(op_name: str, source_width: int, result_width: int) -> str | None:
    """The LLVM instruction for a cast between these element widths; ``None`` when
    nothing needs doing (``index_cast`` between ``index`` and ``i64``).

    >>> cast_instruction("arith.index_cast", 32, 64), cast_instruction("arith.index_cast", 64, 64)
    ('sext', None)
    """
    if op_name in _FIXED:
        return _FIXED[op_name]
    wider, narrower = _BY_WIDTH[op_name]
    if result_width == source_width:
        return None
    return wider if result_width > source_width else narrower


def emit_cast(em: FunctionEmitter, op: Operation) -> None:
    """Emit a cast (see the module docstring)."""
    (source,) = op.operands
    if "roundingmode" in op.attributes:
        raise em.op_error(op, "rounding modes other than the default are not supported")
    source_type, result_type = em.llvm_type(source.type), em.llvm_type(op.result.type)
    source_element, result_element = element_type(source.type), element_type(op.result.type)
    if (
        isinstance(source_element, FloatType)
        and isinstance(result_element, FloatType)
        and source_element != result_element
        and source_element.width == result_element.width
    ):  # f16 <-> bf16: through float
        wide_type = source_type.replace(em.llvm_type(source_element), "float")
        wide = em.fresh(f"{source.name_hint or 'cast'}.f32")
        em.emit(f"{wide} = fpext {source_type} {em.value(source)} to {wide_type}")
        result = result_name(em, op, "cast")
        em.emit(f"{result} = fptrunc {wide_type} {wide} to {result_type}")
        em.bind(op.result, result)
        return
    instruction = cast_instruction(op.name, _width(source.type), _width(op.result.type))
    if instruction is None:
        em.bind(op.result, em.value(source))
        return
    result = result_name(em, op, "cast")
    em.emit(f"{result} = {instruction} {source_type} {em.value(source)} to {result_type}")
    em.bind(op.result, result)


for _name in (*_FIXED, *_BY_WIDTH):
    register_emitter(_name)(emit_cast)
