"""Round-trip checks shared by the dialect tests (math, memref, scf, affine)."""

from __future__ import annotations

import textwrap

import pytest

from tinycomp.ir import ModuleOp, Operation, VerifyError, first_difference, parse, print_ir

from ..helpers import check_use_lists


def in_function(signature: str, body: str) -> str:
    """A module text with ``func.func @f<signature> { body }`` (body indented for us)."""
    lines = textwrap.dedent(body).strip("\n").splitlines()
    indented = "\n".join("    " + line if line else "" for line in lines)
    return f"module {{\n  func.func @f{signature} {{\n{indented}\n  }}\n}}"


def assert_round_trip(text: str) -> ModuleOp:
    """``text`` (as the printer writes it) parses, verifies, prints back identically, and
    its generic form parses back into equal IR; returns the parsed module."""
    module = parse(text)
    assert print_ir(module) == text
    check_use_lists(module)
    generic = print_ir(module, generic=True)
    from_generic = parse(generic)
    difference = first_difference(module, from_generic)
    assert difference is None, f"{difference}\n{generic}"
    assert print_ir(from_generic) == text
    return module


def first_op_named(module: Operation, name: str) -> Operation:
    """The first op called ``name`` under ``module``."""
    return next(op for op in module.walk() if op.name == name)


def assert_verify_error(text: str, message: str) -> None:
    """Parsing ``text`` fails verification with a message containing ``message``."""
    with pytest.raises(VerifyError) as caught:
        parse(text)
    assert message in str(caught.value), str(caught.value)
