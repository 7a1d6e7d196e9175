"""Random IR survives printing and parsing, in custom and in generic form."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tinycomp.ir import first_difference, parse, print_ir, verify

from .helpers import check_use_lists
from .strategies import functions

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
def test_random_functions_round_trip(generic):
    @SETTINGS
    @given(functions())
    def check(module):
        verify(module)
        text = print_ir(module, generic=generic)
        again = parse(text)
        difference = first_difference(module, again)
        assert difference is None, f"{difference}\n{text}"
        check_use_lists(again)
        # Once parsed, every name is explicit, so printing is a fixed point.
        text_again = print_ir(again, generic=generic)
        assert print_ir(parse(text_again), generic=generic) == text_again

    check()


@SETTINGS
@given(functions())
def test_generic_and_custom_forms_describe_the_same_ir(module):
    from_custom = parse(print_ir(module))
    from_generic = parse(print_ir(module, generic=True))
    assert first_difference(from_custom, from_generic) is None


@SETTINGS
@given(functions())
def test_clone_gives_equal_ir(module):
    copy = module.clone()
    assert first_difference(module, copy) is None
    assert print_ir(copy) == print_ir(module)
    check_use_lists(copy)
