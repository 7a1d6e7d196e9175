"""npu: vector instructions on the unified buffer, in Ascend C's level-0 form.

A vector instruction works in *repeats*: each repeat reads 8 blocks of 32 bytes (256
bytes: 128 halves or 64 floats) of every operand and writes 8 blocks of the result;
``repeat`` (1 to 255) says how many repeats one instruction runs. ``mask`` (1 to the
elements of one repeat) switches on the first ``mask`` elements of each repeat (the
continuous mask mode). Where the blocks are is said by strides in 32-byte blocks:
``*_blk_stride`` between the blocks of one repeat (1: adjacent), ``*_rep_stride``
between the starts of two repeats (8: the next 256 bytes). Element ``j`` of repeat
``r`` of an operand at element offset ``o``, with ``e`` elements to a block, is::

    o + r * rep_stride * e + (j // e) * blk_stride * e + j % e

The ops, all on pipe ``V``, operands first the destination, then the sources, then one
element offset per buffer, then the scalar where there is one:

=========================================  ===============================================
op                                         does
=========================================  ===============================================
``vadd vsub vmul vdiv vmax vmin``          ``dst = src0 (op) src1`` (two cycles a repeat)
``vexp vln vabs vrelu vsqrt vrec vmov``     ``dst = f(src)`` (one cycle a repeat)
``vadds vmuls vmaxs vmins``                ``dst = src (op) scalar``
``vdup``                                   ``dst = scalar``
``vconv``                                  ``dst = src`` in another element type
``vreduce`` (``kind`` sum / max / min)     one value per repeat, ``dst[r * dst_rep_stride]``
=========================================  ===============================================

For ``vreduce`` the destination's repeat stride counts elements, as for Ascend C's
``WholeReduceSum``. An operation over more elements than 255 repeats hold is several
instructions (the kernel DSL's high-level ``add(dst, a, b, count)`` writes them).

>>> from tinycomp.dialects.npu.spaces import space
>>> from tinycomp.ir import Block, MemRefType, f16, index
>>> ub = MemRefType((1024,), f16, memory_space=space("UB"))
>>> d, a, b, o = Block([ub, ub, ub, index]).arguments
>>> add = VectorOp.build("npu.vadd", [d, a, b], [o, o, o], repeat=8)
>>> add.elements_per_repeat, add.cost_kind, add.mask
(128, 'binary', 128)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.npu.base import NpuOp, check_index, check_space, int_attr, str_attr
from tinycomp.ir.attributes import IntegerAttr, StringAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import bitwidth
from tinycomp.ir.types import i64
from tinycomp.ir.values import Value

__all__ = [
    "BINARY", "REDUCTIONS", "SCALAR", "UNARY", "VECTOR_OP_CLASSES", "VectorOp", "buffer_count",
]  # fmt: skip

BINARY = ("vadd", "vsub", "vmul", "vdiv", "vmax", "vmin")
UNARY = ("vexp", "vln", "vabs", "vrelu", "vsqrt", "vrec", "vmov", "vconv", "vreduce")
SCALAR = ("vadds", "vmuls", "vmaxs", "vmins", "vdup")
REDUCTIONS = ("sum", "max", "min")
REPEAT_BYTES = 256
BLOCK_BYTES = 32
MAX_REPEAT = 255


def buffer_count(short_name: str) -> int:
    """How many buffers an op reads and writes: 3 for binary ops, 1 for ``vdup``, else 2."""
    return 3 if short_name in BINARY else 1 if short_name == "vdup" else 2


class VectorOp(NpuOp):
    """Base of the vector ops (module docstring); one subclass per op name."""

    num_results = 0
    pipe = "V"
    short_name = ""

    @classmethod
    def build(
        cls,
        name: str,
        buffers: Sequence[Value],
        offsets: Sequence[Value],
        scalar: Value | None = None,
        *,
        repeat: int,
        mask: int | None = None,
        strides: dict[str, int] | None = None,
        kind: str | None = None,
    ) -> VectorOp:
        """The op ``name`` over ``buffers`` (destination first) at element ``offsets``;
        ``strides`` maps attribute names (``"src0_rep_stride"``...) to values."""
        attributes = {"repeat": IntegerAttr(repeat, i64)}
        if mask is not None:
            attributes["mask"] = IntegerAttr(mask, i64)
        for key, value in (strides or {}).items():
            attributes[key] = IntegerAttr(value, i64)
        if kind is not None:
            attributes["kind"] = StringAttr(kind)
        operands = [*buffers, *offsets] + ([scalar] if scalar is not None else [])
        op = Operation.create(name, operands, [], attributes)
        assert isinstance(op, VectorOp)
        return op

    # -- what the operands are ------------------------------------------------------------
    @property
    def buffers(self) -> tuple[Value, ...]:
        """Destination, then sources."""
        return self.operands[: buffer_count(self.short_name)]

    @property
    def offsets(self) -> tuple[Value, ...]:
        """One element offset per buffer."""
        n = buffer_count(self.short_name)
        return self.operands[n : 2 * n]

    @property
    def scalar(self) -> Value | None:
        """The scalar operand of ``vadds`` ... ``vdup``."""
        return self.operands[-1] if self.short_name in SCALAR else None

    @property
    def repeat(self) -> int:
        return int_attr(self, "repeat")

    @property
    def elements_per_repeat(self) -> int:
        """256 bytes of the widest operand."""
        widest = max(bitwidth(b.type.element_type) // 8 for b in self.buffers)
        return REPEAT_BYTES // widest

    @property
    def mask(self) -> int:
        """Active elements at the start of every repeat."""
        return int_attr(self, "mask", self.elements_per_repeat)

    @property
    def kind(self) -> str:
        """For ``vreduce``: sum, max or min."""
        return str_attr(self, "kind", "sum")

    @property
    def cost_kind(self) -> str:
        """``"binary"`` (two sources) or ``"unary"``: the vector unit's rate for it."""
        return "binary" if self.short_name in BINARY else "unary"

    def stride(self, operand: int, which: str) -> int:
        """The ``"blk"`` or ``"rep"`` stride of buffer ``operand`` (0: destination)."""
        prefix = "dst" if operand == 0 else f"src{operand - 1}"
        element = bitwidth(self.buffers[operand].type.element_type) // 8
        default_rep = self.elements_per_repeat * element // BLOCK_BYTES
        if self.short_name == "vreduce" and operand == 0:
            default_rep = 1
        default = 1 if which == "blk" else max(default_rep, 1)
        return int_attr(self, f"{prefix}_{which}_stride", default)

    def verify_op(self) -> None:
        n = buffer_count(self.short_name)
        expected = 2 * n + (1 if self.short_name in SCALAR else 0)
        if len(self.operands) != expected:
            raise self.error(
                f"expected {n} buffers, {n} offsets"
                + (" and a scalar" if self.short_name in SCALAR else "")
                + f" ({expected} operands), got {len(self.operands)}"
            )
        names = ["the destination"] + [f"source #{i}" for i in range(n - 1)]
        for value, what in zip(self.buffers, names, strict=True):
            check_space(self, value, what, ("UB",))
        for value in self.offsets:
            check_index(self, value, "an element offset")
        element = self.buffers[0].type.element_type
        if self.short_name != "vconv":
            for value in self.buffers[1:]:
                if value.type.element_type != element:
                    raise self.error(
                        f"expected every buffer to hold {element}, got {value.type.element_type}"
                    )
        if self.scalar is not None and self.scalar.type != element:
            raise self.error(f"expected the scalar to be {element}, got {self.scalar.type}")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise self.error(
                f"expected a repeat count of 1 to {MAX_REPEAT}, got {self.repeat} (split the "
                "work into several instructions)"
            )
        if not 1 <= self.mask <= self.elements_per_repeat:
            raise self.error(
                f"expected a mask of 1 to {self.elements_per_repeat} elements (256 bytes of "
                f"{element}), got {self.mask}"
            )
        if self.short_name == "vreduce" and self.kind not in REDUCTIONS:
            raise self.error(f"expected kind sum, max or min, got {self.kind!r}")
        for key in self.attributes:
            if key.endswith("_stride") and int_attr(self, key) < 0:
                raise self.error(f"expected {key} >= 0, got {int_attr(self, key)}")


def _make(short: str) -> type[VectorOp]:
    n = buffer_count(short)
    effects = (writes(0), *(reads(i) for i in range(1, n)))
    doc = f"``npu.{short}``: a vector instruction (module docstring)."
    return type(
        f"V{short[1:].capitalize()}Op",
        (VectorOp,),
        {"name": f"npu.{short}", "short_name": short, "effects": effects, "__doc__": doc},
    )


VECTOR_OP_CLASSES = tuple(_make(short) for short in (*BINARY, *UNARY, *SCALAR))
"""One class per vector op."""
