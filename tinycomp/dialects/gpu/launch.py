"""gpu: launching a kernel from the host, ``gpu.launch_func``.

The host side names the kernel by its nested symbol ``@module::@func``, the grid size in
blocks and the block size in threads (three ``index`` values each, CUDA's
``<<<grid, block>>>``), optionally a cluster size and the bytes of dynamic shared memory,
and the kernel's arguments::

    gpu.launch_func  @kernels::@scale blocks in (%gx, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%buf : memref<?xf32>, %n : index)

(on one line; ``mlir-opt`` prints two spaces before the symbol and before ``args``.)
The module that holds both sides must carry the unit attribute ``gpu.container_module``.
Operands, in MLIR's 13 segments: async dependencies, grid x/y/z, block x/y/z,
cluster x/y/z, dynamic shared memory size, kernel operands, async object (tinycomp
builds neither async part).

>>> from tinycomp.ir import Block, f32, index
>>> c1, c32, x = Block([index, index, f32]).arguments
>>> op = LaunchFuncOp.build("kernels", "k", (c1, c1, c1), (c32, c1, c1), [x])
>>> str(op.attributes["kernel"]), op.kernel_operands == (x,), op.block_size[0] is c32
('@kernels::@k', True, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.operand_segments import (
    SEGMENTS,
    check_segments,
    segment,
    segment_sizes,
)
from tinycomp.dialects.gpu.container import GPUModuleOp
from tinycomp.dialects.gpu.func import GPUFuncOp
from tinycomp.ir.attributes import Attribute, SymbolRefAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.symbols import SymbolTable
from tinycomp.ir.types import i32, index
from tinycomp.ir.values import Value

__all__ = ["LaunchFuncOp"]

_GROUPS = 13
_GRID, _BLOCK, _CLUSTER, _SHARED, _ARGS = 1, 4, 7, 10, 11


class LaunchFuncOp(Operation):
    """Launch ``@module::@kernel`` on a grid of blocks of threads (see the module docstring)."""

    name = "gpu.launch_func"
    num_results = 0
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = ("kernel", SEGMENTS)

    @classmethod
    def build(
        cls,
        module: str,
        kernel: str,
        grid: Sequence[Value],
        block: Sequence[Value],
        args: Sequence[Value] = (),
        cluster: Sequence[Value] = (),
        dynamic_shared_memory: Value | None = None,
    ) -> LaunchFuncOp:
        """Launch ``@module::@kernel`` with three grid and three block sizes."""
        shared = [dynamic_shared_memory] if dynamic_shared_memory is not None else []
        sizes = [0, 1, 1, 1, 1, 1, 1, *([1] * 3 if cluster else [0] * 3), len(shared), len(args), 0]
        attributes: dict[str, Attribute] = {
            "kernel": SymbolRefAttr(module, (kernel,)),
            SEGMENTS: segment_sizes(*sizes),
        }
        operands = [*grid, *block, *cluster, *shared, *args]
        return cls(operands, [], attributes, [])

    def _group(self, start: int, count: int) -> tuple[Value, ...]:
        return tuple(v for i in range(start, start + count) for v in segment(self, i))

    @property
    def grid_size(self) -> tuple[Value, ...]:
        """Blocks in x, y and z."""
        return self._group(_GRID, 3)

    @property
    def block_size(self) -> tuple[Value, ...]:
        """Threads per block in x, y and z."""
        return self._group(_BLOCK, 3)

    @property
    def cluster_size(self) -> tuple[Value, ...]:
        """Blocks per cluster in x, y and z (empty without clusters)."""
        return self._group(_CLUSTER, 3)

    @property
    def dynamic_shared_memory_size(self) -> Value | None:
        """The bytes of dynamic shared memory (an i32), if given."""
        values = segment(self, _SHARED)
        return values[0] if values else None

    @property
    def kernel_operands(self) -> tuple[Value, ...]:
        """The arguments passed to the kernel."""
        return segment(self, _ARGS)

    def verify_op(self) -> None:
        sizes = check_segments(self, _GROUPS)
        kernel = self.attributes.get("kernel")
        if not (isinstance(kernel, SymbolRefAttr) and len(kernel.nested) == 1):
            raise self.error(f"expected a 'kernel' symbol like @module::@func, got {kernel}")
        if sizes[0] or sizes[12]:
            raise self.error("async launches are not supported")
        if any(sizes[i] != 1 for i in range(1, 7)) or len(set(sizes[7:10])) != 1:
            raise self.error(f"expected one value per grid, block and cluster size, got {sizes}")
        for value in (*self.grid_size, *self.block_size, *self.cluster_size):
            if value.type != index:
                raise self.error(f"expected index sizes, got {value.type}")
        shared = self.dynamic_shared_memory_size
        if shared is not None and shared.type != i32:
            raise self.error(f"expected an i32 dynamic shared memory size, got {shared.type}")
        table = self.parent_op()
        while table is not None and table.parent_op() is not None:
            table = table.parent_op()
        if table is not None and "gpu.container_module" not in table.attributes:
            raise self.error(
                "expected the enclosing module to have the 'gpu.container_module' attribute"
            )

    def verify_symbol_uses(self, symbols: SymbolTable) -> None:
        kernel = self.attributes["kernel"]
        module = symbols.lookup(kernel.root) if symbols is not None else None
        if not isinstance(module, GPUModuleOp):
            raise self.error(f"kernel module '@{kernel.root}' is undefined")
        func = SymbolTable(module).lookup(kernel.nested[0])
        if not isinstance(func, GPUFuncOp):
            raise self.error(f"kernel function '{kernel}' is undefined")
        if not func.is_kernel:
            raise self.error(f"'{kernel}' is not marked with the 'kernel' attribute")
        want = tuple(func.function_type.inputs)
        found = tuple(v.type for v in self.kernel_operands)
        if want != found:
            raise self.error(
                f"expected arguments ({', '.join(map(str, want))}) for {kernel}, "
                f"got ({', '.join(map(str, found))})"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(f"  {self.attributes['kernel']}")
        for keyword, values in (
            ("clusters", self.cluster_size),
            ("blocks", self.grid_size),
            ("threads", self.block_size),
        ):
            if values:
                printer.write(f" {keyword} in (")
                printer.print_operands(values)
                printer.write(")")
        printer.write(" ")
        shared = self.dynamic_shared_memory_size
        if shared is not None:
            printer.write(" dynamic_shared_memory_size ")
            printer.print_operand(shared)
        printer.write(" ")
        if self.kernel_operands:
            parts = [f"{printer.names.value_name(v)} : {v.type}" for v in self.kernel_operands]
            printer.write(f"args({', '.join(parts)})")
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        kernel = parser.parse_attribute()
        if not isinstance(kernel, SymbolRefAttr) or len(kernel.nested) != 1:
            raise parser.error(f"expected a kernel symbol like @module::@func, got {kernel}")
        groups: dict[str, list[Value]] = {}
        for keyword in ("clusters", "blocks", "threads"):
            if parser.parse_optional_keyword(keyword):
                parser.parse_keyword("in")
                parser.parse_punct("(")
                names = parser.parse_operand_list()
                parser.parse_punct(")")
                groups[keyword] = parser.resolve_operands(names, [index] * len(names))
            elif keyword != "clusters":
                raise parser.expected(f"'{keyword} in (...)'")
        shared = []
        if parser.parse_optional_keyword("dynamic_shared_memory_size"):
            shared = [parser.resolve_operand(parser.parse_operand(), i32)]
        args: list[Value] = []
        if parser.parse_optional_keyword("args"):
            parser.parse_punct("(")

            def parse_arg() -> None:
                name = parser.parse_operand()
                args.append(parser.resolve_operand(name, parser.parse_colon_type()))

            parser.parse_comma_separated(parse_arg, ")")
            parser.parse_punct(")")
        module, func = kernel.root, kernel.nested[0]
        grid, block = groups["blocks"], groups["threads"]
        if len(grid) != 3 or len(block) != 3:
            raise parser.error(
                f"expected 3 grid and 3 block sizes, got {len(grid)} and {len(block)}"
            )
        op = cls.build(module, func, grid, block, args, groups.get("clusters", ()), *shared)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op
