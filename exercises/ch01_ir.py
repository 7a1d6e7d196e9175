"""Chapter 01: SSA IR in MLIR's syntax.

Four tasks, each working on tinycomp's real IR core:

1. ``build_axpy``: build a function with the ``Builder``, op by op.
2. ``ClampFOp.verify_op``: the verifier of a new op, ``tc.clamp``, in a tiny dialect
   defined in this file.
3. ``forward_slice``: follow use lists to find every op that depends on a value.
4. ``build_powi``: build a loop out of blocks, branches and block arguments.

Fill in each TODO, then run ``tinycomp grade ch01``. Your code plugs into the real library:
the last cells of ``chapters/01_ir.ipynb`` run it.
"""

from __future__ import annotations

# Everything the tasks need is imported for you ("noqa: F401" keeps the linter quiet about
# the names your code does not use yet).
from tinycomp.ir import (  # noqa: F401
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
from tinycomp.ir.dialects.arith import AddFOp, AddIOp, CmpIOp, ConstantOp, MulFOp  # noqa: F401
from tinycomp.ir.dialects.cf import BranchOp, CondBranchOp  # noqa: F401
from tinycomp.ir.dialects.func import FuncOp, ReturnOp  # noqa: F401

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
    # TODO(Task 01.1): build a function with the Builder
    raise NotImplementedError("Task 01.1: build @axpy with FuncOp.build, a Builder and insert")


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
        # TODO(Task 01.2): the verifier of a new op
        raise NotImplementedError("Task 01.2: check the types of tc.clamp, raise self.error(...)")

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
    # TODO(Task 01.3): follow use lists to a forward slice
    raise NotImplementedError("Task 01.3: walk value.users, then their results' users...")


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
    # TODO(Task 01.4): build a loop out of blocks
    raise NotImplementedError("Task 01.4: build @powi: four blocks, branches, block arguments")
