"""IRText: text twin, HTML that survives JupyterLab's sanitizer, line numbers beside the code."""

import re
import xml.etree.ElementTree as ET

import pytest

from tinycomp.viz import Explorer, IRText, Picture, explore
from tinycomp.viz.ir_text import KINDS, Line, Pane, ir_text

# CSS properties JupyterLab 4 keeps in the style attribute of untrusted HTML output
# (`allowedStyles` in packages/apputils/src/sanitizer.ts); it drops <style> elements.
# Only the properties this module may use are listed: user-select, for one, is not kept.
SANITIZER_KEEPS = {
    "background-color", "border", "border-bottom", "border-collapse", "border-radius",
    "border-right", "color", "display", "font-style", "font-weight", "line-height", "margin",
    "max-width", "min-height", "overflow", "overflow-x", "padding", "position", "left",
    "table-layout", "text-align", "vertical-align", "white-space", "width",
}  # fmt: skip

LINES = ["func.func @f(%a: f32) -> f32 {", '  %0 = "t.op"(%a) : (f32) -> f32  // <&>', "", "}"]


def listing(kinds=None, numbers=True) -> IRText:
    kinds = kinds or ["code"] * len(LINES)
    rows = tuple(
        Line(kind, text, (n,) if numbers else ())
        for n, (kind, text) in enumerate(zip(kinds, LINES, strict=True), 1)
    )
    return ir_text("\n".join(LINES), [Pane(rows)], title="f")


def columns(html: str) -> dict[str, list[ET.Element]]:
    """The block rows of each column (numbers, code) of a one-pane IRText."""
    root = ET.fromstring(html)
    found = {}
    for cell in root.iter("td"):
        kind = cell.get("class", "").removeprefix("tinycomp-ir-")
        if kind in ("numbers", "code"):
            found[kind] = list(cell.find("pre"))
    return found


def test_bundle_is_text_twin_and_html():
    shown = listing()
    assert shown._repr_mimebundle_() == {"text/plain": "\n".join(LINES), "text/html": shown.html}
    assert isinstance(shown, Picture) and str(shown) == repr(shown) == shown.text


def test_ipython_stores_only_the_text_keys():
    formatter = pytest.importorskip("IPython.core.formatters")
    data, _ = formatter.DisplayFormatter().format(listing())
    assert sorted(data) == ["text/html", "text/plain"]


def test_code_column_reads_back_as_the_text_and_numbers_sit_beside_it():
    parts = columns(listing().html)
    code = ["".join(span.itertext()) for span in parts["code"]]
    assert code == LINES  # copying the code column gives the IR, no numbers mixed in
    assert ["".join(span.itertext()) for span in parts["numbers"]] == ["1", "2", "3", "4"]
    assert len(parts["numbers"]) == len(parts["code"])


def test_every_row_is_one_unwrapped_box_and_empty_lines_keep_their_height():
    shown = listing()
    code = columns(shown.html)["code"]
    assert all(
        span.get("style").startswith("display:inline-block;width:100%;vertical-align:top")
        for span in code
    )
    assert all(span.tail == "\n" for span in code[:-1])  # rows copy as lines, styled or not
    assert "min-height" in code[2].get("style")  # the empty line
    pres = re.findall(r'<pre style="([^"]*)"', shown.html)
    assert pres and all("white-space:pre;" in style for style in pres)
    assert "overflow-x:auto" in shown.html


def test_tokens_are_coloured_inline_and_text_is_escaped():
    shown = listing()
    assert '<span style="color:#cf222e">func.func</span>' in shown.html
    assert "// &lt;&amp;&gt;" in shown.html
    assert "<style" not in shown.html and "<script" not in shown.html


def test_only_styles_the_sanitizer_keeps():
    rows = [Line(kind, "x", (1,)) for kind in KINDS]
    shown = ir_text("x", [Pane(tuple(rows), "left", "removed"), Pane(tuple(rows), "right")])
    used = set()
    for style in re.findall(r'style="([^"]*)"', shown.html):
        used |= {part.split(":")[0] for part in style.split(";") if part}
    assert used <= SANITIZER_KEEPS, used - SANITIZER_KEEPS


def test_highlighted_lines_get_a_band_in_both_columns():
    shown = listing(kinds=["code", "highlight", "code", "code"])
    parts = columns(shown.html)
    band = KINDS["highlight"][0]
    assert [band in span.get("style") for span in parts["code"]] == [False, True, False, False]
    assert band in parts["numbers"][1].get("style")


def test_no_number_column_without_numbers():
    assert "numbers" not in columns(listing(numbers=False).html)


def test_two_panes_scroll_side_by_side():
    pane = Pane((Line("code", "a" * 300, (1,)),))
    shown = ir_text("twin", [pane, pane])
    assert shown.html.count('<div style="overflow-x:auto">') == 2
    assert shown.html.count("a" * 300) == 2  # nothing cut


def test_svg_draws_every_line_for_explorers():
    shown = listing()
    texts = [t.text for t in ET.fromstring(shown.svg).iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0] == "f" and all(line in texts for line in LINES if line)
    explorer = explore(lambda n: listing(), n=[1, 2])
    assert isinstance(explorer, Explorer) and explorer.text.endswith(LINES[-1])


def test_output_is_deterministic():
    assert listing().html == listing().html and listing().svg == listing().svg


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError, match="expected a line kind from"):
        Line("deleted", "x")
