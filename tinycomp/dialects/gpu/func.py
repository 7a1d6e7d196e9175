"""gpu: kernels and device functions, ``gpu.func`` and ``gpu.return``.

In a ``gpu.module``, the ``gpu.func``s marked ``kernel`` are what the host launches
(``gpu.launch_func``), the others are device functions they call. A kernel may
declare memory of its own after its arguments: ``workgroup(...)`` buffers are shared by
the threads of a block (CUDA ``__shared__``), ``private(...)`` buffers belong to one
thread; both are extra block arguments of the body, after the function's inputs (the
header is one line)::

    gpu.module @kernels {
      gpu.func @scale(%buf: memref<64xf32>)
          workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
        ...
        gpu.return
      }
    }

>>> from tinycomp.ir import FunctionType, f32
>>> func = GPUFuncOp.build("k", FunctionType([f32], []), kernel=True)
>>> func.is_kernel, len(func.arguments), func.attributes["workgroup_attributions"].value
(True, 1, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.syntax import parse_values_with_types, print_values_with_types
from tinycomp.ir.attributes import (
    ArrayAttr,
    Attribute,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TypeAttr,
    UnitAttr,
)
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import FunctionType, Type, format_result_types, i64
from tinycomp.ir.values import BlockArgument

__all__ = ["GPUFuncOp", "ReturnOp"]

_FUNC_ELIDED = ("function_type", "sym_name", "workgroup_attributions", "gpu.kernel", "arg_attrs")


class GPUFuncOp(Operation):
    """A device function or kernel: ``gpu.func @k(%a: memref<?xf32>) kernel { ... }``."""

    name = "gpu.func"
    num_operands = 0
    num_results = 0
    num_regions = 1
    num_successors = 0
    is_isolated_from_above = True
    has_custom_syntax = True
    inherent_attributes = (
        "function_type", "arg_attrs", "res_attrs", "workgroup_attrib_attrs",
        "private_attrib_attrs", "known_block_size", "known_grid_size",
    )  # fmt: skip

    @classmethod
    def build(
        cls,
        name: str,
        function_type: FunctionType,
        kernel: bool = False,
        workgroup: Sequence[Type] = (),
        private: Sequence[Type] = (),
    ) -> GPUFuncOp:
        """A function whose entry block has the inputs, then the ``workgroup`` and the
        ``private`` buffers as arguments (add ops ending in ``ReturnOp``)."""
        attributes: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": TypeAttr(function_type),
            "workgroup_attributions": IntegerAttr(len(workgroup), i64),
        }
        if kernel:
            attributes["gpu.kernel"] = UnitAttr()
        body = Block([*function_type.inputs, *workgroup, *private])
        return cls([], [], attributes, [Region([body])])

    @property
    def sym_name(self) -> str:
        """The function's name, without ``@``."""
        return self.attributes["sym_name"].value

    @property
    def function_type(self) -> FunctionType:
        """The function's type (the attributions are not part of it)."""
        return self.attributes["function_type"].type

    @property
    def is_kernel(self) -> bool:
        """True for a kernel, launchable from the host."""
        return "gpu.kernel" in self.attributes

    @property
    def entry_block(self) -> Block:
        """The body's first block."""
        return self.regions[0].blocks[0]

    def _split(self) -> tuple[int, int]:
        inputs = len(self.function_type.inputs)
        attr = self.attributes.get("workgroup_attributions")
        return inputs, inputs + (attr.value if isinstance(attr, IntegerAttr) else 0)

    @property
    def arguments(self) -> tuple[BlockArgument, ...]:
        """The function's inputs."""
        return self.entry_block.arguments[: self._split()[0]]

    @property
    def workgroup_attributions(self) -> tuple[BlockArgument, ...]:
        """The block-shared buffers (``workgroup(...)``)."""
        start, end = self._split()
        return self.entry_block.arguments[start:end]

    @property
    def private_attributions(self) -> tuple[BlockArgument, ...]:
        """The per-thread buffers (``private(...)``)."""
        return self.entry_block.arguments[self._split()[1] :]

    def verify_op(self) -> None:
        if not isinstance(self.attributes.get("sym_name"), StringAttr):
            raise self.error("expected a 'sym_name' string attribute")
        type_attr = self.attributes.get("function_type")
        if not (isinstance(type_attr, TypeAttr) and isinstance(type_attr.type, FunctionType)):
            raise self.error(f"expected a 'function_type' function type, got {type_attr}")
        if not self.regions[0].blocks:
            raise self.error("expected a body")
        inputs = self.function_type.inputs
        found = tuple(a.type for a in self.arguments)
        if found != tuple(inputs) or len(self.entry_block.arguments) < self._split()[1]:
            raise self.error(
                f"expected entry block arguments ({', '.join(map(str, inputs))}) and the "
                f"attributions, got ({', '.join(str(a.type) for a in self.entry_block.arguments)})"
            )
        if self.is_kernel and self.function_type.results:
            raise self.error("expected a kernel function to return nothing")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_symbol_name(self.sym_name)
        printer.write("(")
        arg_attrs = self.attributes.get("arg_attrs")
        for number, argument in enumerate(self.arguments):
            if number:
                printer.write(", ")
            entry = arg_attrs.elements[number] if isinstance(arg_attrs, ArrayAttr) else None
            printer.print_argument(argument, entry.to_dict() if entry is not None else None)
        printer.write(")")
        if self.function_type.results:
            printer.write(" -> " + format_result_types(self.function_type.results))
        for keyword, values in (
            ("workgroup", self.workgroup_attributions),
            ("private", self.private_attributions),
        ):
            if values:
                parts = [f"{printer.names.value_name(v)} : {v.type}" for v in values]
                printer.write(f" {keyword}({', '.join(parts)})")
        if self.is_kernel:
            printer.write(" kernel")
        printer.print_attr_dict_with_keyword(self.attributes, elided=_FUNC_ELIDED)
        printer.write(" ")
        printer.print_region(self.regions[0], print_entry_args=False)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes: dict[str, Attribute] = {"sym_name": StringAttr(parser.parse_symbol_name())}
        parser.parse_punct("(")
        arguments = []
        if parser.token.kind == "percent_id":
            arguments = parser.parse_comma_separated(parser.parse_argument, ")")
        parser.parse_punct(")")
        results = parser.parse_result_types() if parser.parse_optional_punct("->") else []
        inputs = [a.type for a in arguments]
        if any(a.attributes for a in arguments):
            attributes["arg_attrs"] = ArrayAttr([DictionaryAttr(a.attributes) for a in arguments])
        counts = []
        for keyword in ("workgroup", "private"):
            extra = []
            if parser.parse_optional_keyword(keyword):
                parser.parse_punct("(")
                extra = parser.parse_comma_separated(lambda: parser.parse_argument(False), ")")
                parser.parse_punct(")")
            arguments += extra
            counts.append(len(extra))
        if parser.parse_optional_keyword("kernel"):
            attributes["gpu.kernel"] = UnitAttr()
        attributes.update(parser.parse_optional_attr_dict_with_keyword())
        attributes["function_type"] = TypeAttr(FunctionType(inputs, results))
        attributes["workgroup_attributions"] = IntegerAttr(counts[0], i64)
        region = parser.parse_region(arguments)
        return cls([], [], attributes, [region])


class ReturnOp(Operation):
    """Leave a ``gpu.func``: ``gpu.return`` or ``gpu.return %x : f32``.

    >>> ReturnOp.build().is_terminator
    True
    """

    name = "gpu.return"
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_terminator = True
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, values: Sequence = ()) -> ReturnOp:
        """``gpu.return`` of ``values``."""
        return cls(list(values), [], {}, [])

    def verify_op(self) -> None:
        parent = self.parent_op()
        if isinstance(parent, GPUFuncOp):
            want = tuple(parent.function_type.results)
            found = tuple(v.type for v in self.operands)
            if want != found:
                raise self.error(
                    f"expected values of types ({', '.join(map(str, want))}) for "
                    f"@{parent.sym_name}, got ({', '.join(map(str, found))})"
                )

    def print_custom(self, printer: Printer) -> None:
        printer.print_attr_dict(self.attributes)
        print_values_with_types(printer, self.operands)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        return cls(parse_values_with_types(parser), [], attributes, [])
