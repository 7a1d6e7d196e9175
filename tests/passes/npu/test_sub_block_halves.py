"""The 1:2 split is sound: each vector core, given its half of the arguments the plan
slices (and the rest whole), computes its half of the results, and the two halves put
together equal the whole program run on one core (the reference interpreter is both
cores here). Hypothesis draws the shapes, odd ones included. (Where an argument is read
whole by one op and in halves by another, as a column max and the subtraction of it
read ``a``, each core reads GM as it needs; re-running the program on halves cannot
show that, and such draws are left out.)"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tinycomp.frontend import trace
from tinycomp.frontend.nn import layernorm, softmax
from tinycomp.interp import interpret
from tinycomp.ir.values import BlockArgument
from tinycomp.passes.npu.sub_block_split import Split, split_decisions

PROGRAMS = {
    "softmax": (softmax, lambda r, c: [(r, c)]),
    "layernorm": (layernorm, lambda r, c: [(r, c), (c,), (c,)]),
    "bias_add": (lambda a, b: a * 2.0 + b, lambda r, c: [(r, c), (c,)]),
    "column_max": (lambda a: a - a.max(axis=0, keepdims=True), lambda r, c: [(r, c)]),
    "row_sum": (lambda a: a.sum(axis=1), lambda r, c: [(r, c)]),
}


def argument_dims(func) -> list[int | None] | None:
    """How the plan slices each argument (``None``: whole); ``None`` if an argument is
    sliced by one op and read whole by another (then this check does not apply)."""
    dims: dict[int, set] = {}
    for decision in split_decisions(func):
        if isinstance(decision, Split):
            pairs = zip(decision.op.operands, decision.operand_dims, strict=True)
        else:  # computed whole on both cores: its arguments are read whole
            pairs = ((operand, None) for operand in decision.op.operands)
        for operand, dim in pairs:
            if isinstance(operand, BlockArgument):
                dims.setdefault(operand.index, set()).add(dim)
    out = []
    for index in range(len(func.entry_block.arguments)):
        seen = dims.get(index, {None})
        if len(seen) > 1:
            return None
        out.append(next(iter(seen)))
    return out


def halves(values, dims, first):
    """Core 0's and core 1's arguments."""
    cores = ([], [])
    for value, dim in zip(values, dims, strict=True):
        if dim is None:
            cores[0].append(value)
            cores[1].append(value)
        else:
            cores[0].append(np.take(value, range(first), axis=dim))
            cores[1].append(np.take(value, range(first, value.shape[dim]), axis=dim))
    return cores


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(PROGRAMS)), st.integers(2, 9), st.integers(2, 9), st.integers(0, 10**6)
)
def test_two_halves_make_the_whole(name, rows, cols, seed):
    fn, shapes = PROGRAMS[name]
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(shape).astype(np.float32) for shape in shapes(rows, cols)]
    module = trace(fn, *args)
    func = module.body.first_op
    splits = {id(d.op): d for d in split_decisions(func) if isinstance(d, Split)}
    returned = func.entry_block.last_op.operands[0]
    result_split = splits.get(id(returned.op))
    assert result_split is not None, f"{name} {rows}x{cols}: its result is not split"
    dims = argument_dims(func)
    assume(dims is not None)  # an argument read whole by one op and in halves by another
    whole = interpret(module, *args)
    output_map = result_split.op.indexing_maps()[result_split.op.num_inputs + returned.index]
    position = [getattr(e, "position", None) for e in output_map.results].index(result_split.loop)
    first = result_split.first
    cores = halves(args, dims, first)
    parts = [interpret(trace(fn, *core_args), *core_args) for core_args in cores]
    np.testing.assert_allclose(np.concatenate(parts, axis=position), whole, rtol=1e-5, atol=1e-6)
