"""npu: where a buffer lives and which pipe runs an op.

Global memory (GM, the chip's HBM) is a plain memref: kernel arguments are
``memref<4096xf16>``. The on-chip buffers are memrefs whose memory space is a string
naming the buffer: ``"ub"`` (the unified buffer of a vector core), ``"l1"``,
``"l0a"``, ``"l0b"``, ``"l0c"``, ``"bt"`` and ``"fb"`` (beside the cube). A string
memory space is one real ``mlir-opt`` accepts for a dialect it does not know (with
``--allow-unregistered-dialect``), so npu IR goes through MLIR's own parser::

    %x_ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<2048xf16, "ub">

The pipes are those of Ascend C's ``pipe_t``: ``S`` (scalar), ``V`` (vector), ``M``
(cube), ``MTE1``, ``MTE2``, ``MTE3`` (memory transfer engines), ``FIX`` (FixPipe), and
``ALL`` for a barrier over all of them.

>>> from tinycomp.ir import parse_type
>>> space_of(parse_type('memref<8xf16, "l0a">')), space_of(parse_type("memref<8xf16>"))
('L0A', 'GM')
>>> dma_pipe("GM", "UB"), dma_pipe("L0C", "GM")
('MTE2', 'FIX')
"""

from __future__ import annotations

from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.types import MemRefType, Type

__all__ = [
    "DMA_PATHS", "ON_CHIP_SPACES", "PIPES", "SYNC_PIPES", "check_pipe", "dma_pipe", "space",
    "space_of",
]  # fmt: skip

ON_CHIP_SPACES = ("L1", "L0A", "L0B", "L0C", "BT", "FB", "UB")
"""The on-chip buffers; their memrefs name them in lower case (``"ub"``)."""

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
"""The pipes of an AI core (Ascend C's ``PIPE_S`` ... ``PIPE_FIX``)."""

SYNC_PIPES = (*PIPES, "ALL")
"""What a ``pipe_barrier`` may name: one pipe, or ``ALL``."""

DMA_PATHS = {
    ("GM", "L1"): "MTE2",
    ("GM", "L0A"): "MTE2",
    ("GM", "L0B"): "MTE2",
    ("GM", "UB"): "MTE2",
    ("L1", "L0A"): "MTE1",
    ("L1", "L0B"): "MTE1",
    ("UB", "GM"): "MTE3",
    ("L0C", "GM"): "FIX",
    ("L0C", "L1"): "FIX",
}
"""Every data path a copy may take, (source, destination) -> the pipe that moves it."""


def space(name: str) -> StringAttr:
    """The attribute ``"ub"`` for ``name`` (one of ``ON_CHIP_SPACES``).

    >>> print(space("UB"))
    "ub"
    """
    if name.upper() not in ON_CHIP_SPACES:
        raise ValueError(f"expected an on-chip space ({', '.join(ON_CHIP_SPACES)}), got {name!r}")
    return StringAttr(name.lower())


def space_of(type: Type) -> str | None:
    """``"GM"`` for a memref without a space, ``"UB"``, ``"L1"``... for one in
    a string memory space (``"ub"``...); ``None`` for anything else."""
    if not isinstance(type, MemRefType):
        return None
    if type.memory_space is None:
        return "GM"
    for name in ON_CHIP_SPACES:
        if type.memory_space == space(name):
            return name
    return None


def dma_pipe(source: str, destination: str) -> str | None:
    """The pipe that copies ``source`` to ``destination``, ``None`` for no such path."""
    return DMA_PATHS.get((source, destination))


def check_pipe(name: str, allowed: tuple[str, ...] = PIPES) -> str:
    """``name`` if it is one of ``allowed``, else a ``ValueError`` listing them.

    >>> check_pipe("MTE2")
    'MTE2'
    """
    if name not in allowed:
        raise ValueError(f"expected a pipe among {', '.join(allowed)}, got {name!r}")
    return name
