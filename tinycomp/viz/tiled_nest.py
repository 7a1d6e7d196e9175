"""Tiled IR read back as a short loop nest: what ``linalg-tile`` built, one line per op.

The IR that tiling produces is exact but wide: every ``tensor.extract_slice`` carries
two tensor types, every loop its ``iter_args`` and result types. ``tiled_loop_summary``
prints the same ops as indented pseudo-code, with the *same value names* as the
printed IR, so a line here and a line of ``print(module)`` can be put side by side::

    %r = for %d0 = 0 to 6 step 4 carrying %arg0 = %y:   # 2 tiles
      %0 = min(-%d0 + 6, 4)                             # affine.min: the last tile is partial
      %extracted_slice = %x[%d0][%0]                    # extract_slice: tensor<?xf32>
      ...

The algorithm:

1. Name the values as the printer does (``SSANames``); an index or float constant is
   written as its number where it is used, and its own line is dropped.
2. Walk the function's ops in order; an ``scf.for`` opens an indented block (its body),
   every other op is one line. linalg ops are one line each: their payload is what
   ``tinycomp.viz.loop_nest`` shows.
3. Each line gets a comment where there is something to say: the number of tiles a loop
   walks and the hardware unit it is bound to (``tinycomp.bind``), or why it must stay
   sequential (``why_not_bindable``: it carries a reduction); ``affine.min`` marks a
   partial last tile; a slice shows its type; a linalg op its iterator types.

(Pseudo-code for reading; nothing runs it. The interpreter runs the IR itself.)

>>> from tinycomp.ir import parse
>>> from tinycomp.passes.tiling import tile_linalg_op
>>> m = parse('''func.func @main(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<6xf32> {
...   %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
...        iterator_types = ["parallel"]} ins(%x : tensor<6xf32>) outs(%y : tensor<6xf32>) {
...   ^bb0(%in: f32, %out: f32):
...     %0 = math.exp %in : f32
...     linalg.yield %0 : f32
...   } -> tensor<6xf32>
...   return %r : tensor<6xf32> }''')
>>> _ = tile_linalg_op(m.body.first_op.entry_block.first_op, [4])
>>> print(tiled_loop_summary(m))
func @main(%x: tensor<6xf32>, %y: tensor<6xf32>)
  %r = for %d0 = 0 to 6 step 4 carrying %arg0 = %y:     # 2 tiles
    %0 = min(-%d0 + 6, 4)                               # affine.min: the last tile is partial
    %extracted_slice = %x[%d0][%0]                      # extract_slice: tensor<?xf32>
    %extracted_slice_0 = %arg0[%d0][%0]                 # extract_slice: tensor<?xf32>
    %r_1 = linalg.generic(%extracted_slice; outs %extracted_slice_0)  # parallel
    %inserted_slice = insert %r_1 into %arg0[%d0][%0]
    yield %inserted_slice
  return %r
"""

from __future__ import annotations

import re

from tinycomp.dialects.affine.apply import AffineApplyOp, AffineMinOp
from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.func import FuncOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.tensor.slices import ExtractSliceOp, InsertSliceOp
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.binding import BIND_ATTRIBUTE, why_not_bindable
from tinycomp.rewrite.matchers import constant_scalar

__all__ = ["tiled_loop_summary"]

INDENT = "  "
"""One level of nesting."""
COMMENT_COLUMN = 56
"""Comments start at this column, or two spaces after a longer line."""


def tiled_loop_summary(op: Operation) -> str:
    """Every function in ``op`` (a module or one ``func.func``) as indented pseudo-code
    (see the module docstring)."""
    functions = [op] if isinstance(op, FuncOp) else [f for f in op.walk() if isinstance(f, FuncOp)]
    if not functions:
        raise TypeError(f"expected a module or a func.func, got '{op.name}' with no function")
    chunks = [_Summary(function).text() for function in functions]
    return "\n".join(chunks)


