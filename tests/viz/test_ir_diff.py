"""ir_diff: the text twin is the unified diff; the HTML shows the same hunks, unchanged
lines folded into a count, lines compared up to alias names and never cut."""

import difflib
import random
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.viz import IRText, Picture
from tinycomp.viz.ir_diff import diff_counts, diff_panes, ir_diff, ir_listing, unified_ir_diff

BEFORE = """\
func.func @f(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  %1 = arith.addf %a, %b : f32
  %2 = arith.mulf %0, %1 : f32
  return %2 : f32
}"""

AFTER_CSE = """\
func.func @f(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  %1 = arith.mulf %0, %0 : f32
  return %1 : f32
}"""

CSE_TWIN = """\
--- input
+++ cse
@@ -1,6 +1,5 @@
 func.func @f(%a: f32, %b: f32) -> f32 {
   %0 = arith.addf %a, %b : f32
-  %1 = arith.addf %a, %b : f32
-  %2 = arith.mulf %0, %1 : f32
-  return %2 : f32
+  %1 = arith.mulf %0, %0 : f32
+  return %1 : f32
 }"""

# After DCE removes %dead, the printer renames #map1 (still used) to #map.
RENAMED_BEFORE = """\
#map = affine_map<(d0) -> (0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %dead = linalg.generic {indexing_maps = [#map, #map1]} ins(%x) outs(%e)
  %r = linalg.generic {indexing_maps = [#map1, #map1]} ins(%x) outs(%e)
  return %r : tensor<4xf32>
}"""
RENAMED_AFTER = """\
#map = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map]} ins(%x) outs(%e)
  return %r : tensor<4xf32>
}"""


def code_rows(html: str) -> list[list[tuple[str, str]]]:
    """Per pane: (text, style) of every row of the code column of an IRText's HTML."""
    root = ET.fromstring(html)
    panes = root.iter("td")
    return [
        [("".join(span.itertext()), span.get("style")) for span in cell.find("pre")]
        for cell in panes
        if cell.get("class") == "tinycomp-ir-code"
    ]


def test_golden_unified_twin_and_text_mime_keys():
    shown = ir_diff(BEFORE, AFTER_CSE, "input", "cse")
    assert isinstance(shown, IRText) and isinstance(shown, Picture)
    assert shown.text == CSE_TWIN == unified_ir_diff(BEFORE, AFTER_CSE, "input", "cse")
    assert sorted(shown._repr_mimebundle_()) == ["text/html", "text/plain"]


@pytest.mark.parametrize("layout", ["unified", "side-by-side"])
def test_html_colours_one_band_per_removed_and_added_line(layout):
    shown = ir_diff(BEFORE, AFTER_CSE, "input", "cse", layout=layout)
    assert shown.text == CSE_TWIN  # the twin is unified whatever the layout
    rows = [row for pane in code_rows(shown.html) for row in pane]
    removed = [text for text, style in rows if "#ffebe9" in style]
    added = [text for text, style in rows if "#dafbe1" in style]
    assert len(removed) == 3 and len(added) == 2
    assert any(text.endswith("%1 = arith.mulf %0, %0 : f32") for text in added)
    if layout == "unified":
        assert all(text.startswith("-") for text in removed)


def test_side_by_side_puts_old_left_and_new_right_with_line_numbers():
    shown = ir_diff(BEFORE, AFTER_CSE, "input", "cse", layout="side-by-side")
    left, right = code_rows(shown.html)
    assert [text for text, _ in left] == BEFORE.splitlines()
    assert [text for text, _ in right if text] == AFTER_CSE.splitlines()
    assert len(left) == len(right)  # rows face each other
    assert "--- input" in shown.html and "+++ cse" in shown.html


def test_long_ir_is_folded_between_hunks_with_a_count():
    lines = [f"  %{i} = arith.addf %a, %b : f32" for i in range(40)]
    changed = list(lines)
    changed[5] = "  %5 = arith.mulf %a, %b : f32"
    changed[30] = "  %30 = arith.subf %a, %b : f32"
    shown = ir_diff("\n".join(lines), "\n".join(changed), context=2)
    rows = code_rows(shown.html)[0]
    folds = [text for text, _ in rows if "unchanged line" in text]
    # 3 lines before the first hunk, 20 between the hunks, 7 after the last one
    assert folds == ["⋯ 3 unchanged lines", "⋯ 20 unchanged lines", "⋯ 7 unchanged lines"]
    assert shown.text.count("@@") == 4  # two hunk headers
    assert len(shown.text.splitlines()) == 2 + 2 * (1 + 2 + 2 + 2)


def test_identical_texts():
    shown = ir_diff("a\nb", "a\nb", "x", "y")
    assert shown.text == "--- x\n+++ y\n(no changes: 2 identical lines)"
    assert [text for text, _ in code_rows(shown.html)[0]] == ["⋯ no changes: 2 identical lines"]
    assert diff_counts("a\nb", "a\nb") == (0, 0)


