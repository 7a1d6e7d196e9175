"""gpu: where device code lives, ``gpu.module``.

A ``gpu.module`` holds the code compiled for the device: kernels and the device
functions they call (``gpu.func``), in a symbol table of its own, so the host names a
kernel by a nested symbol, ``@kernels::@scale``. Optional *targets* say which GPUs to
compile it for::

    gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
      gpu.func @scale(%buf: memref<64xf32>) kernel { ... }
    }

>>> module = GPUModuleOp.build("kernels")
>>> module.sym_name, module.is_symbol_table, len(module.body.ops)
('kernels', True, 0)
"""

from __future__ import annotations

from tinycomp.ir.attributes import Attribute, StringAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region

__all__ = ["GPUModuleOp"]


class GPUModuleOp(Operation):
    """A module of device code: ``gpu.module @kernels { gpu.func ... }``.

    >>> GPUModuleOp.build("kernels").sym_name
    'kernels'
    """

    name = "gpu.module"
    num_operands = 0
    num_results = 0
    num_regions = 1
    num_successors = 0
    is_isolated_from_above = True
    no_terminator = True
    has_graph_regions = True
    is_symbol_table = True
    has_custom_syntax = True
    inherent_attributes = ("sym_name", "targets")

    @classmethod
    def build(cls, name: str) -> GPUModuleOp:
        """An empty ``gpu.module @name`` (append ``GPUFuncOp``s to ``body``)."""
        return cls([], [], {"sym_name": StringAttr(name)}, [Region([Block()])])

    @property
    def sym_name(self) -> str:
        """The module's name, without ``@``."""
        return self.attributes["sym_name"].value

    @property
    def body(self) -> Block:
        """The single block holding the functions."""
        return self.regions[0].blocks[0]

    def verify_op(self) -> None:
        if not isinstance(self.attributes.get("sym_name"), StringAttr):
            raise self.error("expected a 'sym_name' string attribute")
        if len(self.regions[0].blocks) != 1 or self.body.arguments:
            raise self.error("expected a body of one block without arguments")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_symbol_name(self.sym_name)
        if "targets" in self.attributes:
            printer.write(" ")
            printer.print_attribute(self.attributes["targets"])
        printer.print_attr_dict_with_keyword(self.attributes, elided=self.inherent_attributes)
        printer.write(" ")
        printer.print_region(self.regions[0], print_entry_args=False)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes: dict[str, Attribute] = {"sym_name": StringAttr(parser.parse_symbol_name())}
        if parser.token.is_punct("["):
            attributes["targets"] = parser.parse_attribute()
        attributes.update(parser.parse_optional_attr_dict_with_keyword())
        region = parser.parse_region()
        if not region.blocks:
            region.append_block(Block())
        return cls([], [], attributes, [region])
