"""Chapter 01: SSA IR in MLIR's syntax (reference answers).

Five tasks, each working on tinycomp's real IR core:

1. ``build_axpy``: build a function with the ``Builder``, op by op.
2. ``ClampFOp.verify_op``: the verifier of a new op, ``tc.clamp``, in a tiny dialect
   defined in this file.
3. ``forward_slice``: follow use lists to find every op that depends on a value.
4. ``build_powi``: build a loop out of blocks, branches and block arguments.
5. ``build_pow15`` (open): ``x`` to the 15th power in at most five ops.

Each docstring is the task's contract: what goes in, what must come out, one example, and
the section of ``chapters/01_ir.ipynb`` that teaches the idea. Fill in each TODO in
``exercises/ch01_ir.py``, then run ``tinycomp grade ch01``. Build IR with the ``Builder``:
the grader refuses IR that was parsed from text where a task asks you to build it. Your
code plugs into the real library: the last cells of the chapter run it.
"""

from __future__ import annotations

from tinycomp.dialects.arith import (
    AddFOp,
    AddIOp,
    CmpIOp,
    ConstantOp,
    MulFOp,
)
from tinycomp.dialects.cf import BranchOp, CondBranchOp
from tinycomp.dialects.func import FuncOp, ReturnOp
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

__all__ = ["TC_DIALECT", "ClampFOp", "build_axpy", "build_pow15", "build_powi", "forward_slice"]


# -- Task 01.1 ------------------------------------------------------------------------------
def build_axpy() -> ModuleOp:
    """A new module holding ``@axpy(a, x, y) = a * x + y`` on ``f32``, built op by op.

    Contract:

    * every call returns a fresh ``ModuleOp`` that verifies and holds one function,
      ``func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32``;
    * its body is one ``arith.mulf`` of ``%a`` and ``%x``, one ``arith.addf`` of that
      product and ``%y``, and the ``return`` of the sum (two roundings, like the text
      below);
    * built with a ``Builder``, not parsed from text.

    SSA names are not graded; ``value.name_hint`` makes the printed IR read like this,
    the worked example (taught in "Building IR with the Builder", the ``@lerp`` cells)::

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
        """Reject every ``tc.clamp`` whose types are wrong, and accept every other.

        Contract: an op is valid when ``%x``, ``%lo``, ``%hi`` and the result all have one
        type, and that type is a float (``f16``, ``bf16``, ``f32``, ``f64``) or a vector
        or tensor of floats. For an invalid op, raise ``self.error(message)``: it makes
        the ``VerifyError`` that names this op and its source line. The message says what
        was expected and what was found, naming the types involved, so that the reader
        can fix the IR. (The verifier has already checked that there are 3 operands and
        1 result.)

        Worked example: ``"tc.clamp"(%x, %lo, %hi) : (f32, f16, f32) -> f32`` is invalid:
        ``%lo`` is ``f16`` where the type of ``%x``, ``f32``, was expected. Taught in "The
        verifier" (its third example, a type mismatch written in generic form).
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

    Contract: an op depends on ``value`` when it reads it, or reads a result of an op that
    depends on it. A branch that passes a dependent value to a block argument
    (``cf.br ^bb1(%v : f32)``) reads it, so the branch is in the slice, but the slice
    does not continue through the block argument (MLIR's ``getForwardSlice`` stops there
    too). ``func`` is left unchanged. Taught in "Use lists: who reads this value?".

    Worked example:

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
    """A new module holding ``@powi(x, n) = x ** n`` as a loop made of blocks.

    Contract:

    * every call returns a fresh ``ModuleOp`` that verifies and holds one function,
      ``func.func @powi(%x: f32, %n: index) -> f32``;
    * for every ``n >= 0`` it returns ``x`` multiplied by itself ``n`` times (``1.0`` for
      ``n = 0``), one ``arith.mulf`` per trip around the loop;
    * the loop is control flow between blocks of the function's body (``cf.br``,
      ``cf.cond_br``), and the values that change from one trip to the next travel in
      block arguments; only ``func``, ``arith`` and ``cf`` ops;
    * built with a ``Builder``, not parsed from text.

    Worked example: in the reference interpreter ``@powi(1.5, 3)`` returns ``3.375`` and
    ``@powi(1.5, 0)`` returns ``1.0``. Taught in "Control flow: blocks, branches, block
    arguments" (``@geometric`` is a loop of the same kind) and in "Building IR with the
    Builder" (``@pick`` builds blocks and branches).
    """
    # ^bb0: constants, then jump to the header with i = 0, acc = 1.0
    # ^bb1(%i, %acc): the header; leave when i >= n
    # ^bb2: acc * x, i + 1, back to the header;  ^bb3: return acc
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


# -- Task 01.5 (open) -----------------------------------------------------------------------
def build_pow15() -> ModuleOp:
    """A new module holding ``@pow15(x) = x ** 15`` on ``f32``, in at most five ops.

    Contract:

    * every call returns a fresh ``ModuleOp`` that verifies and holds one function,
      ``func.func @pow15(%x: f32) -> f32``, whose body is straight-line code: at most
      **five** ops before the ``return``, all of them ``arith`` ops;
    * it returns ``x ** 15`` within f32 rounding for every input, ``0.0``, ``-0.0``,
      infinities and NaN included, and exactly wherever ``x ** 15`` is exact in f32 (for
      ``x = 3.0``, ``14348907.0``).

    Many programs meet the budget; the grader counts the ops of yours and runs it. Worked
    example of the counting (not an answer): ``x ** 3`` as two ``arith.mulf`` is two ops.
    Taught in "Building IR with the Builder" (a value can be read by many ops) and in
    "Use lists: who reads this value?".
    """
    # An addition chain for 15: 1, 2, 3, 6, 12, 15. Squaring alone (1, 2, 4, 8, then
    # x * x2 * x4 * x8) takes six multiplications; reusing x3 saves one.
    func = FuncOp.build("pow15", FunctionType([f32], [f32]))
    (x,) = func.arguments
    x.name_hint = "x"
    b = Builder.at_end(func.entry_block)
    powers = {1: x}
    for target, (lhs, rhs) in {2: (1, 1), 3: (2, 1), 6: (3, 3), 12: (6, 6), 15: (12, 3)}.items():
        powers[target] = b.insert(MulFOp.build(powers[lhs], powers[rhs])).result
        powers[target].name_hint = f"x{target}"
    b.insert(ReturnOp.build([powers[15]]))
    return ModuleOp.build([func])
