"""Reading SVG back: text boxes under transforms, overlaps, the size text shows at, contrast."""

from __future__ import annotations

import pytest

from tinycomp.viz.svg_checks import (
    drawing_problems,
    node_text_contrast,
    overlapping_text,
    smallest_text_px,
    text_boxes,
)

NS = 'xmlns="http://www.w3.org/2000/svg"'


def test_graphviz_transforms_place_the_boxes():
    # Graphviz writes scale(s s) rotate(0) translate(x y) on the graph group.
    svg = (
        f'<svg {NS} width="100pt" height="50pt" viewBox="0 0 200 100">'
        '<g transform="scale(0.5 0.5) rotate(0) translate(4 96)">'
        '<text text-anchor="end" x="100" y="-10" font-size="10">end</text></g></svg>'
    )
    (box,) = text_boxes(svg, width="chars")
    assert box.font_size == 5.0  # 10 scaled by 0.5
    assert box.right == pytest.approx(0.5 * (4 + 100))
    assert box.left == pytest.approx(box.right - 3 * 0.6 * 5)
    assert box.bottom == pytest.approx(0.5 * (96 - 10) + 0.2 * 5)


def test_lines_of_one_node_do_not_overlap_but_neighbours_do():
    lines = (
        f'<svg {NS}><text x="0" y="10" font-size="11">first line</text>'
        '<text x="0" y="23.2" font-size="11">second line</text></svg>'
    )
    assert overlapping_text(lines) == []
    crowded = lines.replace('y="23.2"', 'y="18"')
    assert [(a.text, b.text) for a, b in overlapping_text(crowded)] == [
        ("first line", "second line")
    ]


def test_wider_pictures_show_smaller_text():
    def svg(width: str) -> str:
        return f'<svg {NS} width="{width}" viewBox="0 0 600 10"><text font-size="11">x</text></svg>'

    assert smallest_text_px(svg("600pt")) == pytest.approx(11 * 4 / 3)  # 800 px: not scaled
    assert smallest_text_px(svg("1200pt")) == pytest.approx(11 * 4 / 3 * 2 * 900 / 1600)
    assert smallest_text_px(svg("1200pt"), display_width_px=1600) == pytest.approx(11 * 8 / 3)
    with pytest.raises(ValueError, match="expected an SVG length"):
        smallest_text_px(svg("12em"))
    with pytest.raises(ValueError, match="has no text"):
        smallest_text_px(f'<svg {NS} width="10" viewBox="0 0 10 10"></svg>')


def test_contrast_reads_the_shape_fill_under_each_node():
    svg = (
        f'<svg {NS} width="100" viewBox="0 0 100 100">'
        '<g class="node"><ellipse fill="#332288"/><text x="1" y="20" fill="#ffffff">ok</text></g>'
        '<g class="node"><polygon fill="none"/><text x="1" y="50">plain</text></g>'
        '<g class="node"><polygon fill="#332288"/><text x="1" y="80">dark</text></g></svg>'
    )
    found = {text: round(ratio, 1) for text, _, _, ratio in node_text_contrast(svg)}
    assert found == {"ok": 12.2, "plain": 21.0, "dark": 1.7}  # worked by hand: L = 0.0362
    assert drawing_problems(svg) == ["'dark' (#000000 on #332288) has contrast 1.73, below 4.5"]
