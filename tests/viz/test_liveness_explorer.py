"""liveness_explorer: program points over the real bufferization passes, nothing printed."""

import re

import pytest

from tinycomp.frontend import TensorSpec, exp, softmax, trace
from tinycomp.passes import PassManager
from tinycomp.passes.bufferize import bufferization_passes
from tinycomp.testing import KERNELS
from tinycomp.viz import Explorer
from tinycomp.viz.liveness_explorer import liveness_explorer, stage_states
from tinycomp.viz.memory_timeline import memory_timeline


def shifted_exp(x):
    return exp(x) * 2.0 + 1.0 - x


@pytest.fixture(scope="module")
def program():
    return trace(shifted_exp, TensorSpec((4, 4)))


def listing_of(explorer: Explorer) -> str:
    (found,) = [w for w in explorer.widget.children if "tinycomp-ir-listing" in w._dom_classes]
    return found.value


@pytest.mark.parametrize("reuse", [False, True])
def test_peaks_are_the_reports(program, reuse):
    module = program.clone()
    passes = bufferization_passes(reuse=reuse)
    PassManager(passes).run(module)
    states = stage_states(program, reuse=reuse)
    assert [s.stage for s in states] == [p.name for p in passes]
    assert {s.stage: s.peak[0] for s in states} == {
        name: size for name, size in passes[0].report.peak_bytes.items() if "(before)" not in name
    }


def test_ranges_are_the_library_liveness(program):
    module = program.clone()
    PassManager(bufferization_passes(reuse=False)).run(module)
    timeline = memory_timeline(module, "freed")
    state = stage_states(program, reuse=False)[-1]
    assert [(b.name, b.live, b.held) for b in state.buffers] == [
        (b.name, b.live[0][1:], b.held) for b in timeline.buffers
    ]
    assert state.last == timeline.last
    assert [state.held_bytes(i) for i in range(1, state.last + 1)] == timeline.held_bytes()


def test_stepping_through_the_program(program, capsys):
    explorer = liveness_explorer(program, reuse=False)
    assert explorer.values == {"stage": "one-shot-bufferize", "op": 1}
    explorer.set(stage="buffer-deallocation", op=5)
    assert explorer.label == (
        "op 5 of 10: 'linalg.generic' at line 12; live: %alloc, %alloc_0; held: 128 B; "
        "peak 128 B at op 4"
    )
    text = explorer.picture.text
    assert "%alloc       64  1..5    1..5    live" in text
    assert "%alloc_2     64  7..9    7..9    -" in text
    explorer.set(stage="one-shot-bufferize")  # nothing freed: all three held at the end
    explorer.set(op=9)
    assert explorer.label.endswith("held: 192 B; peak 192 B at op 7")
    assert "%alloc       64  1..5    1..10   held, dead" in explorer.picture.text
    assert capsys.readouterr().out == ""  # nothing printed from the callbacks


def test_the_listing_marks_the_op_and_numbers_the_ops(program):
    explorer = liveness_explorer(program, reuse=False)
    explorer.set(stage="buffer-deallocation", op=5)
    listing = listing_of(explorer)
    assert "tinycomp-ir" in listing and "after buffer-deallocation" in listing
    state = stage_states(program, reuse=False)[-1]
    name, first, last = state.ops[4]
    assert (name, first) == ("linalg.generic", 12) and last == 16  # the generic and its payload
    assert state.text.split("\n")[first - 1].lstrip().startswith("linalg.generic")
    assert state.text.split("\n")[last - 1].strip() == "}"
    assert re.search(r"#fff8c5", listing)  # the highlight band


def test_the_op_slider_follows_the_stage():
    mlp = KERNELS["mlp2"]
    program = trace(mlp.fn, *[TensorSpec(s) for s in [(8, 16), (16, 32), (32,), (32, 8), (8,)]])
    explorer = liveness_explorer(program)
    states = {s.stage: s for s in stage_states(program)}
    assert states["buffer-reuse"].last < states["one-shot-bufferize"].last  # allocs merged
    explorer.set(op=states["one-shot-bufferize"].last)
    explorer.set(stage="buffer-reuse")
    assert explorer.controls["op"].max == states["buffer-reuse"].last
    assert explorer.values["op"] == states["buffer-reuse"].last
    assert "peak 3328 B" in explorer.label


def test_colours_follow_the_buffer_across_stages():
    program = trace(softmax, TensorSpec((2, 5)))
    explorer = liveness_explorer(program)
    first = explorer.picture.svg
    explorer.set(stage="buffer-deallocation")
    # a buffer's colour is its own in every stage: the fills of the first stage's bars
    # include every fill of the last one (fewer buffers after reuse, same colours)
    fills = set(re.findall(r"fill: (#[0-9a-f]{6})", explorer.picture.svg))
    assert fills <= set(re.findall(r"fill: (#[0-9a-f]{6})", first))


def test_one_function_only():
    text = "func.func @f() { return }\nfunc.func @g() { return }"
    with pytest.raises(ValueError, match="one function, found 2"):
        liveness_explorer(text)
