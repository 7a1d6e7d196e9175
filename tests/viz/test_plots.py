"""Plots: deterministic SVG, the house style, and data tables as text twins."""

import xml.etree.ElementTree as ET

import pytest

from tinycomp.viz import PALETTE, bar_chart, figure_to_picture, house_style, line_chart, new_figure


def roofline():
    return line_chart(
        [0.25, 1, 4, 16],
        {"roof": [25, 100, 400, 400], "kernel": [20, 70, 150, 160.5]},
        title="roofline",
        xlabel="FLOP/byte",
        ylabel="GFLOP/s",
        xscale="log2",
        yscale="log",
    )


def test_same_chart_twice_gives_the_same_svg():
    assert roofline().svg == roofline().svg
    assert bar_chart(["a", "b"], [1, 2]).svg == bar_chart(["a", "b"], [1, 2]).svg


def test_svg_is_valid_and_free_of_dates_and_versions():
    svg = roofline().svg
    assert ET.fromstring(svg).tag == "{http://www.w3.org/2000/svg}svg"
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg and "<?xml" not in svg


def test_line_chart_twin_is_a_table():
    assert roofline().text.splitlines() == [
        'line chart "roofline" (x: log2, y: log)',
        "  FLOP/byte | roof | kernel",
        "  ----------+------+-------",
        "       0.25 |   25 |     20",
        "          1 |  100 |     70",
        "          4 |  400 |    150",
        "         16 |  400 |  160.5",
    ]


def test_bar_chart_twin_is_a_table():
    pic = bar_chart([4, 8, 16], [1.5, 3.25, 6.0], title="GFLOPS", xlabel="tile", ylabel="GFLOPS")
    assert pic.text.splitlines() == [
        'bar chart "GFLOPS"',
        "  tile | GFLOPS",
        "  -----+-------",
        "     4 |    1.5",
        "     8 |   3.25",
        "    16 |      6",
    ]


def test_house_style_palette_and_grid():
    fig, ax = new_figure()
    (line,) = ax.plot([0, 1], [0, 1])
    assert line.get_color() == PALETTE[0]
    gridlines = ax.get_ygridlines()
    assert all(gridline.get_visible() for gridline in gridlines)
    assert gridlines[0].get_color() == "#dddddd"


def test_figure_to_picture_keeps_the_given_twin():
    with house_style():
        fig, ax = new_figure(figsize=(3, 2))
        ax.plot([1, 2, 3], [3, 1, 2])
    pic = figure_to_picture(fig, "three points")
    assert pic.text == "three points"
    assert {"image/svg+xml", "text/plain"} <= set(pic._repr_mimebundle_())


def test_mismatched_data_is_rejected():
    with pytest.raises(ValueError, match=r"expected one value per label \(2\), got 1"):
        bar_chart(["a", "b"], [1])
    with pytest.raises(ValueError, match="expected series 'y' to have 2 points, got 3"):
        line_chart([1, 2], {"y": [1, 2, 3]})
    with pytest.raises(ValueError, match="expected xscale to be one of"):
        line_chart([1, 2], {"y": [1, 2]}, xscale="log10")


def test_a_line_chart_never_repeats_a_colour_and_style():
    import re

    from tinycomp.viz.palette import ITEM_COLORS

    count = len(ITEM_COLORS) + 3
    series = {f"s{number}": [number, number + 1] for number in range(count)}
    svg = line_chart([1, 2], series).svg
    strokes = re.findall(r'<path d="M [^"]*" clip-path="[^"]*" style="([^"]*)"', svg)
    looks = {
        (re.search(r"stroke: (#[0-9a-f]+)", s).group(1), "dasharray" in s)
        for s in strokes
        if "stroke-width: 1.5" in s
    }
    assert len(looks) == count
