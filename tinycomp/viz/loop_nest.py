"""A linalg op read back as the loop nest it stands for, in Python-like pseudo-code.

A ``linalg`` op is a loop nest written down as data: one loop per iterator type, one
indexing map per operand, and a payload that computes one element. ``loop_nest(op)``
writes that data back as loops, so the three parts can be read side by side::

    %max = copy(%1)                   # outs: the initial value of the result
    for d0 in range(4):               # parallel
      for d1 in range(8):             # reduction
        %max[d0, 0] = max(%x[d0, d1], %max[d0, 0])

The algorithm:

1. Name the values as the printer does (``SSANames``), so ``%max`` here is ``%max``
   in ``print_ir``. Loops are named ``d0, d1, ...``, or with the op's own names
   (``m, n, k`` for ``linalg.matmul``).
2. The header line says where the result starts: a copy of the ``outs`` tensor when the
   payload reads it (an accumulator: a reduction's init, matmul's ``C``), else a new
   tensor of its type (``tensor.empty`` only gave the shape).
3. One ``for`` line per loop, with its trip count and iterator type.
4. The payload becomes expressions. Block argument ``i`` is operand ``i`` indexed by its
   map (``%x[d0, d1]``); a constant captured from outside is its number; every other op
   is an operator (``+ - * /``) or a call (``exp(...)``, ``max(...)``). A value used
   more than once gets a line of its own (``t0 = ...``); ``linalg.yield`` becomes one
   assignment per output.

(The result is a single-assignment pseudo-code for reading; nothing runs it. The
interpreter, ``tinycomp.interpret``, is what runs a linalg op.)

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>)
...     -> tensor<4x16xf32> {
...   %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
...                      outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
...   return %0 : tensor<4x16xf32>
... }''')
>>> print(loop_nest(m.body.first_op.entry_block.first_op))
%0 = copy(%c)                    # outs: the initial value of the result
for m in range(4):               # parallel
  for n in range(16):            # parallel
    for k in range(8):           # reduction
      %0[m, n] = %0[m, n] + %a[m, k] * %b[k, n]
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap
from tinycomp.dialects.arith.cast import CastOp
from tinycomp.dialects.arith.compare import CompareOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.type_helpers import is_float, to_numpy_dtype
from tinycomp.ir.types import ShapedType, Type
from tinycomp.ir.values import BlockArgument, Value
from tinycomp.rewrite.matchers import constant_scalar
from tinycomp.viz.indexing_maps import rename_dims

__all__ = ["loop_nest"]

INDENT = "  "
"""One level of loop nesting."""

# Operators and their precedence (higher binds tighter), as in Python.
_INFIX = {
    "arith.addf": ("+", 1), "arith.addi": ("+", 1),
    "arith.subf": ("-", 1), "arith.subi": ("-", 1),
    "arith.mulf": ("*", 2), "arith.muli": ("*", 2),
    "arith.divf": ("/", 2), "arith.divsi": ("/", 2), "arith.divui": ("/", 2),
}  # fmt: skip
_CALLS = {
    "arith.maximumf": "max", "arith.maxnumf": "max", "arith.maxsi": "max",
    "arith.minimumf": "min", "arith.minnumf": "min", "arith.minsi": "min",
    "arith.select": "select",
}  # fmt: skip
_ATOM = 9  # precedence of names, numbers and calls: never parenthesized
_UNARY = 3


def loop_nest(op: StructuredOp, loop_names: Sequence[str] | None = None) -> str:
    """The loop nest that the linalg op ``op`` stands for (see the module docstring).

    ``loop_names`` replaces the op's loop names (``d0, d1, ...`` for ``linalg.generic``).

    >>> from tinycomp.frontend import TensorSpec, exp, trace
    >>> m = trace(lambda x: exp(x) * 2.0, TensorSpec((3,)))
    >>> generics = [o for o in m.walk() if o.name == "linalg.generic"]
    >>> print(loop_nest(generics[1], loop_names=["i"]))
    %mul = new tensor<3xf32>         # outs %1 gives only the shape
    for i in range(3):               # parallel
      %mul[i] = %exp[i] * 2.0
    """
    if not isinstance(op, StructuredOp):
        raise TypeError(f"expected a linalg op (linalg.generic, linalg.matmul, ...), got {op.name}")
    names = SSANames(naming_root(op), use_asm_names=True)
    iterators = op.iterator_types()
    sizes = op.static_loop_sizes()
    if loop_names is None:
        loop_names = [op.loop_name(i) for i in range(len(iterators))]
    if len(loop_names) != len(iterators):
        raise ValueError(f"expected {len(iterators)} loop names, got {list(loop_names)}")
    writer = _PayloadWriter(op, names, list(loop_names))
    lines = [(writer.header(), writer.header_comment())]
    for depth, (name, size, kind) in enumerate(zip(loop_names, sizes, iterators, strict=True)):
        trip = "?" if size is None else str(size)
        lines.append((f"{INDENT * depth}for {name} in range({trip}):", kind))
    body_indent = INDENT * len(iterators)
    for statement in writer.statements():
        lines.append((body_indent + statement, None))
    width = max(len(code) for code, comment in lines if comment is not None) + 3
    width = max(width, 33)
    return "\n".join(
        code if comment is None else f"{code.ljust(width)}# {comment}" for code, comment in lines
    )


class _PayloadWriter:
    """Step 2 and 4 of the module docstring for one op."""

    def __init__(self, op: StructuredOp, names: SSANames, loop_names: list[str]) -> None:
        self.op = op
        self.names = names
        self.loop_names = loop_names
        self.maps: list[AffineMap] = op.indexing_maps()
        self.temporaries: dict[Value, str] = {}
        self.expressions: dict[Value, tuple[str, int]] = {}

    # -- the target of each output -----------------------------------------------------
    def output_name(self, position: int) -> str:
        """The result holding output ``position`` (tensors), or the buffer (memrefs)."""
        if self.op.results:
            return self.names.value_name(self.op.results[position])
        return self.names.value_name(self.op.outputs[position])

    def header(self) -> str:
        parts = []
        for position, output in enumerate(self.op.outputs):
            if not self.op.results:
                continue  # a buffer is written in place: nothing to set up
            target = self.output_name(position)
            if self.op.payload_reads(self.op.num_inputs + position):
                parts.append(f"{target} = copy({self.names.value_name(output)})")
            else:
                parts.append(f"{target} = new {output.type}")
        return "; ".join(parts) if parts else f"# {self.op.name} writes its outs buffers"

    def header_comment(self) -> str | None:
        if not self.op.results:
            return None
        reads = [self.op.payload_reads(self.op.num_inputs + i) for i in range(self.op.num_outputs)]
        if all(reads):
            return "outs: the initial value of the result"
        if not any(reads):
            shapes = ", ".join(self.names.value_name(v) for v in self.op.outputs)
            return f"outs {shapes} gives only the shape"
        return "outs: initial values where the payload reads them"

    # -- the payload ---------------------------------------------------------------------
    def element(self, position: int) -> str:
        """``%x[d0, d1]``: the element of operand ``position`` one iteration touches."""
        operand = self.op.operands[position]
        if position >= self.op.num_inputs:
            name = self.output_name(position - self.op.num_inputs)
        else:
            constant = constant_scalar(operand)
            if constant is not None and not isinstance(operand.type, ShapedType):
                return _number(constant, operand.type)
            name = self.names.value_name(operand)
        if not isinstance(operand.type, ShapedType):
            return name  # a scalar operand (linalg.fill's value)
        results = rename_dims(str(self.maps[position]), self.loop_names).split(" -> ")[1]
        indices = results.strip()[1:-1]
        return f"{name}[{indices}]" if indices else f"{name}[()]"

    def statements(self) -> list[str]:
        """The payload as assignments: temporaries, then one per output."""
        lines: list[str] = []
        for nested in self.op.body:
            if nested.name == "linalg.yield":
                for position, value in enumerate(nested.operands):
                    target = self.element(self.op.num_inputs + position)
                    lines.append(f"{target} = {self.expression(value)[0]}")
                continue
            text = self.op_expression(nested)
            for result in nested.results:
                if len(result.uses) > 1:
                    name = f"t{len(self.temporaries)}"
                    self.temporaries[result] = name
                    lines.append(f"{name} = {text[0]}")
                    self.expressions[result] = (name, _ATOM)
                else:
                    self.expressions[result] = text
        return lines

    def expression(self, value: Value) -> tuple[str, int]:
        """The text of ``value`` and its precedence."""
        if value in self.expressions:
            return self.expressions[value]
        if isinstance(value, BlockArgument) and value.block is self.op.body:
            return self.element(value.index), _ATOM
        constant = constant_scalar(value)
        if constant is not None:
            return _number(constant, value.type), _ATOM
        return self.names.value_name(value), _ATOM  # captured from outside the op

    def operand(self, value: Value, precedence: int, right: bool = False) -> str:
        text, own = self.expression(value)
        if own < precedence or (right and own == precedence):
            return f"({text})"
        return text

    def op_expression(self, op: Operation) -> tuple[str, int]:
        if op.name in _INFIX and len(op.operands) == 2:
            symbol, precedence = _INFIX[op.name]
            lhs = self.operand(op.operands[0], precedence)
            rhs = self.operand(op.operands[1], precedence, right=True)
            return f"{lhs} {symbol} {rhs}", precedence
        if op.name == "arith.negf":
            return f"-{self.operand(op.operands[0], _UNARY)}", _UNARY
        if op.name == "linalg.index":
            return self.loop_names[op.dim], _ATOM
        if isinstance(op, CastOp):
            return f"{op.result.type}({self.expression(op.operands[0])[0]})", _ATOM
        arguments = ", ".join(self.expression(v)[0] for v in op.operands)
        if isinstance(op, CompareOp):
            return f"{op.predicate}({arguments})", _ATOM
        function = _CALLS.get(op.name, op.name.split(".", 1)[-1])
        return f"{function}({arguments})", _ATOM


def _number(value: int | float | bool, value_type: Type) -> str:
    """A constant as numpy prints it in its own type: ``0.044715`` (not the f64 digits
    ``0.044714998453855515`` of the nearest f32), ``-inf``, ``3``, ``True``.

    >>> from tinycomp.ir.types import f32, i32
    >>> _number(0.044714998453855515, f32), _number(float("-inf"), f32), _number(3, i32)
    ('0.044715', '-inf', '3')
    """
    if isinstance(value, float) and is_float(value_type):
        return str(to_numpy_dtype(value_type).type(value))
    return repr(value)
