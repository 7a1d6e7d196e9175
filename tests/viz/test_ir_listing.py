"""ir_listing: the text twin is what print shows; the numbers are the ones errors cite."""

import re
import xml.etree.ElementTree as ET

import pytest

import tinycomp
from tinycomp.ir.errors import ParseError
from tinycomp.viz import IRText, ir_listing
from tinycomp.viz.ir_listing import ir_source, listing_lines

FUNC = """\
func.func @f(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  %1 = arith.mulf %0, %0 : f32
  return %1 : f32
}"""


def rows(shown: IRText) -> list[tuple[str, str, str]]:
    """(number, code, code style) of every row of a listing's HTML."""
    cells = {td.get("class"): td for td in ET.fromstring(shown.html).iter("td")}
    numbers = ["".join(s.itertext()) for s in cells["tinycomp-ir-numbers"].find("pre")]
    code = list(cells["tinycomp-ir-code"].find("pre"))
    return [
        (n.strip(), "".join(s.itertext()), s.get("style"))
        for n, s in zip(numbers, code, strict=True)
    ]


def test_twin_is_what_print_shows_for_text_and_for_a_module(capsys):
    module = tinycomp.parse(FUNC)
    print(module)
    assert ir_listing(module).text + "\n" == capsys.readouterr().out
    assert ir_listing(FUNC, title="f").text == FUNC
    assert [code for _, code, _ in rows(ir_listing(module))] == str(module).splitlines()


def test_lines_are_numbered_from_one_like_the_parser_counts():
    broken = FUNC.replace("%0, %0", "%0, %9")
    with pytest.raises(ParseError) as error:
        tinycomp.parse(broken)
    line = int(re.match(r"(\d+):\d+:", str(error.value)).group(1))
    shown = rows(ir_listing(broken))
    assert shown[line - 1][0] == str(line)
    assert "%9" in shown[line - 1][1]  # the line the error names carries its number


def test_highlight_by_number_and_by_text():
    kinds = [row.kind for row in listing_lines(FUNC, highlight=[1, "arith.mulf"])]
    assert kinds == ["highlight", "code", "highlight", "code", "code"]
    styles = [style for _, _, style in rows(ir_listing(FUNC, highlight=4))]
    assert ["#fff8c5" in style for style in styles] == [False, False, False, True, False]


def test_a_slice_keeps_the_numbers_of_the_whole_text():
    shown = ir_listing(FUNC, lines=(2, 3))
    assert shown.text == "\n".join(FUNC.splitlines()[1:3])
    assert [number for number, _, _ in rows(shown)] == ["2", "3"]


def test_a_final_newline_adds_no_line():
    assert len(listing_lines(FUNC + "\n")) == 5
    assert ir_listing(FUNC + "\n").text == FUNC + "\n"


def test_long_lines_are_kept_whole():
    long_line = "  %c = arith.constant dense<[" + ", ".join(["1.0"] * 80) + "]> : tensor<80xf32>"
    shown = ir_listing(long_line)
    assert rows(shown)[0][1] == long_line and "\u2026" not in shown.html


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(TypeError, match="expected IR text .* got int"):
        ir_source(3)
    with pytest.raises(ValueError, match="expected a line number from 1 to 5 to highlight, got 9"):
        ir_listing(FUNC, highlight=9)
    with pytest.raises(TypeError, match="expected highlight to hold line numbers or texts"):
        ir_listing(FUNC, highlight=[1.5])
    with pytest.raises(ValueError, match=r"1 <= first <= last <= 5 .* got \(4, 2\)"):
        ir_listing(FUNC, lines=(4, 2))
