"""program_explorer: the catalogue's programs traced at any size, counted, nothing printed."""

import pytest

from tinycomp.perf import kernel_costs
from tinycomp.testing import KERNELS
from tinycomp.viz.cost_table import CHANGED
from tinycomp.viz.ir_text import KINDS
from tinycomp.viz.program_explorer import changed_lines, program_explorer, size_options


@pytest.fixture
def explorer():
    return program_explorer("matmul", renderer="text")


def matmul_counts(m: int, k: int, n: int) -> tuple[int, int]:
    """FLOPs and bytes of a traced f32 matmul, by hand: the fill writes C; the matmul reads
    A, B and C (its accumulator) and writes C."""
    return 2 * m * n * k, 4 * (m * n + m * k + k * n + 2 * m * n)


def test_starts_at_the_catalogue_default(explorer):
    assert explorer.values == {"program": "matmul", "m": 16, "k": 32, "n": 8, "stage": "traced"}
    flops, moved = matmul_counts(16, 32, 8)
    assert explorer.label.startswith(f"matmul (m=16, k=32, n=8): 2 kernels, {flops} FLOPs")
    assert explorer.text.startswith("explorer \"tensor programs\": program='matmul'\n")


def test_sizes_change_the_counts_and_the_label_names_the_change(explorer, capsys):
    explorer.set(k=64, n=16)
    flops, moved = matmul_counts(16, 64, 16)
    table = explorer.picture.text.splitlines()
    total = next(line for line in table if line.startswith("total")).split()
    assert int(total[2]) == flops
    assert "k 32 -> 64, n 8 -> 16: FLOPs x4" in explorer.label
    assert (
        sum(int(c.bytes) for c in kernel_costs(KERNELS["matmul"].trace(m=16, k=64, n=16))) == moved
    )
    assert capsys.readouterr().out == ""  # nothing printed from the callbacks


def test_the_picture_marks_what_changed(explorer):
    assert CHANGED not in explorer.picture.svg  # nothing to compare with yet
    explorer.set(m=8)
    svg = explorer.picture.svg
    assert f'fill="{CHANGED}"' in svg  # the numbers that moved are orange
    assert "m=8 n=8 k=32" in svg  # loops named as the prose names them
    highlighted = KINDS["highlight"][0]
    assert highlighted in explorer.listing.html  # the changed IR lines are picked out
    assert "tensor<8x32xf32>" in explorer.listing.text


def test_the_generalized_stage_has_the_same_counts(explorer):
    def totals():
        lines = explorer.picture.text.splitlines()
        return [line.split() for line in lines if line.startswith("total")]

    before = totals()
    explorer.set(stage="generalized")
    assert totals() == before
    assert "linalg.matmul" not in explorer.listing.text
    assert "linalg.generic" in explorer.listing.text
    assert "stage traced -> generalized: no change in the counts" in explorer.label


def test_each_program_keeps_its_own_sliders(explorer):
    explorer.set(k=8)
    explorer.set(program="softmax", cols=64)
    assert explorer.values == {"program": "softmax", "rows": 8, "cols": 64, "stage": "traced"}
    assert explorer.label.startswith("softmax (rows=8, cols=64): 7 kernels")
    assert "@main of softmax" in explorer.listing.html
    explorer.set(program="matmul")
    assert explorer.values["k"] == 8


def test_an_impossible_shape_keeps_the_last_picture():
    explorer = program_explorer("conv2d_plain", renderer="text")
    picture = explorer.picture
    explorer.set(h=1, w=1)  # a 3x3 filter on a 1x1 image with no padding
    assert explorer.label.startswith("not drawn: conv2d_plain: expected a filter")
    assert explorer.picture is picture


def test_bad_arguments(explorer):
    with pytest.raises(ValueError, match="expected a program among"):
        program_explorer("nonesuch")
    with pytest.raises(ValueError, match="expected a program among"):
        explorer.set(program="nonesuch")


def test_helpers():
    assert size_options(1, 17, 16)[-3:] == [16, 32, 64]
    assert changed_lines("a\nb", "a\nb") == []


def test_the_notebook_output_has_a_still_for_viewers_without_widgets(explorer):
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"] == explorer.text
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle.get("image/png", "iVBORw0KGgo").startswith("iVBORw0KGgo")  # where drawable
