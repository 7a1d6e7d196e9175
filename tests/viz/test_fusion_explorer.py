"""The fusion explorer: checkboxes over the real fusion pass, redrawing graph and bytes."""

from __future__ import annotations

import contextlib
import io
import itertools

import numpy as np
import pytest

import tinycomp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.frontend import TensorSpec, attention, layernorm, rmsnorm, softmax
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes.fusion import why_not_fusable
from tinycomp.perf import program_bytes
from tinycomp.viz.fusion_explorer import KINDS, fusion_explorer, restricted_rule
from tinycomp.viz.fusion_graph import format_bytes, fuse_and_record


def generalized(fn, *shapes):
    specs = [TensorSpec(shape) for shape in shapes]
    return tinycomp.compile(fn, *specs, stop_after="generalized").ir("generalized")


PROGRAMS = {
    "softmax": generalized(softmax, (4, 8)),
    "rmsnorm": generalized(rmsnorm, (4, 8), (8,)),
    "layernorm": generalized(layernorm, (4, 8), (8,), (8,)),
    "attention": generalized(attention, (6, 4), (6, 4), (6, 4)),
}


@pytest.fixture
def explorer():
    return fusion_explorer(PROGRAMS, renderer="text")


def kernels(label: str) -> int:
    """The kernel count a label starts with (``softmax: 6 kernels, ...``)."""
    return int(label.split(": ", 1)[1].split(" ", 1)[0])


def test_all_kinds_on_is_the_library_fusion(explorer):
    for name, module in PROGRAMS.items():
        explorer.set(program=name)
        copy = parse(str(module))
        record = fuse_and_record(copy)
        assert kernels(explorer.label) == len(record.kernels), name
        assert f"{format_bytes(program_bytes(copy))} moved" in explorer.label, name


def test_all_kinds_off_fuses_nothing(explorer):
    explorer.set(program="layernorm", **dict.fromkeys(KINDS, False))
    unfused = sum(1 for op in PROGRAMS["layernorm"].walk() if isinstance(op, GenericOp))
    assert kernels(explorer.label) == unfused
    assert f"{format_bytes(program_bytes(PROGRAMS['layernorm']))} moved" in explorer.label


def test_switching_names_what_changed_and_the_bytes(explorer):
    explorer.set(program="rmsnorm")
    explorer.set(into_reductions=False)
    assert explorer.label.endswith("; +256 B: %mul no longer fused into %sum")
    explorer.set(into_reductions=True)
    assert explorer.label.endswith("; -256 B: %mul now fused into %sum")
    explorer.set(recompute=False)  # the row statistics of rmsnorm are 4x1, its reader 4x8
    assert explorer.label.endswith("no longer fused into %mul_3")
    assert "%rsqrt" in explorer.label.rsplit(": ", 1)[1]


def test_a_new_program_shows_no_change(explorer):
    explorer.set(into_elementwise=False)
    explorer.set(program="attention")
    assert "fused into" not in explorer.label


def test_recompute_switch_is_what_fuses_the_transpose_into_the_matmul(explorer):
    explorer.set(program="attention", recompute=False)
    assert "%transposed, %matmul" not in explorer.picture.text  # the transpose stays alone
    explorer.set(recompute=True)
    assert "%transposed, %matmul" in explorer.picture.text


def test_text_twin_holds_the_switches_the_bars_and_the_graph(explorer):
    explorer.set(program="softmax", into_elementwise=False)
    lines = explorer.text.splitlines()
    assert lines[0] == (
        "explorer \"fusion rules\": program='softmax', into_elementwise=False, "
        "into_reductions=True, recompute=True"
    )
    assert lines[1].startswith("label: softmax: 7 kernels")
    assert lines[2:6] == [
        "bytes moved",
        "  unfused         1.125 KiB",
        "  all kinds on    896 B",
        "  these switches  1.125 KiB",
    ]
    assert lines[6].startswith("fusion graph of @main: 7 kernels -> 7 kernels")


def test_picture_is_one_svg_with_bars_over_the_graph():
    explorer = fusion_explorer({"softmax": PROGRAMS["softmax"]})
    svg = explorer.picture.svg
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert svg.count("bytes moved: softmax") == 1
    assert svg.index("these switches") < svg.index("<svg", 1)  # the bars come first
    before = svg
    explorer.set(into_elementwise=False)
    assert explorer.picture.svg != before
    assert "(+" in explorer.picture.svg  # the bar that moved says by how much
    assert 'stroke-dasharray="4 2"' in explorer.picture.svg  # and where it was


def test_nothing_is_printed_when_a_switch_moves(explorer):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        explorer.set(program="layernorm", into_reductions=False)
        explorer.controls["recompute"].value = False  # as a click in the browser would
    assert out.getvalue() == ""
    assert "recompute=False" in explorer.text


@pytest.mark.parametrize("switches", list(itertools.product([True, False], repeat=3)))
def test_every_choice_of_switches_fuses_legally(switches):
    """The switches only take fusions away from the library's rule: every fused program
    still computes what the unfused one does (interpreter, random inputs)."""
    rule = restricted_rule(*switches)
    rng = np.random.default_rng(7)
    for name in ("layernorm", "attention"):
        module = PROGRAMS[name]
        function = next(op for op in module.walk() if op.name == "func.func")
        arrays = [
            rng.standard_normal(a.type.shape).astype(np.float32)
            for a in function.regions[0].entry_block.arguments
        ]
        fused = parse(str(module))
        fuse_and_record(fused, rule)
        assert np.allclose(interpret(fused, *arrays), interpret(module, *arrays), rtol=1e-5)


def test_restricted_rule_with_everything_on_is_the_library_rule():
    rule = restricted_rule(True, True, True)
    module = PROGRAMS["attention"]
    for consumer in [op for op in module.walk() if isinstance(op, GenericOp)]:
        for index, operand in enumerate(consumer.operands):
            producer = operand.defining_op()
            if isinstance(producer, GenericOp):
                assert rule(producer, consumer, index) == why_not_fusable(producer, consumer, index)


def test_needs_a_program():
    with pytest.raises(ValueError, match="at least one program"):
        fusion_explorer({})
