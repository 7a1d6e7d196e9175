"""gpu: the ops the threads of a warp or a block do together: ``gpu.barrier``,
``gpu.shuffle`` and ``gpu.subgroup_reduce``.

All three are *convergent*: every thread of the group must reach them together, so no
pass may move one under a condition it was not under. ``gpu.barrier`` (CUDA's
``__syncthreads()``) is also a barrier: memory accesses may not move across it::

    gpu.barrier
    %r, %valid = gpu.shuffle  xor %x, %c1, %c32 : f32
    %sum = gpu.subgroup_reduce  add %x : (f32) -> f32

``gpu.shuffle`` reads ``%x`` from another lane of the warp: lane ``l`` reads lane
``l ^ offset`` (``xor``), ``l - offset`` (``up``), ``l + offset`` (``down``) or
``offset`` (``idx``), within groups of ``width`` lanes; ``%valid`` is false where the
source lane is outside the group (then ``%r`` is unspecified: PTX's ``shfl.sync`` keeps
the lane's own value). ``gpu.subgroup_reduce`` combines the value of every lane of the
warp (or of each cluster of ``size`` lanes ``stride`` apart).

>>> from tinycomp.ir import Block, f32, i32
>>> x, off, width = Block([f32, i32, i32]).arguments
>>> shuffle = ShuffleOp.build("xor", x, off, width)
>>> shuffle.mode, [str(t) for t in shuffle.result_types], shuffle.is_convergent
('xor', ['f32', 'i1'], True)
"""

from __future__ import annotations

from tinycomp.dialects.gpu.enums import check_enum, enum_attr, enum_value, parse_enum_keyword
from tinycomp.ir.attributes import Attribute, IntegerAttr, UnitAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import FloatType, IntegerType, Type, VectorType, i1, i32
from tinycomp.ir.values import Value

__all__ = ["REDUCE_KINDS", "SHUFFLE_MODES", "BarrierOp", "ShuffleOp", "SubgroupReduceOp"]

SHUFFLE_MODES = ("xor", "up", "down", "idx")
"""The modes of ``#gpu<shuffle_mode ...>``."""
FLOAT_KINDS = ("add", "mul", "minnumf", "maxnumf", "minimumf", "maximumf")
INT_KINDS = ("add", "mul", "minui", "minsi", "maxui", "maxsi", "and", "or", "xor")
REDUCE_KINDS = tuple(dict.fromkeys(FLOAT_KINDS + INT_KINDS))
"""The kinds of ``#gpu<all_reduce_op ...>``."""


def _element(type: Type) -> Type:
    return type.element_type if isinstance(type, VectorType) else type


