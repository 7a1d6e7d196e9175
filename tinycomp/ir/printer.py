"""The printer: IR objects to MLIR text.

Every op prints in one of two forms:

* the **generic form**, which works for any op, registered or not:
  ``%0 = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32``
  (name in quotes, operands, successors ``[^bb1]``, inherent attributes ``<{...}>``,
  regions ``({...})``, other attributes ``{...}``, and the function type);
* the **custom form** an op class defines with ``print_custom``:
  ``%0 = arith.addf %a, %b fastmath<fast> : f32``.

``print_ir(op)`` uses the custom form where there is one; ``print_ir(op, generic=True)``
prints everything generically, like ``mlir-opt --mlir-print-op-generic``. The printer
writes the result names and the op name; ``print_custom`` writes the rest through the
``Printer`` methods below (the counterpart of MLIR's ``OpAsmPrinter``). An op that
fails its own ``verify_op`` is printed generically, as MLIR does, so hooks may rely
on the op being well formed.

Registered op classes list their ``inherent_attributes``, which the generic form puts
in ``<{...}>`` (MLIR's "properties"); unregistered ops have none, so attributes the
parser read from their ``<{...}>`` come back in the ``{...}`` dictionary.

Inside an op with a ``default_dialect`` (``func.func``), that dialect's prefix is
dropped (``return`` instead of ``func.return``), as MLIR does.

>>> from tinycomp.ir import parse
>>> m = parse('func.func @f(%x: f32) -> f32 { %0 = arith.negf %x : f32  return %0 : f32 }')
>>> print(print_ir(m.body.first_op, generic=True))
"func.func"() <{function_type = (f32) -> f32, sym_name = "f"}> ({
^bb0(%x: f32):
  %0 = "arith.negf"(%x) : (f32) -> f32
  "func.return"(%0) : (f32) -> ()
}) : () -> ()
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from tinycomp.ir.aliases import add_aliases
from tinycomp.ir.attributes import Attribute, format_attr_dict, format_symbol_name
from tinycomp.ir.block import Block
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.types import FunctionType, Type, format_result_types
from tinycomp.ir.values import Value

INDENT = "  "


def print_ir(
    op: Operation, generic: bool = False, locations: bool = False, aliases: bool = True
) -> str:
    """The text of ``op`` (usually a module), without a final newline.

    ``generic`` prints every op in generic form; ``locations`` appends ``loc(...)`` to
    ops that have a location; ``aliases`` (for a module) defines each affine map once
    on top as ``#map`` (see ``aliases.py``).

    >>> from tinycomp.ir import parse
    >>> print(print_ir(parse('"t.op"() : () -> ()'), locations=True))
    module {
      "t.op"() : () -> () loc("<input>":1:1)
    }
    """
    names = SSANames(naming_root(op), use_asm_names=not generic)
    printer = Printer(names, generic=generic, locations=locations)
    printer.print_op(op)
    text = printer.text().rstrip("\n")
    if aliases and isinstance(op, ModuleOp) and op.parent is None:
        text = add_aliases(text)
    return text


def print_op_summary(op: Operation) -> str:
    """One op on one line, generic form, regions elided as ``{...}`` (for errors)."""
    names = SSANames(naming_root(op), use_asm_names=False)
    printer = Printer(names, generic=True, skip_regions=True)
    printer.print_op(op)
    return printer.text().rstrip("\n").replace("\n", " ")


def naming_root(op: Operation) -> Operation:
    """The op whose numbering ``op`` is printed with: the nearest isolated-from-above
    ancestor (a function), or the outermost op."""
    root = op
    while not root.is_isolated_from_above and root.parent_op() is not None:
        root = root.parent_op()
    return root


class Printer:
    """Accumulates text; custom-syntax hooks call its ``print_*`` methods."""

    def __init__(
        self,
        names: SSANames,
        generic: bool = False,
        locations: bool = False,
        skip_regions: bool = False,
    ) -> None:
        self.names = names
        """The SSA names of everything that may be printed."""
        self.generic = generic
        """Print every op in generic form."""
        self.locations = locations
        """Append ``loc(...)`` to ops."""
        self.skip_regions = skip_regions
        """Print regions as ``{...}`` (for one-line summaries)."""
        self._parts: list[str] = []
        self._indent = 0
        self._default_dialects = ["builtin"]  # a stack, one entry per open region

    def text(self) -> str:
        """Everything printed so far."""
        return "".join(self._parts)

    # -- the API for print_custom ------------------------------------------------------
    def write(self, text: str) -> None:
        """Append raw text."""
        self._parts.append(text)

    def print_operand(self, value: Value) -> None:
        """``%name``."""
        self._parts.append(self.names.value_name(value))

    def print_operands(self, values: Iterable[Value]) -> None:
        """``%a, %b``."""
        self._parts.append(", ".join(self.names.value_name(v) for v in values))

    def print_type(self, type: Type) -> None:
        """A type."""
        self._parts.append(str(type))

    def print_types(self, types: Iterable[Type]) -> None:
        """``f32, i32``."""
        self._parts.append(", ".join(str(t) for t in types))

    def print_function_type(self, inputs: Sequence[Type], results: Sequence[Type]) -> None:
        """``(f32, f32) -> f32``."""
        self._parts.append(str(FunctionType(inputs, results)))

    def print_result_types(self, types: Sequence[Type]) -> None:
        """``f32`` or ``(f32, i32)``, as after ``->``."""
        self._parts.append(format_result_types(types))

    def print_attribute(self, attr: Attribute) -> None:
        """An attribute."""
        self._parts.append(str(attr))

    def print_symbol_name(self, name: str) -> None:
        """``@name``."""
        self._parts.append(format_symbol_name(name))

    def print_attr_dict(self, attrs: Mapping[str, Attribute], elided: Iterable[str] = ()) -> None:
        """`` {a = 1 : i32}`` (with a leading space), skipping ``elided``; nothing if empty."""
        hidden = set(elided)
        shown = {k: v for k, v in attrs.items() if k not in hidden}
        if shown:
            self._parts.append(" " + format_attr_dict(shown))

    def print_attr_dict_with_keyword(
        self, attrs: Mapping[str, Attribute], elided: Iterable[str] = ()
    ) -> None:
        """`` attributes {a = 1 : i32}``, as ``func.func`` and ``module`` write them."""
        hidden = set(elided)
        shown = {k: v for k, v in attrs.items() if k not in hidden}
        if shown:
            self._parts.append(" attributes " + format_attr_dict(shown))

    def print_argument(
        self, argument: Value, attributes: Mapping[str, Attribute] | None = None
    ) -> None:
        """``%x: f32``, then `` {attrs}`` if ``attributes`` has any: one argument of a
        block or a function, as its header lists it (MLIR's ``printRegionArgument``)."""
        self._parts.append(f"{self.names.value_name(argument)}: {argument.type}")
        self.print_attr_dict(attributes or {})

    def print_arguments(self, arguments: Iterable[Value]) -> None:
        """``%x: f32, %i: index``: ``print_argument`` for each, comma separated."""
        for number, argument in enumerate(arguments):
            if number:
                self._parts.append(", ")
            self.print_argument(argument)

    def print_successor(self, block: Block) -> None:
        """``^bb1``."""
        self._parts.append(self.names.block_name(block))

    def print_successor_and_operands(self, block: Block, operands: Sequence[Value]) -> None:
        """``^bb1(%a, %b : f32, i32)`` (just ``^bb1`` without operands)."""
        self.print_successor(block)
        if operands:
            self._parts.append("(")
            self.print_operands(operands)
            self._parts.append(" : ")
            self.print_types(v.type for v in operands)
            self._parts.append(")")

    def print_newline(self) -> None:
        """End the line and indent the next one to the current depth (MLIR's
        ``printNewline``); ops with a multi-line layout use it with ``indented``."""
        self._parts.append("\n" + INDENT * self._indent)

    @contextmanager
    def indented(self) -> Iterator[None]:
        """Print one level deeper inside the ``with`` block: lines started with
        ``print_newline`` and the ops of regions printed there move right by ``INDENT``
        (MLIR's ``increaseIndent``/``decreaseIndent``).

        >>> from tinycomp.ir.naming import SSANames
        >>> from tinycomp.ir import parse
        >>> printer = Printer(SSANames(parse("")))
        >>> printer.write("a")
        >>> with printer.indented():
        ...     printer.print_newline()
        ...     printer.write("b")
        >>> printer.print_newline()
        >>> printer.write("c")
        >>> print(printer.text())
        a
          b
        c
        """
        self._indent += 1
        try:
            yield
        finally:
            self._indent -= 1

    def print_region(
        self,
        region: Region,
        print_entry_args: bool = True,
        print_empty_block: bool = False,
        print_block_terminators: bool = True,
    ) -> None:
        """``{`` newline, the blocks, ``}``. The entry block's header (``^bb0(...):``) is
        printed only if ``print_entry_args`` and it has arguments, or if
        ``print_empty_block`` and it is empty. Ops whose syntax implies the terminator
        (``scf.for`` with a bare ``scf.yield``) pass ``print_block_terminators=False``.
        Inside, op names of the owning op's ``default_dialect`` lose their prefix."""
        if self.skip_regions:
            self._parts.append("{...}")
            return
        self._parts.append("{\n")
        owner = region.parent_op
        self._default_dialects.append(owner.default_dialect if owner is not None else "")
        self._indent += 1
        predecessors = _predecessors(region)
        for number, block in enumerate(region.blocks):
            show_header = number > 0
            show_header |= print_entry_args and bool(block.arguments)
            show_header |= print_empty_block and len(block) == 0
            if show_header:
                self._print_block_header(block, predecessors.get(block, []))
            for op in block:
                if print_block_terminators or not (op.is_terminator and op is block.last_op):
                    self.print_op(op)
        self._indent -= 1
        self._default_dialects.pop()
        self._parts.append(INDENT * self._indent + "}")

    # -- ops -----------------------------------------------------------------------------
    def print_op(self, op: Operation) -> None:
        """One op, on its own line(s), with its results and optional location."""
        self._parts.append(INDENT * self._indent)
        if op.results:
            self._parts.append(self.names.result_group_name(op))
            if len(op.results) > 1:
                self._parts.append(f":{len(op.results)}")
            self._parts.append(" = ")
        if op.has_custom_syntax and not self.generic and can_print_custom(op):
            self._parts.append(self._short_name(op.name))
            op.print_custom(self)
        else:
            self.print_generic_op(op)
        if self.locations and op.location is not None:
            self._parts.append(f" {op.location}")
        self._parts.append("\n")

    def _short_name(self, name: str) -> str:
        """Drop the enclosing op's default dialect prefix: ``func.return`` -> ``return``."""
        dialect = self._default_dialects[-1]
        if dialect and name.startswith(dialect + ".") and name.count(".") == 1:
            return name[len(dialect) + 1 :]
        return name

    def print_generic_op(self, op: Operation) -> None:
        """Everything after ``%results =`` in MLIR's generic form."""
        self._parts.append(f'"{op.name}"(')
        self.print_operands(op.operands)
        self._parts.append(")")
        if op.successors:
            self._parts.append("[")
            self._parts.append(", ".join(self.names.block_name(b) for b in op.successors))
            self._parts.append("]")
        inherent = {k: v for k, v in op.attributes.items() if k in op.inherent_attributes}
        if inherent:
            self._parts.append(" <" + format_attr_dict(inherent) + ">")
        if op.regions:
            self._parts.append(" (")
            for number, region in enumerate(op.regions):
                if number:
                    self._parts.append(", ")
                self.print_region(region, print_entry_args=True, print_empty_block=True)
            self._parts.append(")")
        self.print_attr_dict(op.attributes, elided=inherent)
        self._parts.append(" : ")
        self.print_function_type(op.operand_types, op.result_types)

    def _print_block_header(self, block: Block, predecessors: list[Block]) -> None:
        """``^bb1(%0: f32):  // 2 preds: ^bb0, ^bb2`` at the indentation of the op."""
        self._parts.append(INDENT * (self._indent - 1) + self.names.block_name(block))
        if block.arguments:
            self._parts.append("(")
            self.print_arguments(block.arguments)
            self._parts.append(")")
        self._parts.append(":")
        if len(predecessors) == 1:
            self._parts.append(f"  // pred: {self.names.block_name(predecessors[0])}")
        elif predecessors:
            listed = ", ".join(self.names.block_name(b) for b in predecessors)
            self._parts.append(f"  // {len(predecessors)} preds: {listed}")
        elif not block.is_entry_block:
            self._parts.append("  // no predecessors")
        self._parts.append("\n")


def can_print_custom(op: Operation) -> bool:
    """Whether ``op`` is valid enough for its ``print_custom``: as in MLIR, an op that
    fails its own checks is printed in generic form (custom printers may assume them)."""
    from tinycomp.ir.verifier import count_mismatch

    if count_mismatch(op) is not None:
        return False
    try:
        op.verify_op()
    except VerifyError:
        return False
    return True


def _predecessors(region: Region) -> dict[Block, list[Block]]:
    """For each block of ``region``, the blocks whose ops branch to it, in block order
    (one entry per branch edge, as MLIR counts them)."""
    result: dict[Block, list[Block]] = {}
    for block in region.blocks:
        for op in block:
            for successor in op.successors:
                result.setdefault(successor, []).append(block)
    return result


__all__ = [
    "INDENT",
    "Printer",
    "can_print_custom",
    "naming_root",
    "print_ir",
    "print_op_summary",
]
