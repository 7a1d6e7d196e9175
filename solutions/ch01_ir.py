"""Chapter 01: SSA IR in MLIR's syntax (reference answers).

Four tasks, each working on tinycomp's real IR core:

1. ``build_axpy``: build a function with the ``Builder``, op by op.
2. ``ClampFOp.verify_op``: the verifier of a new op, ``tc.clamp``, in a tiny dialect
   defined in this file.
3. ``forward_slice``: follow use lists to find every op that depends on a value.
4. ``build_powi``: build a loop out of blocks, branches and block arguments.

Fill in each TODO in ``exercises/ch01_ir.py``, then run ``tinycomp grade ch01``.
"""

from __future__ import annotations

from tinycomp.ir import (
    Block,
    Builder,
    Dialect,
    FunctionType,
    ModuleOp,
    Operation,
    Value,
    element_type,
    f32,
    index,
    is_float,
    lookup_op_class,
    register_dialect,
)
from tinycomp.ir.dialects.arith import AddFOp, AddIOp, CmpIOp, ConstantOp, MulFOp
from tinycomp.ir.dialects.cf import BranchOp, CondBranchOp
from tinycomp.ir.dialects.func import FuncOp, ReturnOp

__all__ = ["TC_DIALECT", "ClampFOp", "build_axpy", "build_powi", "forward_slice"]


# -- Task 01.1 ------------------------------------------------------------------------------
def build_axpy() -> ModuleOp:
    """Build, with a ``Builder``, a module holding this function::

        func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
          %ax = arith.mulf %a, %x : f32
          %r = arith.addf %ax, %y : f32
          return %r : f32
        }

    The recipe:

    1. ``FuncOp.build("axpy", FunctionType([f32, f32, f32], [f32]))`` makes the function
       with an empty entry block whose arguments are the parameters;
    2. ``Builder.at_end(func.entry_block)`` appends ops to that block:
       ``b.insert(MulFOp.build(a, x))`` returns the op; ``.result`` is its value;
    3. end the block with a ``ReturnOp``, and put the function in ``ModuleOp.build([func])``.

    Names are not graded (``ir_equal`` ignores them), but setting ``value.name_hint``
    (``"a"``, ``"ax"``...) makes the printed IR read like the text above.

    >>> print(build_axpy())
    module {
      func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
        %ax = arith.mulf %a, %x : f32
        %r = arith.addf %ax, %y : f32
        return %r : f32
      }
    }
    """
    func = FuncOp.build("axpy", FunctionType([f32, f32, f32], [f32]))
    a, x, y = func.arguments
    a.name_hint, x.name_hint, y.name_hint = "a", "x", "y"
    b = Builder.at_end(func.entry_block)
    ax = b.insert(MulFOp.build(a, x)).result
    ax.name_hint = "ax"
    r = b.insert(AddFOp.build(ax, y)).result
    r.name_hint = "r"
    b.insert(ReturnOp.build([r]))
    return ModuleOp.build([func])