class BarrierOp(Operation):
    """Wait until every thread of the block arrives (``__syncthreads()``): ``gpu.barrier``.

    >>> BarrierOp.build().is_barrier, BarrierOp.is_convergent
    (True, True)
    """

    name = "gpu.barrier"
    num_operands = 0
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_convergent = True
    is_barrier = True
    has_custom_syntax = True

    @classmethod
    def build(cls) -> BarrierOp:
        """A ``gpu.barrier``."""
        return cls([], [], {}, [])

    def print_custom(self, printer: Printer) -> None:
        printer.print_attr_dict(self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        return cls([], [], parser.parse_optional_attr_dict(), [])


class ShuffleOp(Operation):
    """Read a value from another lane: ``%r, %ok = gpu.shuffle  down %x, %off, %w : f32``."""

    name = "gpu.shuffle"
    num_operands = 3
    num_results = 2
    num_regions = 0
    num_successors = 0
    is_pure = True
    is_convergent = True
    has_custom_syntax = True
    inherent_attributes = ("mode",)

    @classmethod
    def build(cls, mode: str, value: Value, offset: Value, width: Value) -> ShuffleOp:
        """A shuffle of ``value`` in ``mode`` (``xor``, ``up``, ``down``, ``idx``)."""
        attributes = {"mode": enum_attr("gpu", "shuffle_mode", mode)}
        return cls([value, offset, width], [value.type, i1], attributes, [])

    @property
    def mode(self) -> str:
        """``"xor"``, ``"up"``, ``"down"`` or ``"idx"``."""
        return enum_value(self.attributes.get("mode"), "gpu", "shuffle_mode") or ""

    def verify_op(self) -> None:
        check_enum(self, "mode", "gpu", "shuffle_mode", SHUFFLE_MODES)
        value, offset, width = self.operands
        for what, operand in (("offset", offset), ("width", width)):
            if operand.type != i32:
                raise self.error(f"expected the {what} to be i32, got {operand.type}")
        if not isinstance(_element(value.type), (IntegerType, FloatType)):
            raise self.error(f"expected an integer or float value, got {value.type}")
        if self.result_types != (value.type, i1):
            found = ", ".join(map(str, self.result_types))
            raise self.error(f"expected results ({value.type}, i1), got ({found})")

    def asm_result_names(self) -> list[str | None]:
        return ["shuffleResult", "valid"]

    def print_custom(self, printer: Printer) -> None:
        printer.write(f"  {self.mode} ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes, elided=["mode"])
        printer.write(" : ")
        printer.print_type(self.operands[0].type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        mode = parse_enum_keyword(parser, "a shuffle mode", SHUFFLE_MODES)
        operands = parser.parse_operand_list()
        attributes: dict[str, Attribute] = {"mode": enum_attr("gpu", "shuffle_mode", mode)}
        attributes.update(parser.parse_optional_attr_dict())
        value_type = parser.parse_colon_type()
        if len(operands) != 3:
            raise parser.error(f"expected 3 operands (value, offset, width), got {len(operands)}")
        values = parser.resolve_operands(operands, [value_type, i32, i32])
        return cls(values, [value_type, i1], attributes, [])


class SubgroupReduceOp(Operation):
    """Combine a value over the lanes of a warp:
    ``%s = gpu.subgroup_reduce  add %x uniform cluster(size = 4) : (f32) -> f32``.

    >>> from tinycomp.ir import Block, i32
    >>> (x,) = Block([i32]).arguments
    >>> op = SubgroupReduceOp.build("xor", x, cluster_size=8)
    >>> op.kind, op.attributes["cluster_size"].value, op.attributes["cluster_stride"].value
    ('xor', 8, 1)
    """

    name = "gpu.subgroup_reduce"
    num_operands = 1
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_convergent = True
    has_custom_syntax = True
    inherent_attributes = ("op", "uniform", "cluster_size", "cluster_stride")

    @classmethod
    def build(
        cls,
        kind: str,
        value: Value,
        uniform: bool = False,
        cluster_size: int | None = None,
        cluster_stride: int = 1,
    ) -> SubgroupReduceOp:
        """A reduction of ``value`` by ``kind`` over the warp (or each cluster)."""
        attributes: dict[str, Attribute] = {
            "op": enum_attr("gpu", "all_reduce_op", kind),
            "cluster_stride": IntegerAttr(cluster_stride, i32),
        }
        if uniform:
            attributes["uniform"] = UnitAttr()
        if cluster_size is not None:
            attributes["cluster_size"] = IntegerAttr(cluster_size, i32)
        return cls([value], [value.type], attributes, [])

    @property
    def kind(self) -> str:
        """The combining kind (``add``, ``maxnumf``, ``and``...)."""
        return enum_value(self.attributes.get("op"), "gpu", "all_reduce_op") or ""

    def verify_op(self) -> None:
        kind = check_enum(self, "op", "gpu", "all_reduce_op", REDUCE_KINDS)
        value_type = self.operands[0].type
        element = _element(value_type)
        allowed = FLOAT_KINDS if isinstance(element, FloatType) else INT_KINDS
        if not isinstance(element, (FloatType, IntegerType)):
            raise self.error(
                f"expected an integer or float value (or a vector of them), got {value_type}"
            )
        if kind not in allowed:
            raise self.error(f"expected a kind for {value_type} ({', '.join(allowed)}), got {kind}")
        if self.result.type != value_type:
            raise self.error(f"expected a result of type {value_type}, got {self.result.type}")
        size = self.attributes.get("cluster_size")
        if isinstance(size, IntegerAttr) and (size.value <= 0 or size.value & (size.value - 1)):
            raise self.error(f"expected a cluster size that is a power of two, got {size.value}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(f"  {self.kind} ")
        printer.print_operand(self.operands[0])
        if "uniform" in self.attributes:
            printer.write(" uniform")
        size = self.attributes.get("cluster_size")
        stride = self.attributes.get("cluster_stride")
        if isinstance(size, IntegerAttr):
            strided = isinstance(stride, IntegerAttr) and stride.value != 1
            printer.write(f" cluster(size = {size.value}")
            printer.write(f", stride = {stride.value})" if strided else ")")
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        printer.write(f" : ({self.operands[0].type}) -> {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        kind = parse_enum_keyword(parser, "a reduction kind", REDUCE_KINDS)
        operand = parser.parse_operand()
        uniform = parser.parse_optional_keyword("uniform")
        size, stride = None, 1
        if parser.parse_optional_keyword("cluster"):
            parser.parse_punct("(")
            parser.parse_keyword("size")
            parser.parse_punct("=")
            size = parser.parse_integer("a cluster size")
            if parser.parse_optional_punct(","):
                parser.parse_keyword("stride")
                parser.parse_punct("=")
                stride = parser.parse_integer("a cluster stride")
            parser.parse_punct(")")
        attributes = parser.parse_optional_attr_dict()
        function_type = parser.parse_colon_type()
        inputs, results = function_type.inputs, function_type.results
        value = parser.resolve_operand(operand, inputs[0])
        op = cls.build(kind, value, uniform, size, stride)
        op = cls([value], list(results), {**op.attributes, **attributes}, [])
        return op
