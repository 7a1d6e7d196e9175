"""Hypothesis strategies for pass tests: random arith programs the interpreter can run.

``arith_programs()`` builds ``func.func @main`` with the Builder: a few scalar
arguments, then a sequence of arith ops drawn from a palette chosen to give the passes
work: constants that fold (0, 1, -1, -0.0 and random values), identities (``x + 0``,
``x * 1``), values combined with themselves (``x - x``, ``cmpi x, x``), casts that
round-trip, selects, duplicated ops (for CSE) and ops nobody uses (for DCE). Divisions
only divide by nonzero constants other than -1, so every program has defined behaviour
on every input.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tinycomp.dialects import arith, func
from tinycomp.ir import Builder, FunctionType, ModuleOp, Value, f16, f32, i1, i32, index

INT_TYPES = [i32, index]
FLOAT_TYPES = [f32, f16]
ARGUMENT_TYPES = [i32, i32, index, f32, f32, f16, i1]
INT_BINARY = [
    arith.AddIOp, arith.SubIOp, arith.MulIOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
    arith.MaxSIOp, arith.MinUIOp,
]  # fmt: skip
FLOAT_BINARY = [
    arith.AddFOp, arith.SubFOp, arith.MulFOp, arith.DivFOp, arith.MaximumFOp, arith.MinNumFOp,
]  # fmt: skip
INT_CONSTANTS = [0, 1, -1, 2, 7, -5, 123456]
FLOAT_CONSTANTS = [0.0, -0.0, 1.0, -1.0, 0.5, 3.25, 1e4]


class _Program:
    """The function being built and the values available so far, by type."""

    def __init__(self, draw, builder: Builder, arguments) -> None:
        self.draw = draw
        self.builder = builder
        self.pool: list[Value] = list(arguments)

    def value_of(self, value_type) -> Value:
        """An existing value of ``value_type`` or a new constant."""
        candidates = [v for v in self.pool if v.type == value_type]
        if candidates and self.draw(st.integers(0, 3)) > 0:
            return self.draw(st.sampled_from(candidates))
        return self.constant(value_type)

    def constant(self, value_type) -> Value:
        if value_type == i1:
            number = self.draw(st.booleans())
        elif value_type in FLOAT_TYPES:
            number = self.draw(st.sampled_from(FLOAT_CONSTANTS))
        else:
            number = self.draw(st.sampled_from(INT_CONSTANTS))
        return self.add(arith.ConstantOp.build(number, value_type))

    def add(self, op) -> Value:
        value = self.builder.insert(op).result
        self.pool.append(value)
        return value


def _int_op(program: _Program, value_type) -> None:
    draw = program.draw
    lhs = program.value_of(value_type)
    rhs = lhs if draw(st.integers(0, 4)) == 0 else program.value_of(value_type)
    choice = draw(st.integers(0, 5))
    if choice == 0:
        predicate = draw(st.sampled_from(arith.CMPI_PREDICATES))
        program.add(arith.CmpIOp.build(predicate, lhs, rhs))
    elif choice == 1:
        number = draw(st.sampled_from([1, 2, 3, 7]))
        divisor = program.add(arith.ConstantOp.build(number, value_type))
        division = draw(st.sampled_from([arith.DivSIOp, arith.RemSIOp, arith.DivUIOp]))
        program.add(division.build(lhs, divisor))
    elif choice == 2 and value_type == i32:
        wide = program.add(arith.IndexCastOp.build(lhs, index))
        program.add(arith.IndexCastOp.build(wide, i32))
    else:
        program.add(draw(st.sampled_from(INT_BINARY)).build(lhs, rhs))


def _float_op(program: _Program, value_type) -> None:
    draw = program.draw
    lhs = program.value_of(value_type)
    rhs = lhs if draw(st.integers(0, 4)) == 0 else program.value_of(value_type)
    choice = draw(st.integers(0, 5))
    flags = draw(st.sampled_from([None, None, "contract"]))
    if choice == 0:
        predicate = draw(st.sampled_from(arith.CMPF_PREDICATES))
        program.add(arith.CmpFOp.build(predicate, lhs, rhs))
    elif choice == 1:
        program.add(arith.NegFOp.build(lhs, fastmath=flags))
    elif choice == 2 and value_type == f16:
        wide = program.add(arith.ExtFOp.build(lhs, f32))
        program.add(arith.TruncFOp.build(wide, f16))
    elif choice == 2:
        narrow = program.add(arith.TruncFOp.build(lhs, f16))
        program.add(arith.ExtFOp.build(narrow, f32))
    else:
        program.add(draw(st.sampled_from(FLOAT_BINARY)).build(lhs, rhs, fastmath=flags))


def _select_op(program: _Program) -> None:
    draw = program.draw
    value_type = draw(st.sampled_from([i32, f32, index]))
    condition = program.value_of(i1)
    if_true = program.value_of(value_type)
    if_false = if_true if draw(st.booleans()) else program.value_of(value_type)
    program.add(arith.SelectOp.build(condition, if_true, if_false))


def _duplicate_an_op(program: _Program) -> None:
    """Re-create an op of the pool with the same operands (a job for CSE)."""
    made = [v for v in program.pool if v.defining_op() is not None]
    if made:
        original = program.draw(st.sampled_from(made)).defining_op()
        program.add(original.clone())


@st.composite
def arith_programs(draw) -> ModuleOp:
    """A module with one random ``@main`` (see the module docstring)."""
    argument_types = draw(st.lists(st.sampled_from(ARGUMENT_TYPES), min_size=1, max_size=4))
    function = func.FuncOp.build("main", FunctionType(argument_types, []))
    program = _Program(draw, Builder.at_end(function.entry_block), function.arguments)
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["int", "int", "float", "float", "select", "duplicate"]))
        if kind == "int":
            _int_op(program, draw(st.sampled_from(INT_TYPES)))
        elif kind == "float":
            _float_op(program, draw(st.sampled_from(FLOAT_TYPES)))
        elif kind == "select":
            _select_op(program)
        else:
            _duplicate_an_op(program)
    count = draw(st.integers(1, 3))
    returned = [draw(st.sampled_from(program.pool)) for _ in range(count)]
    program.builder.insert(func.ReturnOp.build(returned))
    result_types = [v.type for v in returned]
    function.attributes["function_type"] = _function_type_attr(argument_types, result_types)
    return ModuleOp.build([function])


def _function_type_attr(inputs, results):
    from tinycomp.ir import TypeAttr

    return TypeAttr(FunctionType(inputs, results))
