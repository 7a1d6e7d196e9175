"""Hazards: two pipes (or two cores) touching the same bytes with nothing ordering them.

On an AI core every pipe runs on its own; only a flag (or a barrier, or the order of
one pipe's own queue) makes one instruction wait for another. So a vector op that reads
UB bytes a DMA is still writing, with no ``set_flag`` / ``wait_flag`` between them,
reads whatever the DMA has got to, and the program is wrong though it may pass a test.

The check is the happens-before relation of race detectors (vector clocks, as in
ThreadSanitizer), over *agents*, one per pipe of each core:

1. each agent keeps a clock: how many instructions of every agent are known to have
   finished before its own next one starts;
2. an instruction ticks its agent's own entry; what it inherits: its pipe's earlier
   instructions, the scalar unit's clock when it was dispatched, the clock a
   ``set_flag`` (or a cross-core set) carried to the ``wait_flag`` its pipe passed;
3. every access is kept with its agent and tick; a new access conflicts with a kept
   one when they overlap, one of them writes, and the kept tick is not in the new
   instruction's clock;
4. a kept access is dropped once a later access of the same bytes that follows it
   (and writes, or both read) makes it redundant, so the record stays short; the kept
   accesses are filed by the 4 KiB pages they span, and a check reads only its own.

>>> from tinycomp.targets.npu_sim.instruction import Access
>>> log = HazardLog()
>>> write = Access(("AIV 0.0", "UB"), 0, 256, 1, 256, True)
>>> log.find(write, ("AIV 0.0", "MTE2"), {("AIV 0.0", "MTE2"): 1}) is None
True
>>> log.keep(write, ("AIV 0.0", "MTE2"), 1, "the copy")
>>> read = Access(("AIV 0.0", "UB"), 0, 128, 1, 128, False)
>>> log.find(read, ("AIV 0.0", "V"), {("AIV 0.0", "V"): 1}).owner   # no flag: a hazard
'the copy'
>>> log.find(read, ("AIV 0.0", "V"), {("AIV 0.0", "MTE2"): 1}) is None   # after a wait
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinycomp.targets.npu_sim.errors import NpuSanitizerError, op_text, sanitizer_error
from tinycomp.targets.npu_sim.instruction import Access, Instruction, overlaps

__all__ = ["HazardLog", "Kept", "hazard_error"]

PAGE = 4096
"""Bytes of the pages the kept accesses are filed in."""
Agent = tuple[str, str]
Clock = dict[Agent, int]


@dataclass
class Kept:
    """One access kept for later checks."""

    access: Access
    agent: Agent
    tick: int
    owner: Any
    """What made it (the scheduler keeps its ``Instruction``)."""


def _contiguous(access: Access) -> bool:
    return access.count == 1 or access.stride == access.length


class HazardLog:
    """The kept accesses of every region (module docstring), filed in pages of
    ``PAGE`` bytes by their hull, so a check looks only at the accesses near it."""

    def __init__(self) -> None:
        self.pages: dict[tuple[str, ...], dict[int, list[Kept]]] = {}

    def find(self, access: Access, agent: Agent, clock: Clock) -> Kept | None:
        """A kept access ``access`` (by ``agent``, whose clock is ``clock``) conflicts
        with, or ``None``; drops the kept accesses it makes redundant (step 4)."""
        pages = self.pages.get(access.region)
        if not pages:
            return None
        low, high = access.hull
        covers = _contiguous(access)
        conflict: Kept | None = None
        redundant: set[int] = set()
        seen: set[int] = set()
        for page in range(low // PAGE, (high - 1) // PAGE + 1):
            for entry in pages.get(page, ()):
                if id(entry) in seen:
                    continue
                seen.add(id(entry))
                entry_low, entry_high = entry.access.hull
                if entry_high <= low or high <= entry_low:
                    continue
                ordered = entry.agent == agent or entry.tick <= clock.get(entry.agent, 0)
                writes = entry.access.write or access.write
                if not ordered and writes and conflict is None and overlaps(entry.access, access):
                    conflict = entry
                if (
                    ordered and covers and low <= entry_low and entry_high <= high
                    and (access.write or not entry.access.write)
                ):  # fmt: skip
                    redundant.add(id(entry))
        if redundant:
            for page in range(low // PAGE, (high - 1) // PAGE + 1):
                if page in pages:
                    pages[page] = [e for e in pages[page] if id(e) not in redundant]
        return conflict

    def keep(self, access: Access, agent: Agent, tick: int, owner: Any) -> None:
        """Remember ``access`` for the checks of later instructions."""
        entry = Kept(access, agent, tick, owner)
        pages = self.pages.setdefault(access.region, {})
        low, high = access.hull
        for page in range(low // PAGE, (high - 1) // PAGE + 1):
            pages.setdefault(page, []).append(entry)


def hazard_error(
    instruction: Instruction, agent: tuple[str, str], earlier: Instruction,
    earlier_agent: tuple[str, str], access, *, swapped: bool = False,
) -> NpuSanitizerError:  # fmt: skip
    """The message of a hazard: both ops, their pipes, the bytes, the missing flag (set
    after the op that comes first in the program, waited before the other: ``swapped``
    when that is ``instruction``, though ``earlier`` started first)."""
    core, pipe = agent
    other_core, other_pipe = earlier_agent
    low, high = access.hull
    where, name = access.region
    region = f"GM array {name}" if where == "GM" else f"{name} of {where}"
    verb = "writes" if access.write else "reads"
    other_verb = "writes" if any(a.write for a in earlier.accesses if a.region == access.region) \
        else "reads"  # fmt: skip
    if core == other_core:
        first, second = (instruction, earlier) if swapped else (earlier, instruction)
        src, dst = (pipe, other_pipe) if swapped else (other_pipe, pipe)
        fix = (
            f"put set_flag {src}->{dst} after {op_text(first.op)} and wait_flag "
            f"{src}->{dst} before {op_text(second.op)}"
        )
    else:
        fix = (
            f"{other_core} must cross_core_set a flag after {op_text(earlier.op)} and "
            f"{core} cross_core_wait on it before {op_text(instruction.op)}"
        )
    return sanitizer_error(
        "hazard", instruction.op, core,
        f"{instruction.label} on pipe {pipe} {verb} {region} bytes [{low}, {high}) that "
        f"{op_text(earlier.op)} ({earlier.label} on pipe {other_pipe}"
        f"{'' if core == other_core else ' of ' + other_core}) {other_verb}, and nothing "
        f"orders the two: {fix}",
    )  # fmt: skip
