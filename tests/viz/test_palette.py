"""Colours that mean one thing: distinct swatches, WCAG contrast, readable ink on every fill."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinycomp.viz.graph_style import (
    CONSTANT,
    FUSED_TENSOR,
    INPUT,
    KERNEL_COLORS,
    REDUCTION,
    TENSOR,
    TERMINATOR,
)
from tinycomp.viz.palette import (
    ITEM_COLORS,
    MIN_CONTRAST,
    contrast_ratio,
    ink_for,
    mix,
    relative_luminance,
    swatches,
    to_hex,
)

colors = st.integers(0, 0xFFFFFF).map(lambda value: f"#{value:06x}")


def test_contrast_ratio_matches_the_wcag_examples():
    # WCAG 2.1's end points, and two pairs worked by hand from its formula.
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # just fails
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # just passes
    assert contrast_ratio("#E69F00", "#000000") == contrast_ratio("#000000", "#E69F00")
    assert relative_luminance("#808080") == pytest.approx(0.2159, abs=1e-4)


@given(colors)
def test_ink_for_any_fill_reaches_the_minimum_contrast(fill):
    ink = ink_for(fill)
    assert ink in ("#000000", "#ffffff")
    assert contrast_ratio(ink, fill) >= MIN_CONTRAST, (fill, ink)
    other = "#ffffff" if ink == "#000000" else "#000000"
    assert contrast_ratio(ink, fill) >= contrast_ratio(other, fill)  # the better of the two


@pytest.mark.parametrize("count", [1, 7, len(ITEM_COLORS), len(ITEM_COLORS) + 1, 40, 100])
def test_swatches_never_repeat_within_a_picture(count):
    found = swatches(count)
    assert len(found) == count
    assert len({(s.color, s.hatch) for s in found}) == count  # bars: colour and hatching
    assert len({(s.color, s.fill) for s in found}) == count  # boxes: border and fill
    for swatch in found:
        assert contrast_ratio(swatch.ink, swatch.color) >= MIN_CONTRAST


def test_first_swatches_are_the_plain_colours_then_hatched():
    first, later = swatches(len(ITEM_COLORS)), swatches(2 * len(ITEM_COLORS))
    assert [s.color for s in first] == list(ITEM_COLORS)
    assert {s.hatch for s in first} == {""}
    assert {s.hatch for s in later[len(ITEM_COLORS) :]} == {"//"}


def test_kernel_colours_leave_out_the_fixed_roles():
    fixed = {INPUT.color, CONSTANT.color, TERMINATOR.color, "#0072B2", "#D55E00", "#F0E442"}
    assert not fixed & set(KERNEL_COLORS)
    assert len(set(KERNEL_COLORS)) == len(KERNEL_COLORS)


@pytest.mark.parametrize("style", [INPUT, CONSTANT, TERMINATOR, REDUCTION, TENSOR, FUSED_TENSOR])
def test_every_node_style_keeps_black_text_readable(style):
    fill = style.fill or "#ffffff"
    assert ink_for(fill) == "#000000"
    assert contrast_ratio("#000000", fill) >= MIN_CONTRAST


def test_colour_names_and_mixing():
    assert to_hex("lightyellow") == "#ffffe0" and to_hex("#FfF") == "#ffffff"
    assert mix("#000000", 1.0) == "#ffffff" and mix("#336699", 0.0) == "#336699"
    with pytest.raises(ValueError, match="expected a colour name or #rrggbb, got 'nope'"):
        to_hex("nope")
    with pytest.raises(ValueError, match="at least one colour"):
        swatches(3, colors=())
