"""gpu: memory address spaces, ``#gpu.address_space<global|workgroup|private>``.

A memref's memory space says where its buffer lives: ``workgroup`` is shared by the
threads of a block (CUDA ``__shared__``, NVPTX address space 3), ``private`` belongs to
one thread (CUDA local memory, address space 5 on AMD, registers or local on NVIDIA),
``global`` is device memory visible to all (address space 1). A memref without a space is
global too. The type parser keeps the attribute as written::

    memref<32x32xf32, #gpu.address_space<workgroup>>

>>> from tinycomp.ir import f32
>>> from tinycomp.ir.types import MemRefType
>>> tile = MemRefType((32, 32), f32, memory_space=address_space("workgroup"))
>>> str(tile), address_space_of(tile)
('memref<32x32xf32, #gpu.address_space<workgroup>>', 'workgroup')
"""

from __future__ import annotations

from tinycomp.ir.attributes import OpaqueAttr
from tinycomp.ir.types import MemRefType, Type

__all__ = ["ADDRESS_SPACES", "address_space", "address_space_of"]

ADDRESS_SPACES = ("global", "workgroup", "private")
"""The spaces of ``#gpu.address_space<...>``."""


def address_space(space: str) -> OpaqueAttr:
    """The attribute ``#gpu.address_space<space>`` (``space`` one of ``ADDRESS_SPACES``).

    >>> print(address_space("private"))
    #gpu.address_space<private>
    """
    if space not in ADDRESS_SPACES:
        raise ValueError(f"expected an address space ({', '.join(ADDRESS_SPACES)}), got {space!r}")
    return OpaqueAttr(f"#gpu.address_space<{space}>")


def address_space_of(type: Type) -> str | None:
    """Where a memref of ``type`` lives: ``"global"`` (also without a space),
    ``"workgroup"``, ``"private"``; ``None`` for another space or a non-memref.

    >>> from tinycomp.ir import parse_type
    >>> plain, numbered = parse_type("memref<4xf32>"), parse_type("memref<4xf32, 3>")
    >>> address_space_of(plain), address_space_of(numbered)
    ('global', None)
    """
    if not isinstance(type, MemRefType):
        return None
    space = type.memory_space
    if space is None:
        return "global"
    for name in ADDRESS_SPACES:
        if space == address_space(name):
            return name
    return None
