"""Properties of bufferization on random elementwise programs with branching uses.

Each generated op either writes a fresh ``tensor.empty`` or updates an existing value
in place (``outs(%v)``, its payload reading the old element), and reads one or two
existing values, some through a transposed map. So values are often read after an op
that could overwrite them, or read by the very op that writes them. Properties:

* the bufferized program (with reuse and deallocation too), and its loops, compute
  exactly what the tensor program computes, and never write the caller's arrays;
* an output operand nobody else reads is always written in place.

A second generator builds tiled-style loops: ``scf.for`` with a tensor ``iter_args``
whose body updates it whole or slice by slice (``extract_slice``, compute,
``insert_slice`` at the same window or another one), reading values from outside the
loop too; the same equality must hold, with arguments read-only or writable.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.interp import interpret, run_bufferized
from tinycomp.ir import parse
from tinycomp.passes import LinalgToLoopsPass, PassManager
from tinycomp.passes.bufferize import analyze_in_place, bufferization_passes

TYPE = "tensor<3x3xf32>"
VECTOR = "tensor<8xf32>"
TILE = "tensor<4xf32>"
ID1 = "affine_map<(d0) -> (d0)>"
IDENTITY = "affine_map<(i, j) -> (i, j)>"
TRANSPOSED = "affine_map<(i, j) -> (j, i)>"


@st.composite
def programs(draw) -> str:
    """A random function of one or two 3x3 arguments (see the module docstring)."""
    values = [f"%x{i}" for i in range(draw(st.integers(1, 2)))]
    arguments = list(values)
    lines = []
    for k in range(draw(st.integers(1, 6))):
        inputs = draw(st.lists(st.sampled_from(values), min_size=1, max_size=2))
        maps = [draw(st.sampled_from([IDENTITY, TRANSPOSED])) for _ in inputs]
        update = draw(st.booleans())
        if update:
            outs = draw(st.sampled_from(values))
        else:
            outs = f"%e{k}"
            lines.append(f"  {outs} = tensor.empty() : {TYPE}")
        kind = draw(st.sampled_from(["addf", "mulf", "subf", "maximumf"]))
        names = [f"%in{i}" for i in range(len(inputs))]
        body = [f"    %t = arith.{kind} {names[0]}, {names[-1]} : f32"]
        yielded = "%t"
        if update:  # read the old element: the write must not destroy what others need
            body.append("    %u = arith.addf %t, %out : f32")
            yielded = "%u"
        arguments_text = ", ".join(f"{n}: f32" for n in names)
        lines += [
            f"  %v{k} = linalg.generic {{indexing_maps = [{', '.join([*maps, IDENTITY])}],"
            ' iterator_types = ["parallel", "parallel"]}',
            f"      ins({', '.join(inputs)} : {', '.join([TYPE] * len(inputs))})"
            f" outs({outs} : {TYPE}) {{",
            f"  ^bb0({arguments_text}, %out: f32):",
            *body,
            f"    linalg.yield {yielded} : f32",
            f"  }} -> {TYPE}",
        ]
        values.append(f"%v{k}")
    results = draw(st.lists(st.sampled_from(values[len(arguments) :]), min_size=1, max_size=2))
    signature = ", ".join(f"{a}: {TYPE}" for a in arguments)
    result_types = ", ".join([TYPE] * len(results))
    return "\n".join(
        [
            f"func.func @main({signature}) -> ({result_types}) {{",
            *lines,
            f"  return {', '.join(results)} : {result_types}",
            "}",
        ]
    )


@settings(max_examples=60, deadline=None)
@given(programs(), st.integers(0, 2**16))
def test_bufferized_programs_compute_the_same_and_leave_arguments_alone(text, seed):
    module = parse(text)
    count = len(module.body.first_op.arguments)
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-2, 2, (3, 3)).astype(np.float32) for _ in range(count)]
    expected = interpret(text, *[a.copy() for a in arrays])
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    PassManager(bufferization_passes()).run(module)
    for stage in ("bufferized", "loops"):
        given = [a.copy() for a in arrays]
        results = run_bufferized(module, *given)
        results = list(results) if isinstance(results, tuple) else [results]
        for got, want in zip(results, expected, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"{stage}\n{text}")
        for before, after in zip(arrays, given, strict=True):
            np.testing.assert_array_equal(after, before)
        LinalgToLoopsPass().run(module)


@settings(max_examples=60, deadline=None)
@given(programs())
def test_an_output_nobody_else_reads_is_written_in_place(text):
    function = parse(text).body.first_op
    arguments = set(function.arguments)
    analysis = analyze_in_place(function)
    for decision in analysis.decisions:
        written = decision.op.operands[decision.operand_index]
        if written.num_uses == 1 and written not in arguments:
            assert decision.in_place, f"{decision.reason}\n{text}"
        if not decision.in_place:
            assert decision.reason.startswith("copy: "), decision.reason


def elementwise(
    name: str,
    ins: list[str],
    types: list[str],
    outs: str,
    out_type: str,
    kind: str,
    reads_out: bool,
) -> list[str]:
    """Lines of ``name = linalg.generic`` combining ``ins`` (and the old output)."""
    names = [f"%in{i}" for i in range(len(ins))]
    body = [f"  %t = arith.{kind} {names[0]}, {names[-1]} : f32"]
    if reads_out:
        body.append("  %u = arith.addf %t, %o : f32")
    maps = ", ".join([ID1] * (len(ins) + 1))
    return [
        f'{name} = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel"]}}',
        f"    ins({', '.join(ins)} : {', '.join(types)}) outs({outs} : {out_type}) {{",
        f"^bb0({', '.join(n + ': f32' for n in names)}, %o: f32):",
        *body,
        f"  linalg.yield {'%u' if reads_out else '%t'} : f32",
        f"}} -> {out_type}",
    ]


@st.composite
def loop_programs(draw) -> str:
    """A function of two 8-element tensors made of elementwise ops and loops."""
    outer = ["%x0", "%x1"]
    lines = [
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%c2 = arith.constant 2 : index",
    ]
    kinds = st.sampled_from(["addf", "mulf", "subf"])
    for k in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):  # an elementwise op on whole tensors
            ins = draw(st.lists(st.sampled_from(outer), min_size=1, max_size=2))
            update = draw(st.booleans())
            outs = draw(st.sampled_from(outer)) if update else f"%e{k}"
            if not update:
                lines.append(f"%e{k} = tensor.empty() : {VECTOR}")
            lines += elementwise(
                f"%v{k}", ins, [VECTOR] * len(ins), outs, VECTOR, draw(kinds), update
            )
            outer.append(f"%v{k}")
            continue
        init = draw(st.sampled_from(outer))
        lines.append(
            f"%r{k} = scf.for %i{k} = %c0 to %c2 step %c1 iter_args(%acc{k} = {init}) "
            f"-> ({VECTOR}) {{"
        )
        current = f"%acc{k}"
        body: list[str] = []
        for j in range(draw(st.integers(1, 3))):
            source = draw(st.sampled_from([*outer, current]))
            name = f"%b{k}_{j}"
            if draw(st.booleans()):  # update the whole iter_arg
                body += elementwise(name, [source], [VECTOR], current, VECTOR, draw(kinds), True)
                current = name
                continue
            read_at, write_at, insert_at = (draw(st.sampled_from([0, 2, 4])) for _ in range(3))
            if draw(st.booleans()):
                insert_at = write_at  # the tiling pattern: write back where it was taken
            body.append(
                f"%in{k}_{j} = tensor.extract_slice {source}[{read_at}] [4] [1] "
                f": {VECTOR} to {TILE}"
            )
            body.append(
                f"%out{k}_{j} = tensor.extract_slice {current}[{write_at}] [4] [1] "
                f": {VECTOR} to {TILE}"
            )
            body += elementwise(
                f"%g{k}_{j}",
                [f"%in{k}_{j}"],
                [TILE],
                f"%out{k}_{j}",
                TILE,
                "mulf",
                draw(st.booleans()),
            )
            body.append(
                f"{name} = tensor.insert_slice %g{k}_{j} into {current}[{insert_at}] [4] [1] "
                f": {TILE} into {VECTOR}"
            )
            current = name
        lines += ["  " + line for line in [*body, f"scf.yield {current} : {VECTOR}"]]
        lines.append("}")
        outer.append(f"%r{k}")
    results = draw(st.lists(st.sampled_from(outer[2:]), min_size=1, max_size=2))
    types = ", ".join([VECTOR] * len(results))
    return "\n".join(
        [
            f"func.func @main(%x0: {VECTOR}, %x1: {VECTOR}) -> ({types}) {{",
            *["  " + line for line in lines],
            f"  return {', '.join(results)} : {types}",
            "}",
        ]
    )


@settings(max_examples=50, deadline=None)
@given(loop_programs(), st.integers(0, 2**16), st.booleans())
def test_bufferized_loops_compute_the_same(text, seed, writable_arguments):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, 8).astype(np.float32) for _ in range(2)]
    expected = interpret(text, *[a.copy() for a in arrays])
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    module = parse(text)
    PassManager(bufferization_passes(writable_arguments=writable_arguments)).run(module)
    for stage in ("bufferized", "loops"):
        given = [a.copy() for a in arrays]
        results = run_bufferized(module, *given)
        results = list(results) if isinstance(results, tuple) else [results]
        for got, want in zip(results, expected, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"{stage}\n{text}")
        if not writable_arguments:
            for before, after in zip(arrays, given, strict=True):
                np.testing.assert_array_equal(after, before)
        LinalgToLoopsPass().run(module)
