"""Golden round trips: hand-written modules print back exactly as written.

For every file in ``golden/``: parsing and printing gives the text back (custom form),
printing in generic form and parsing again gives structurally equal IR, and that IR
prints the original text again.
"""

from __future__ import annotations

import pytest

from tinycomp.ir import ir_equal, parse, print_ir

from .helpers import GOLDEN_FILES, check_use_lists, without_comment_lines


@pytest.fixture(params=GOLDEN_FILES, ids=lambda path: path.stem)
def golden_path(request):
    return request.param


@pytest.fixture
def golden(golden_path) -> str:
    return golden_path.read_text()


def test_there_are_a_dozen_golden_modules():
    assert len(GOLDEN_FILES) >= 12


def test_print_parse_gives_the_text_back(golden, golden_path):
    locations = golden_path.stem == "locations"  # this one is printed with its locations
    module = parse(golden)
    expected = without_comment_lines(golden)
    assert print_ir(module, locations=locations) == expected
    check_use_lists(module)


def test_reparsing_the_printed_text_gives_equal_ir(golden):
    module = parse(golden)
    again = parse(print_ir(module))
    assert ir_equal(module, again)


def test_generic_form_round_trips(golden):
    module = parse(golden)
    generic = print_ir(module, generic=True)
    from_generic = parse(generic)
    assert ir_equal(module, from_generic)
    assert print_ir(from_generic, generic=True) == generic
    assert print_ir(from_generic) == print_ir(module)
    assert generic.startswith(('"builtin.module"()', "#"))
