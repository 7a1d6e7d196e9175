"""Reading the micro-kernel's assembly: its hottest loop, counted instruction by instruction.

Whether a micro-kernel can reach the FMA units' peak is visible in its inner loop:
every iteration should be ``MR * NR/lanes`` vector FMAs on full-width registers
(``zmm`` for AVX-512, ``ymm`` for AVX2), ``NR/lanes`` vector loads of B, ``MR``
broadcasts of A (``vbroadcastss``, or an FMA with an embedded broadcast operand
``(%rax){1to16}``), a few integer instructions for the addresses and the loop counter,
and no spills (no loads and stores through the stack pointer ``%rsp``).

``hot_loop`` finds that loop in x86 assembly (AT&T syntax, as LLVM prints it):

1. Split the function into lines; a line ``.LBB0_7:`` is a label.
2. A loop is a label ``L`` and a later jump back to it (``jne .LBB0_7``): the lines in
   between are its body (LLVM lays an inner loop out as one block or a few).
3. Keep the loop with the most FMAs and count its instructions (``LoopStats``). LLVM
   may unroll the loop (two or three k steps per iteration): ``LoopStats.per_fma``
   divides by the FMAs, so the ratios stay comparable.

>>> asm = '''kernel:
... .LBB0_2:
...   vbroadcastss\t(%rdi), %zmm2
...   vmovups (%rsi), %zmm3
...   vfmadd231ps %zmm3, %zmm2, %zmm0
...   vfmadd231ps 64(%rsi), %zmm2, %zmm1
...   addq $4, %rdi
...   jne .LBB0_2
...   retq'''
>>> stats = hot_loop(asm)
>>> stats.fmas, stats.fma_registers, stats.loads, stats.broadcasts, stats.spills
(2, 'zmm', 3, 1, 0)
>>> stats.per_fma("loads")
1.5
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tinycomp.codegen.errors import CodegenError

__all__ = ["LoopStats", "hot_loop"]

_LABEL = re.compile(r"^(\.L[\w$.]+):")
_JUMP = re.compile(r"^j\w+\s+(\.L[\w$.]+)")
_FMA = re.compile(r"^vf(n?)m(add|sub)\w*")
_REGISTER = re.compile(r"%([xyz]mm)\d+")


@dataclass(frozen=True)
class LoopStats:
    """Instruction counts of one loop body (one iteration, however unrolled)."""

    label: str
    """The loop's label (``.LBB0_7``)."""
    instructions: int
    """Instructions in the body, the jump included."""
    fmas: int
    """Vector FMAs (``vfmadd231ps`` and relatives)."""
    fma_registers: str
    """The register kind the FMAs use: ``zmm`` (512-bit), ``ymm`` (256), ``xmm`` (128)."""
    loads: int
    """Instructions that read memory (vector loads, broadcasts, memory operands of FMAs)."""
    broadcasts: int
    """``vbroadcastss`` instructions plus FMAs with an embedded ``{1toN}`` broadcast."""
    stores: int
    """Instructions that write memory."""
    spills: int
    """Memory accesses through the stack pointer: register spills and reloads."""
    text: str
    """The loop's lines."""

    def per_fma(self, what: str) -> float:
        """``loads``, ``broadcasts``, ``stores``, ``instructions`` per FMA."""
        return getattr(self, what) / self.fmas if self.fmas else float("inf")


def _instructions(assembly: str) -> list[str]:
    """Step 1: the stripped lines, without directives and comments."""
    lines = []
    for raw in assembly.splitlines():
        line = raw.split("#")[0].strip()
        if line and not (line.startswith(".") and not _LABEL.match(line)):
            lines.append(line)
    return lines


def _count(label: str, body: list[str]) -> LoopStats:
    """Step 3: the counts of one loop body."""
    fmas = loads = broadcasts = stores = spills = 0
    kinds: dict[str, int] = {}
    for line in body:
        mnemonic, _, operands = line.replace("\t", " ").partition(" ")
        operands = operands.strip()
        memory = "(" in operands
        writes_memory = memory and operands.rstrip().endswith(")") and "," in operands
        if _FMA.match(mnemonic):
            fmas += 1
            for kind in _REGISTER.findall(operands):
                kinds[kind] = kinds.get(kind, 0) + 1
            broadcasts += "{1to" in operands
        elif mnemonic.startswith("vbroadcast") or mnemonic.startswith("vpbroadcast"):
            broadcasts += 1
        if memory and "%rsp" in operands:
            spills += 1
        if writes_memory and not mnemonic.startswith(("lea", "cmp", "test", "prefetch")):
            stores += 1
        elif memory and not mnemonic.startswith(("lea", "prefetch")):
            loads += 1
    widest = max(kinds, key=lambda kind: kinds[kind]) if kinds else ""
    return LoopStats(
        label, len(body), fmas, widest, loads, broadcasts, stores, spills, "\n".join(body)
    )


def hot_loop(assembly: str) -> LoopStats:
    """The loop with the most FMAs in ``assembly`` (steps 1-3)."""
    lines = _instructions(assembly)
    positions = {}
    for index, line in enumerate(lines):
        label = _LABEL.match(line)
        if label:
            positions[label.group(1)] = index
    loops = []
    for index, line in enumerate(lines):  # step 2
        jump = _JUMP.match(line)
        if jump and jump.group(1) in positions and positions[jump.group(1)] < index:
            start = positions[jump.group(1)]
            body = [x for x in lines[start + 1 : index + 1] if not _LABEL.match(x)]
            loops.append(_count(jump.group(1), body))
    if not loops:
        raise CodegenError("hot_loop: found no loop (no jump back to an earlier label)")
    return max(loops, key=lambda loop: (loop.fmas, -loop.instructions))
