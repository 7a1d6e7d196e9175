"""ir_diff: the text twin is difflib's unified diff; the SVG colours and elides the same hunks."""

import difflib
import random
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.viz.ir_diff import diff_counts, ir_diff, ir_listing, unified_ir_diff

REMOVED, ADDED = 'fill="#ffebe9"', 'fill="#dafbe1"'

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


def svg_texts(svg: str) -> list[str]:
    """The text of every <text> element, in order."""
    root = ET.fromstring(svg)
    return [element.text or "" for element in root.iter("{http://www.w3.org/2000/svg}text")]


def test_golden_unified_twin():
    picture = ir_diff(BEFORE, AFTER_CSE, "input", "cse")
    assert picture.text == CSE_TWIN
    assert sorted(picture._repr_mimebundle_()) == ["image/svg+xml", "text/plain"]


@pytest.mark.parametrize("layout", ["unified", "side-by-side"])
def test_svg_colours_one_band_per_removed_and_added_line(layout):
    picture = ir_diff(BEFORE, AFTER_CSE, "input", "cse", layout=layout)
    assert (picture.svg.count(REMOVED), picture.svg.count(ADDED)) == (3, 2)
    assert picture.text == CSE_TWIN  # the twin is unified whatever the layout
    texts = svg_texts(picture.svg)
    assert "@@ -1,6 +1,5 @@" in texts
    assert any(text.endswith("%1 = arith.mulf %0, %0 : f32") for text in texts)


def test_long_ir_is_elided_between_hunks_with_a_marker():
    lines = [f"  %{i} = arith.addf %a, %b : f32" for i in range(40)]
    changed = list(lines)
    changed[5] = "  %5 = arith.mulf %a, %b : f32"
    changed[30] = "  %30 = arith.subf %a, %b : f32"
    picture = ir_diff("\n".join(lines), "\n".join(changed), context=2)
    texts = svg_texts(picture.svg)
    markers = [text for text in texts if "unchanged line" in text]
    # 3 lines before the first hunk, 20 between the hunks, 7 after the last one
    assert markers == [
        "... 3 unchanged lines ...",
        "... 20 unchanged lines ...",
        "... 7 unchanged lines ...",
    ]
    assert picture.text.count("@@") == 4  # two hunk headers
    assert len(picture.text.splitlines()) == 2 + 2 * (1 + 2 + 2 + 2)


def test_identical_texts():
    picture = ir_diff("a\nb", "a\nb", "x", "y")
    assert picture.text == "--- x\n+++ y\n(no changes: 2 identical lines)"
    assert "... 2 unchanged lines ..." in svg_texts(picture.svg)
    assert diff_counts("a\nb", "a\nb") == (0, 0)


def test_svg_is_deterministic_and_escapes_text():
    before, after = 'x = "<a & b>"', 'x = "<a | b>"'
    first, second = ir_diff(before, after), ir_diff(before, after)
    assert first.svg == second.svg
    assert "&lt;a &amp; b&gt;" in first.svg
    ET.fromstring(first.svg)  # well-formed XML


def test_very_long_lines_are_cut_in_the_picture_only():
    long_line = "%0 = arith.constant dense<" + "1.0, " * 60 + "> : tensor<60xf32>"
    picture = ir_diff("x", long_line)
    assert long_line in picture.text
    assert max(len(text) for text in svg_texts(picture.svg)) <= 113
    assert "\u2026" in picture.svg


def test_listing_has_line_numbers_and_the_text_as_twin():
    picture = ir_listing(BEFORE, title="input")
    assert picture.text == BEFORE
    texts = svg_texts(picture.svg)
    assert texts[0] == "input" and texts[1:3] == ["   1", "func.func @f(%a: f32, %b: f32) -> f32 {"]


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="expected layout to be one of"):
        ir_diff("a", "b", layout="split")
    with pytest.raises(ValueError, match="expected context to be 0 or more"):
        ir_diff("a", "b", context=-1)


lines_strategy = st.lists(st.sampled_from(["a", "b", "c", "  %0 = x", "}", ""]), max_size=30)


@settings(max_examples=60, deadline=None)
@given(lines_strategy, lines_strategy, st.integers(0, 4))
def test_picture_and_twin_agree_with_difflib(old, new, context):
    before, after = "\n".join(old), "\n".join(new)
    old, new = before.splitlines(), after.splitlines()  # [""] and [] are both ""
    picture = ir_diff(before, after, context=context)
    expected = list(difflib.unified_diff(old, new, "before", "after", n=context, lineterm=""))
    if expected:
        assert picture.text == "\n".join(expected)
    removed, added = diff_counts(before, after)
    assert picture.svg.count(REMOVED) == removed
    assert picture.svg.count(ADDED) == added
    assert removed == sum(1 for line in expected[2:] if line.startswith("-"))
    assert added == sum(1 for line in expected[2:] if line.startswith("+"))
    # Every old line is either shown (numbered) in a hunk or counted by a marker.
    texts = svg_texts(picture.svg)
    elided = sum(int(m) for m in re.findall(r"\.\.\. (\d+) unchanged", " ".join(texts)))
    shown = sum(1 for line in expected[2:] if line[:1] in " -")
    assert shown + elided == len(old)


def test_side_by_side_pairs_replaced_lines_on_one_row():
    rng = random.Random(7)
    old = [f"line {i}" for i in range(12)]
    new = list(old)
    for i in rng.sample(range(12), 3):
        new[i] = f"changed {i}"
    picture = ir_diff("\n".join(old), "\n".join(new), layout="side-by-side", context=0)
    removed_rows = re.findall(rf'<rect x="[\d.]+" y="(\d+)"[^>]*{REMOVED}', picture.svg)
    added_rows = re.findall(rf'<rect x="[\d.]+" y="(\d+)"[^>]*{ADDED}', picture.svg)
    assert removed_rows == added_rows and len(removed_rows) == 3


def test_unified_ir_diff_is_the_twin():
    assert unified_ir_diff(BEFORE, AFTER_CSE, "input", "cse") == CSE_TWIN