def test_renamed_aliases_are_not_changes_and_are_named():
    shown = ir_diff(RENAMED_BEFORE, RENAMED_AFTER, "input", "dce")
    assert diff_counts(RENAMED_BEFORE, RENAMED_AFTER) == (2, 0)
    plain = difflib.SequenceMatcher(None, RENAMED_BEFORE.splitlines(), RENAMED_AFTER.splitlines())
    assert sum(i2 - i1 for tag, i1, i2, _, _ in plain.get_opcodes() if tag != "equal") == 4
    note = "aliases renamed, not counted as changes: #map1 -> #map"
    assert shown.text.splitlines()[2] == f"({note})"
    assert note in "".join(ET.fromstring(shown.html).itertext())
    removed = [line[1:] for line in shown.text.splitlines()[3:] if line.startswith("-")]
    assert removed == ["#map = affine_map<(d0) -> (0)>", RENAMED_BEFORE.splitlines()[3]]
    assert not any(line.startswith("+") for line in shown.text.splitlines()[3:])


def test_only_renamed_aliases_is_no_change():
    before = "#map1 = affine_map<(d0) -> (d0)>\nuse #map1"
    shown = ir_diff(before, before.replace("#map1", "#map"))
    assert shown.text.splitlines()[-1] == "(no changes: 2 identical lines up to alias names)"


def test_html_is_deterministic_and_escapes_text():
    before, after = 'x = "<a & b>"', 'x = "<a | b>"'
    first, second = ir_diff(before, after), ir_diff(before, after)
    assert first.html == second.html and first.svg == second.svg
    assert "&lt;a &amp; b&gt;" in first.html
    ET.fromstring(first.html)  # well-formed
    ET.fromstring(first.svg)


@pytest.mark.parametrize("layout", ["unified", "side-by-side"])
def test_very_long_lines_are_never_cut(layout):
    long_line = "%0 = arith.constant dense<" + "1.0, " * 60 + "> : tensor<60xf32>"
    shown = ir_diff("x", long_line, layout=layout)
    assert long_line in shown.text
    assert any(text.endswith(long_line) for pane in code_rows(shown.html) for text, _ in pane)
    assert "overflow-x:auto" in shown.html and "\u2026" not in shown.html + shown.svg


def test_ops_are_accepted_as_well_as_text():
    module = tinycomp.parse(BEFORE)
    shown = ir_diff(module, str(module) + "\n// end", "module", "with a comment")
    assert shown.text.endswith("+// end")


def test_listing_is_still_importable_from_here():
    assert ir_listing(BEFORE).text == BEFORE


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="expected layout to be one of"):
        ir_diff("a", "b", layout="split")
    with pytest.raises(ValueError, match="expected context to be 0 or more"):
        ir_diff("a", "b", context=-1)
    with pytest.raises(TypeError, match="expected IR text"):
        ir_diff(["a"], "b")


lines_strategy = st.lists(st.sampled_from(["a", "b", "c", "  %0 = x", "}", ""]), max_size=30)


@settings(max_examples=60, deadline=None)
@given(
    lines_strategy, lines_strategy, st.integers(0, 4), st.sampled_from(["unified", "side-by-side"])
)
def test_html_and_twin_agree_with_difflib(old, new, context, layout):
    before, after = "\n".join(old), "\n".join(new)
    old, new = before.splitlines(), after.splitlines()  # [""] and [] are both ""
    shown = ir_diff(before, after, context=context, layout=layout)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    expected = list(difflib.unified_diff(old, new, "before", "after", n=context, lineterm=""))
    if matcher.get_opcodes() and any(op[0] != "equal" for op in matcher.get_opcodes()):
        assert shown.text == "\n".join(expected)
    removed, added = diff_counts(before, after)
    assert removed == sum(1 for line in expected[2:] if line.startswith("-"))
    assert added == sum(1 for line in expected[2:] if line.startswith("+"))
    panes = diff_panes(old, new, "before", "after", context, layout)
    lines = [line for pane in panes for line in pane.lines]
    assert sum(line.kind == "removed" for line in lines) == removed
    assert sum(line.kind == "added" for line in lines) == added
    # Every old line is shown (numbered) in a hunk or counted by a fold.
    first = panes[0].lines
    folded = sum(int(n) for n in re.findall(r"(\d+) (?:unchanged|identical) line", _texts(first)))
    shown_old = sum(1 for line in first if line.kind in ("context", "removed"))
    assert shown_old + folded == len(old)


def _texts(lines) -> str:
    return " ".join(line.text for line in lines if line.kind == "fold")


def test_side_by_side_pairs_replaced_lines_on_one_row():
    rng = random.Random(7)
    old = [f"line {i}" for i in range(12)]
    new = list(old)
    for i in rng.sample(range(12), 3):
        new[i] = f"changed {i}"
    left, right = diff_panes(old, new, "a", "b", 0, "side-by-side")
    assert len(left.lines) == len(right.lines)
    rows = zip(left.lines, right.lines, strict=True)
    pairs = [(old.text, new.text) for old, new in rows if old.kind == "removed"]
    assert len(pairs) == 3
    assert all(a.replace("line", "changed") == b for a, b in pairs)
