"""What one op does to memory: the declarations an op class writes and the effects they mean.

An op class declares its effects per operand, as MLIR's ODS does with
``Arg<AnyMemRef, "", [MemRead]>:$source``: a tuple of ``Effect``s in its ``effects``
class attribute, each naming a kind and the operand (or result) it touches::

    class CopyOp(Operation):
        name = "memref.copy"
        effects = (reads(0), writes(1))  # reads the source, writes the target

    class AllocOp(Operation):
        name = "memref.alloc"
        effects = (allocates(result=0),)

On an op, a declaration becomes ``MemoryEffect``s on the op's actual values
(``op.get_effects()``). An effect without a value is on *any* value of its resource:
``MemoryEffect("write", None)`` may write any memory. State that is not memory (an NPU's
synchronisation flags, a DMA queue, a GPU's barrier counter) is a *resource* of its own,
as in MLIR's ``SideEffects::Resource``: ``writes(resource="npu.flags")`` keeps the op in
place and in the program (it is not pure), but says nothing about any buffer.

>>> from tinycomp.ir import Block, MemRefType, f32
>>> a, b = Block([MemRefType((4,), f32)] * 2).arguments
>>> a.name_hint, b.name_hint = "src", "dst"
>>> [str(e.resolve([a, b], [])) for e in (reads(0), writes(1))]
['read %src', 'write %dst']
>>> str(writes(resource="npu.flags").resolve([], []))
'write <any npu.flags>'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tinycomp.ir.values import Value

__all__ = [
    "MEMORY",
    "Effect",
    "EffectKind",
    "MemoryEffect",
    "allocates",
    "frees",
    "reads",
    "writes",
]

EffectKind = Literal["read", "write", "allocate", "free"]
"""What an op does to a value of a resource (MLIR's ``MemRead``, ``MemWrite``,
``MemAlloc``, ``MemFree``)."""

MEMORY = "memory"
"""The default resource: the memory behind memrefs (MLIR's ``DefaultResource``)."""


@dataclass(frozen=True)
class MemoryEffect:
    """One effect of one op: ``kind`` on ``value`` (``None``: any value) of ``resource``."""

    kind: EffectKind
    """``"read"``, ``"write"``, ``"allocate"`` or ``"free"``."""
    value: Value | None
    """The memref affected, or ``None`` when the op may touch any value of the resource."""
    resource: str = MEMORY
    """``"memory"``, or the name of other state (``"npu.flags"``, ``"dma.queue"``)."""

    def __str__(self) -> str:
        if self.value is None:
            return f"{self.kind} <any {self.resource}>"
        hint = self.value.name_hint
        return f"{self.kind} %{hint}" if hint else f"{self.kind} <{self.value.type}>"


@dataclass(frozen=True)
class Effect:
    """A declared effect: ``kind`` on operand ``operand``, on result ``result``, or (both
    ``None``) on the whole ``resource``. Write them with ``reads``, ``writes``... ."""

    kind: EffectKind
    """What the op does."""
    operand: int | None = None
    """The operand whose memory is touched."""
    result: int | None = None
    """The result touched (an allocation's new buffer)."""
    resource: str = MEMORY
    """The resource touched."""

    def resolve(self, operands: Sequence[Value], results: Sequence[Value]) -> MemoryEffect:
        """The effect on an op with these operands and results (a missing operand, as in
        an op not verified yet, makes the effect one on any value: still safe)."""
        if self.operand is not None:
            value = operands[self.operand] if self.operand < len(operands) else None
        elif self.result is not None:
            value = results[self.result] if self.result < len(results) else None
        else:
            value = None
        return MemoryEffect(self.kind, value, self.resource)


def reads(operand: int | None = None, resource: str = MEMORY) -> Effect:
    """The op reads the memory of operand ``operand`` (``None``: any value of ``resource``).

    >>> reads(0)
    Effect(kind='read', operand=0, result=None, resource='memory')
    """
    return Effect("read", operand=operand, resource=resource)


def writes(operand: int | None = None, resource: str = MEMORY) -> Effect:
    """The op writes the memory of operand ``operand`` (``None``: any value of ``resource``).

    >>> writes(resource="npu.flags").resource
    'npu.flags'
    """
    return Effect("write", operand=operand, resource=resource)


def frees(operand: int) -> Effect:
    """The op frees the buffer of operand ``operand`` (``memref.dealloc``).

    >>> frees(0).kind
    'free'
    """
    return Effect("free", operand=operand)


def allocates(result: int = 0) -> Effect:
    """The op allocates the buffer it returns as result ``result`` (``memref.alloc``).

    >>> allocates().result
    0
    """
    return Effect("allocate", result=result)
