"""The parser: MLIR text to IR objects. ``parse(text)`` returns a ``ModuleOp``.

It reads both forms the printer writes (see ``printer.py``): the generic form of any
op, and the custom form of registered ops, through each op class's ``parse_custom``
hook. Hooks use the methods below, the counterpart of MLIR's ``OpAsmParser``: read
operand *names* with ``parse_operand``, then, once the types are known (they come after
the operands in ``arith.addf %a, %b : f32``), turn them into values with
``resolve_operand``. The pieces a hook uses (each raises ``ParseError`` on a mismatch):

* values: ``parse_operand()``, ``parse_operand_list()``, ``resolve_operand(s)(names, types)``
* types: ``parse_type()``, ``parse_colon_type()``, ``parse_type_list()``,
  ``parse_function_type()``
* attributes: ``parse_attribute()``, ``parse_optional_attr_dict()``,
  ``parse_optional_attr_dict_with_keyword()``, ``parse_symbol_name()``
* words and punctuation: ``parse_keyword(k)``, ``parse_optional_keyword(k)``,
  ``parse_identifier()``, ``parse_punct(p)``, ``parse_optional_punct(p)``, ``token``
* structure: ``parse_region(arguments)``, ``parse_argument()``, ``parse_successor()``,
  ``parse_successor_and_operands()``
* errors: ``error(message)``, ``expected(what)``, both at the current token.

Names written in the text become ``name_hint``s, so ``%sum`` prints as ``%sum`` again;
names a printer invents (``%0``, ``%arg0``, ``%c0``) are not kept.

SSA names are scoped by region, and a name may be used before its definition (blocks
can come in any order); ``ssa_scopes.py`` keeps that bookkeeping. Names that never get
a definition, and uses whose type disagrees with the definition, are ``ParseError``s.

>>> module = parse('''
... func.func @double(%x: f32) -> f32 {
...   %sum = arith.addf %x, %x : f32
...   return %sum : f32
... }''')
>>> print(module)
module {
  func.func @double(%x: f32) -> f32 {
    %sum = arith.addf %x, %x : f32
    return %sum : f32
  }
}
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.location import DEFAULT_FILE
from tinycomp.ir.parse_operations import Parser
from tinycomp.ir.parse_structure import Argument
from tinycomp.ir.types import Type

__all__ = ["Argument", "Parser", "parse", "parse_attribute", "parse_type"]


def parse(text: str, filename: str = DEFAULT_FILE, verify: bool = True) -> ModuleOp:
    """Parse a module (ops without an enclosing ``module`` are wrapped in one, as
    ``mlir-opt`` does) and, unless ``verify=False``, verify it."""
    with _garbage_collector_paused():
        module = Parser(text, filename).parse_module()
    if verify:
        module.verify()
    return module


@contextmanager
def _garbage_collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while parsing.

    Parsing creates millions of objects and no garbage, but the collector runs again and
    again as they pile up, each time walking all of them: on a 100k-op module that alone
    doubles the time to parse. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_type(text: str) -> Type:
    """Parse a type on its own: ``parse_type("tensor<4x?xf32>")``."""
    parser = Parser(text, DEFAULT_FILE)
    result = parser.parse_type()
    parser.expect_end()
    return result


def parse_attribute(text: str) -> Attribute:
    """Parse an attribute on its own: ``parse_attribute("dense<1.0> : tensor<2xf32>")``."""
    parser = Parser(text, DEFAULT_FILE)
    result = parser.parse_attribute()
    parser.expect_end()
    return result
