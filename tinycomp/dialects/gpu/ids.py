"""gpu: where a thread is, ``gpu.thread_id``, ``block_id``, ``block_dim``, ``grid_dim``,
``gpu.lane_id`` and ``gpu.subgroup_id``.

Each is an ``index`` that differs per thread (or per block) but has no memory effect, so
all are pure: CUDA's ``threadIdx.x``, ``blockIdx.y``, ``blockDim.z``, ``gridDim.x``, the
lane within the warp and the warp within the block (MLIR's *subgroup* is a warp)::

    %tx = gpu.thread_id  x
    %bx = gpu.block_id  x upper_bound 1024
    %lane = gpu.lane_id
    %warp = gpu.subgroup_id : index

(``mlir-opt`` prints two spaces before the dimension; so does tinycomp.) The optional
``upper_bound`` promises the value is below it.

>>> op = ThreadIdOp.build("y")
>>> op.dimension, op.result.type, op.is_pure
('y', IndexType(), True)
"""

from __future__ import annotations

from tinycomp.dialects.gpu.enums import check_enum, enum_attr, parse_enum_keyword
from tinycomp.ir.attributes import Attribute, IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import index

__all__ = [
    "DIMENSIONS", "BlockDimOp", "BlockIdOp", "GridDimOp", "LaneIdOp", "SubgroupIdOp", "ThreadIdOp",
]  # fmt: skip

DIMENSIONS = ("x", "y", "z")
"""The dimension names of ``#gpu<dim ...>``."""


def _print_upper_bound(op: Operation, printer: Printer) -> None:
    bound = op.attributes.get("upper_bound")
    if isinstance(bound, IntegerAttr):
        printer.write(f" upper_bound {bound.value}")
    printer.print_attr_dict(op.attributes, elided=["dimension", "upper_bound"])


def _parse_upper_bound(parser: Parser, attributes: dict[str, Attribute]) -> None:
    if parser.parse_optional_keyword("upper_bound"):
        attributes["upper_bound"] = IntegerAttr(parser.parse_integer("an upper bound"), index)
    attributes.update(parser.parse_optional_attr_dict())


class DimensionOp(Operation):
    """Base of the ops that read one dimension of a thread's position: ``%t = gpu.thread_id  x``."""

    num_operands = 0
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("dimension", "upper_bound")
    result_prefix = ""

    @classmethod
    def build(cls, dimension: str, upper_bound: int | None = None) -> DimensionOp:
        """The op for dimension ``"x"``, ``"y"`` or ``"z"``, optionally bounded."""
        attributes: dict[str, Attribute] = {"dimension": enum_attr("gpu", "dim", dimension)}
        if upper_bound is not None:
            attributes["upper_bound"] = IntegerAttr(upper_bound, index)
        return cls([], [index], attributes, [])

    @property
    def dimension(self) -> str:
        """``"x"``, ``"y"`` or ``"z"``."""
        return self.attributes["dimension"].text.split()[-1].rstrip(">")

    def verify_op(self) -> None:
        check_enum(self, "dimension", "gpu", "dim", DIMENSIONS)
        if self.result.type != index:
            raise self.error(f"expected an index result, got {self.result.type}")

    def asm_result_names(self) -> list[str | None]:
        return [f"{self.result_prefix}_{self.dimension}"]

    def print_custom(self, printer: Printer) -> None:
        printer.write(f"  {self.dimension}")
        _print_upper_bound(self, printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        dimension = parse_enum_keyword(parser, "a dimension", DIMENSIONS)
        attributes: dict[str, Attribute] = {"dimension": enum_attr("gpu", "dim", dimension)}
        _parse_upper_bound(parser, attributes)
        return cls([], [index], attributes, [])


class ThreadIdOp(DimensionOp):
    """The thread's index in its block (CUDA ``threadIdx``): ``%t = gpu.thread_id  x``."""

    name = "gpu.thread_id"
    result_prefix = "thread_id"


class BlockIdOp(DimensionOp):
    """The block's index in the grid (CUDA ``blockIdx``): ``%b = gpu.block_id  y``."""

    name = "gpu.block_id"
    result_prefix = "block_id"


class BlockDimOp(DimensionOp):
    """Threads per block (CUDA ``blockDim``): ``%n = gpu.block_dim  x``."""

    name = "gpu.block_dim"
    result_prefix = "block_dim"


class GridDimOp(DimensionOp):
    """Blocks per grid (CUDA ``gridDim``): ``%g = gpu.grid_dim  z``."""

    name = "gpu.grid_dim"
    result_prefix = "grid_dim"


class LaneIdOp(Operation):
    """The thread's lane in its warp, 0 to 31 on NVIDIA GPUs: ``%l = gpu.lane_id``.

    >>> LaneIdOp.build(upper_bound=32).attributes["upper_bound"].value
    32
    """

    name = "gpu.lane_id"
    num_operands = 0
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("upper_bound",)

    @classmethod
    def build(cls, upper_bound: int | None = None) -> LaneIdOp:
        """``gpu.lane_id``, optionally with ``upper_bound``."""
        attributes: dict[str, Attribute] = {}
        if upper_bound is not None:
            attributes["upper_bound"] = IntegerAttr(upper_bound, index)
        return cls([], [index], attributes, [])

    def print_custom(self, printer: Printer) -> None:
        _print_upper_bound(self, printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes: dict[str, Attribute] = {}
        _parse_upper_bound(parser, attributes)
        return cls([], [index], attributes, [])


class SubgroupIdOp(LaneIdOp):
    """The warp's index in its block: ``%w = gpu.subgroup_id : index``.

    >>> SubgroupIdOp.build().result.type
    IndexType()
    """

    name = "gpu.subgroup_id"

    def print_custom(self, printer: Printer) -> None:
        _print_upper_bound(self, printer)
        printer.write(" : index")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes: dict[str, Attribute] = {}
        _parse_upper_bound(parser, attributes)
        return cls([], [parser.parse_colon_type()], attributes, [])

    def verify_op(self) -> None:
        if self.result.type != index:
            raise self.error(f"expected an index result, got {self.result.type}")