# -- Task 01.2 ------------------------------------------------------------------------------
class ClampFOp(Operation):
    """Clamp a float between two bounds: ``%r = tc.clamp %x, %lo, %hi : f32``.

    ``%r`` is ``min(max(%x, %lo), %hi)``, elementwise for vectors and tensors. The
    custom syntax has room for one type, so it can only describe a valid op; the
    generic form can describe any, which is what the verifier is for::

        %r = "tc.clamp"(%x, %lo, %hi) : (f32, f16, f32) -> f32   // invalid: %lo is f16

    ``tc`` is this chapter's own dialect. Real ``mlir-opt`` does not know it, so it reads
    only the generic form (with ``--allow-unregistered-dialect``) and checks nothing.

    >>> from tinycomp.ir import parse
    >>> module = parse('''
    ... func.func @f(%x: f32, %lo: f32, %hi: f32) -> f32 {
    ...   %r = tc.clamp %x, %lo, %hi : f32
    ...   return %r : f32
    ... }''')
    >>> type(module.body.first_op.entry_block.first_op).__name__
    'ClampFOp'
    """

    name = "tc.clamp"
    num_operands = 3
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, x: Value, lo: Value, hi: Value) -> ClampFOp:
        """``clamp(x, lo, hi)``; the result has the type of ``x``."""
        return cls([x, lo, hi], [x.type])

    @property
    def x(self) -> Value:
        """The value to clamp."""
        return self.operands[0]

    @property
    def lo(self) -> Value:
        """The lower bound."""
        return self.operands[1]

    @property
    def hi(self) -> Value:
        """The upper bound."""
        return self.operands[2]

    def verify_op(self) -> None:
        """Check the op's types; raise ``self.error("expected ..., got ...")`` if wrong.

        The rules:

        1. ``%lo``, ``%hi`` and the result have the type of ``%x``: the message names
           both types, e.g. ``expected %lo to have the type of %x, f32, got f16``;
        2. that type is a float (``f16``, ``bf16``, ``f32``, ``f64``) or a vector or
           tensor of floats: ``expected a float or a vector/tensor of floats, got i32``.

        (The verifier has already checked that there are 3 operands and 1 result.)
        """
        x_type = self.x.type
        for role, value in (("%lo", self.lo), ("%hi", self.hi), ("the result", self.result)):
            if value.type != x_type:
                raise self.error(
                    f"expected {role} to have the type of %x, {x_type}, got {value.type}"
                )
        if not is_float(element_type(x_type)):
            raise self.error(f"expected a float or a vector/tensor of floats, got {x_type}")

    def print_custom(self, printer) -> None:
        """`` %x, %lo, %hi {attrs} : type``."""
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes)
        printer.write(" : ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser) -> ClampFOp:
        """Read what ``print_custom`` writes."""
        names = parser.parse_operand_list()
        if len(names) != 3:
            raise parser.expected("3 operands: %x, %lo, %hi")
        attributes = parser.parse_optional_attr_dict()
        value_type = parser.parse_colon_type()
        operands = parser.resolve_operands(names, [value_type] * 3)
        return cls(operands, [value_type], attributes)


TC_DIALECT = Dialect("tc", [ClampFOp])
"""This chapter's dialect: one op, registered so that the parser builds ``ClampFOp``."""

# Register once per Python process. Loading this file again (after an edit, in the same
# notebook kernel) keeps the class registered first for the parser; ops you build in
# Python with ``ClampFOp.build`` always use the class you have just loaded.
if lookup_op_class(ClampFOp.name) is None:
    register_dialect(TC_DIALECT)


# -- Task 01.3 ------------------------------------------------------------------------------
def forward_slice(func: Operation, value: Value) -> list[Operation]:
    """Every op of ``func`` that depends on ``value``, each once, in ``func.walk()`` order.

    An op depends on ``value`` when it reads it, or reads a result of an op that
    depends on it. Use lists make this a graph walk: ``value.users`` are the readers,
    and each reader's ``results`` have users of their own. A branch that passes a value
    to a block argument (``cf.br ^bb1(%v : f32)``) reads it, so it is in the slice, but
    the slice does not continue through the block argument (MLIR's
    ``getForwardSlice`` stops there too).

    1. Start a worklist with ``value``; keep a set of the ops found so far.
    2. Pop a value; every user not seen yet joins the set, and its results the worklist.
    3. When the worklist is empty, list the ops found in the order ``func.walk()``
       visits them.

    >>> from tinycomp.ir import parse
    >>> m = parse('''
    ... func.func @f(%x: f32, %y: f32) -> f32 {
    ...   %a = arith.mulf %x, %x : f32
    ...   %b = arith.addf %y, %y : f32
    ...   %c = arith.addf %a, %b : f32
    ...   return %c : f32
    ... }''')
    >>> f = m.body.first_op
    >>> [op.name for op in forward_slice(f, f.arguments[0])]
    ['arith.mulf', 'arith.addf', 'func.return']
    """
    found: set[Operation] = set()
    worklist = [value]
    while worklist:
        current = worklist.pop()
        for user in current.users:
            if user not in found:
                found.add(user)
                worklist.extend(user.results)
    return [op for op in func.walk() if op in found]


# -- Task 01.4 ------------------------------------------------------------------------------
def build_powi() -> ModuleOp:
    """Build, with a ``Builder``, a loop made of blocks that computes ``x`` to the ``n``::

        func.func @powi(%x: f32, %n: index) -> f32 {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %cst = arith.constant 1.000000e+00 : f32
          cf.br ^bb1(%c0, %cst : index, f32)
        ^bb1(%i: index, %acc: f32):  // 2 preds: ^bb0, ^bb2
          %done = arith.cmpi sge, %i, %n : index
          cf.cond_br %done, ^bb3, ^bb2
        ^bb2:  // pred: ^bb1
          %acc_next = arith.mulf %acc, %x : f32
          %i_next = arith.addi %i, %c1 : index
          cf.br ^bb1(%i_next, %acc_next : index, f32)
        ^bb3:  // pred: ^bb1
          return %acc : f32
        }

    ``^bb1`` is the loop header: its arguments ``%i`` and ``%acc`` play the part of
    phi nodes, receiving ``%c0, %cst`` on entry and ``%i_next, %acc_next`` from the
    back edge. The recipe:

    1. make the function as in Task 01.1, then three more blocks, appended in order
       to ``func.body`` with ``append_block``: ``Block([index, f32])`` for ``^bb1``,
       ``Block()`` for ``^bb2`` and ``^bb3``;
    2. fill each block with its own builder (``Builder.at_end(block)``). A branch can
       name a block before it has any ops: ``BranchOp.build(header, [c0, one])``,
       ``CondBranchOp.build(done, exit, [], body, [])``;
    3. constants: ``ConstantOp.build(0, index)``, ``ConstantOp.build(1.0, f32)``; the
       comparison: ``CmpIOp.build("sge", i, n)``.

    >>> func = build_powi().body.first_op
    >>> [len(block.arguments) for block in func.body.blocks], [len(block) for block in func.body]
    ([2, 2, 0, 0], [4, 2, 3, 1])
    """
    func = FuncOp.build("powi", FunctionType([f32, index], [f32]))
    x, n = func.arguments
    x.name_hint, n.name_hint = "x", "n"
    header = func.body.append_block(Block([index, f32]))
    body = func.body.append_block(Block())
    exit_block = func.body.append_block(Block())
    i, acc = header.arguments
    i.name_hint, acc.name_hint = "i", "acc"

    entry = Builder.at_end(func.entry_block)
    c0 = entry.insert(ConstantOp.build(0, index)).result
    c1 = entry.insert(ConstantOp.build(1, index)).result
    one = entry.insert(ConstantOp.build(1.0, f32)).result
    entry.insert(BranchOp.build(header, [c0, one]))

    check = Builder.at_end(header)
    done = check.insert(CmpIOp.build("sge", i, n)).result
    done.name_hint = "done"
    check.insert(CondBranchOp.build(done, exit_block, [], body, []))

    step = Builder.at_end(body)
    acc_next = step.insert(MulFOp.build(acc, x)).result
    acc_next.name_hint = "acc_next"
    i_next = step.insert(AddIOp.build(i, c1)).result
    i_next.name_hint = "i_next"
    step.insert(BranchOp.build(header, [i_next, acc_next]))

    Builder.at_end(exit_block).insert(ReturnOp.build([acc]))
    return ModuleOp.build([func])
