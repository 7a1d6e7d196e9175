"""npu: ``npu.mmad``, the cube's matrix multiply-accumulate on 16x16x16 fractals.

``C[m, n] (+)= A[m, k] @ B[k, n]`` with ``A`` in L0A and ``B`` in L0B (f16 or bf16, in
the NZ fractal layout: ``A`` as ``[k1, m1 * 16, 16]``, ``B`` as ``[n1, k1 * 16, 16]``)
and ``C`` in L0C (f32, NZ with 16x16 fractals: ``[n1, m1 * 16, 16]``). ``m``, ``k`` and
``n`` are the logical sizes; each is padded to a multiple of 16 in the buffers. The
cube does one 16x16x16 fractal product (4096 multiply-adds) a cycle, so an ``mmad``
costs ``ceil(m/16) * ceil(k/16) * ceil(n/16)`` cycles on pipe ``M`` plus a setup.
``accumulate`` adds to ``C`` (Ascend C's ``cmatrixInitVal = false``); without it ``C``
is overwritten.

On the chip, L0A holds its fractals in "zZ" order and L0B in "nZ" (``LoadData``
converts from L1's NZ); tinycomp keeps NZ in both, which moves the same bytes and
costs the same cycles.

>>> from tinycomp.dialects.npu.spaces import space
>>> from tinycomp.ir import Block, MemRefType, f16, f32, index
>>> c, a, b, o = Block([MemRefType((4096,), f32, memory_space=space("L0C")),
...     MemRefType((4096,), f16, memory_space=space("L0A")),
...     MemRefType((4096,), f16, memory_space=space("L0B")), index]).arguments
>>> mmad = MmadOp.build(c, a, b, [o, o, o], m=64, k=64, n=64)
>>> mmad.fractals, mmad.execution_pipe()
(64, 'M')
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.npu.base import NpuOp, bool_attr, check_index, check_space, int_attr
from tinycomp.ir.attributes import BoolAttr, IntegerAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.types import bf16, f16, f32, i64
from tinycomp.ir.values import Value

__all__ = ["MmadOp"]

FRACTAL = 16


def _fractals(size: int) -> int:
    return -(-size // FRACTAL)


class MmadOp(NpuOp):
    """``"npu.mmad"(%c, %a, %b, %c_off, %a_off, %b_off) {m, k, n[, accumulate]}``."""

    name = "npu.mmad"
    num_operands = 6
    num_results = 0
    pipe = "M"
    effects = (reads(0), writes(0), reads(1), reads(2))

    @classmethod
    def build(
        cls,
        c: Value,
        a: Value,
        b: Value,
        offsets: Sequence[Value],
        *,
        m: int,
        k: int,
        n: int,
        accumulate: bool = False,
    ) -> MmadOp:
        """``c (+)= a @ b`` for an ``m x k`` by ``k x n`` product."""
        attributes = {name: IntegerAttr(v, i64) for name, v in (("m", m), ("k", k), ("n", n))}
        if accumulate:
            attributes["accumulate"] = BoolAttr(True)
        return cls([c, a, b, *offsets], [], attributes)

    @property
    def sizes(self) -> tuple[int, int, int]:
        """``(m, k, n)``."""
        return (int_attr(self, "m"), int_attr(self, "k"), int_attr(self, "n"))

    @property
    def accumulate(self) -> bool:
        return bool_attr(self, "accumulate")

    @property
    def fractals(self) -> int:
        """16x16x16 products: the cycles of the multiply."""
        m, k, n = self.sizes
        return _fractals(m) * _fractals(k) * _fractals(n)

    def verify_op(self) -> None:
        c, a, b = self.operands[:3]
        check_space(self, c, "C", ("L0C",))
        check_space(self, a, "A", ("L0A",))
        check_space(self, b, "B", ("L0B",))
        for value in self.operands[3:]:
            check_index(self, value, "an element offset")
        if c.type.element_type != f32:
            raise self.error(f"expected C to accumulate in f32, got {c.type.element_type}")
        if a.type.element_type not in (f16, bf16) or b.type.element_type != a.type.element_type:
            raise self.error(
                "expected A and B both f16 or both bf16, got "
                f"{a.type.element_type} and {b.type.element_type}"
            )
        if min(self.sizes) < 1:
            raise self.error(f"expected m, k and n >= 1, got {self.sizes}")