class _Summary:
    """Steps 1-3 of the module docstring for one function."""

    def __init__(self, function: FuncOp) -> None:
        self.function = function
        self.names = SSANames(function, use_asm_names=True)
        self.lines: list[tuple[str, str]] = []

    def text(self) -> str:
        arguments = ", ".join(
            f"{self.names.value_name(a)}: {a.type}" for a in self.function.entry_block.arguments
        )
        self.lines.append((f"func @{self.function.sym_name}({arguments})", ""))
        self.block(self.function.entry_block.ops, depth=1)
        return "\n".join(_with_comment(code, comment) for code, comment in self.lines)

    def block(self, ops, depth: int) -> None:
        for op in ops:
            if isinstance(op, ConstantOp) and self.is_number(op.result):
                continue  # step 1: written as its number where it is used
            code, comment = self.line(op)
            self.lines.append((INDENT * depth + code, comment))
            if isinstance(op, ForOp):
                self.block(op.body.ops, depth + 1)

    # -- values --------------------------------------------------------------------------
    def is_number(self, value: Value) -> bool:
        return constant_scalar(value) is not None and not hasattr(value.type, "shape")

    def value(self, value: Value | int) -> str:
        """``%x``, or the number a constant holds (``4``, ``0.0``, ``-inf``)."""
        if isinstance(value, int):
            return str(value)
        if self.is_number(value):
            return _number(constant_scalar(value))
        return self.names.value_name(value)

    def values(self, values) -> str:
        return ", ".join(self.value(v) for v in values)

    def results(self, op: Operation) -> str:
        return ", ".join(self.names.value_name(r) for r in op.results)

    # -- one line per op -----------------------------------------------------------------
    def line(self, op: Operation) -> tuple[str, str]:
        """The pseudo-code of ``op`` and its comment (step 3)."""
        if isinstance(op, ForOp):
            return self.loop_line(op)
        assign = f"{self.results(op)} = " if op.results else ""
        if isinstance(op, (AffineMinOp, AffineApplyOp)):
            expressions = _substitute(str(op.map).split(" -> ")[1], op.map.num_dims, op.operands)
            expressions = expressions.format(*(self.value(v) for v in op.operands))
            if isinstance(op, AffineMinOp):
                return f"{assign}min{expressions}", "affine.min: the last tile is partial"
            return f"{assign}{expressions.strip('()')}", "affine.apply"
        if isinstance(op, ExtractSliceOp):
            window = self.window(op)
            return f"{assign}{self.value(op.source)}{window}", f"extract_slice: {op.result.type}"
        if isinstance(op, InsertSliceOp):
            window = self.window(op)
            return f"{assign}insert {self.value(op.source)} into {self.value(op.dest)}{window}", ""
        if isinstance(op, StructuredOp):
            inputs = self.values(op.inputs)
            code = f"{assign}{op.name}({inputs}; outs {self.values(op.outputs)})"
            return code, ", ".join(op.iterator_types())
        if op.name in ("scf.yield", "func.return"):
            return f"{op.name.split('.')[1]} {self.values(op.operands)}".rstrip(), ""
        if op.name == "tensor.empty":
            return f"{assign}empty({self.values(op.operands)})", str(op.results[0].type)
        return f"{assign}{op.name}({self.values(op.operands)})", ""

    def loop_line(self, loop: ForOp) -> tuple[str, str]:
        bounds = [self.value(v) for v in (loop.lower_bound, loop.upper_bound, loop.step)]
        carried = ", ".join(
            f"{self.value(arg)} = {self.value(init)}"
            for arg, init in zip(loop.region_iter_args, loop.init_args, strict=True)
        )
        assign = f"{self.results(loop)} = " if loop.results else ""
        code = f"{assign}for {self.value(loop.induction_var)} = {bounds[0]} to {bounds[1]} "
        code += f"step {bounds[2]}" + (f" carrying {carried}" if carried else "") + ":"
        return code, self.loop_comment(loop)

    def loop_comment(self, loop: ForOp) -> str:
        """``3 tiles, bound to gpu.block.y`` / ``2 tiles, sequential: carries a reduction``."""
        parts = []
        bounds = [constant_scalar(v) for v in (loop.lower_bound, loop.upper_bound, loop.step)]
        if all(isinstance(b, int) for b in bounds) and bounds[2] > 0:
            count = -(-(bounds[1] - bounds[0]) // bounds[2])
            parts.append(f"{count} tile" + ("" if count == 1 else "s"))
        bound = loop.attributes.get(BIND_ATTRIBUTE)
        if isinstance(bound, StringAttr):
            parts.append(f"bound to {bound.value}")
        elif "carries a reduction" in (why_not_bindable(loop) or ""):
            parts.append("sequential: carries a reduction")
        return ", ".join(parts)

    def window(self, op: ExtractSliceOp | InsertSliceOp) -> str:
        """``[%d0, 0][%5, 8]``, with ``[strides]`` only when some stride is not 1."""
        text = f"[{self.values(op.offsets)}][{self.values(op.sizes)}]"
        if any(stride != 1 for stride in op.strides):
            text += f"[{self.values(op.strides)}]"
        return text


def _substitute(expressions: str, num_dims: int, operands) -> str:
    """``(-d0 + 6, 4)`` -> ``(-{0} + 6, 4)``: dims and symbols as format fields, in
    operand order (dims first, then symbols)."""
    escaped = expressions.replace("{", "{{").replace("}", "}}")
    escaped = re.sub(r"\bd(\d+)\b", lambda m: "{" + m.group(1) + "}", escaped)
    return re.sub(r"\bs(\d+)\b", lambda m: "{" + str(num_dims + int(m.group(1))) + "}", escaped)


def _number(value: int | float | bool | None) -> str:
    """A constant as Python writes it: ``4``, ``0.0``, ``-inf``."""
    return repr(value) if not isinstance(value, float) else str(value)


def _with_comment(code: str, comment: str) -> str:
    if not comment:
        return code
    return f"{code.ljust(COMMENT_COLUMN - 2)}  # {comment}"
