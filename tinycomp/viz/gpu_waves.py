"""Waves of blocks over the SMs: why a grid of 85 blocks can take twice as long as 84.

A GPU runs a grid ``B`` blocks per SM at a time (the occupancy), on ``S`` SMs: ``S * B``
blocks form one *wave*. ``wave_plan`` deals the blocks as the simulator does
(``tinycomp.targets.gpu_sim.waves``), and times the waves:

1. wave ``w`` holds blocks ``[w * S * B, (w + 1) * S * B)``;
2. within its wave, block ``b`` goes to SM ``b mod S``, into that SM's next free slot;
3. a wave starts when the one before it has finished: it lasts as long as its slowest
   block (one unit when no cycles are given). The last wave, the *tail*, may hold fewer
   blocks than the others and leave SMs idle while it runs.

``waves_picture`` draws the plan: SMs as rows (each split into its ``B`` slots), time
across, each block a box labelled with its id, waves separated by dashed lines, the tail
wave in orange with its idle slots outlined. Only the first few SMs are drawn (the title
says how many); the text twin has every wave.

>>> print(waves_picture("classroom", blocks_total=10, blocks_per_sm=2).text)
waves on classroom: 10 blocks, 2 SMs x 2 blocks per SM = 4 blocks per wave
3 waves: 2 full, the tail holds 2 of 4 blocks (50%); 83.3% of the block slots used
  wave  blocks  SMs busy
  0     0..3    2
  1     4..7    2
  2     8..9    2 (tail)
blocks per SM, wave by wave (all 2 SMs):
  SM  wave 0  wave 1  wave 2
  0   0, 2    4, 6    8
  1   1, 3    5, 7    9
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from tinycomp.targets.gpu_sim.preset import GpuPreset, lookup_preset
from tinycomp.targets.gpu_sim.waves import WaveSchedule
from tinycomp.targets.gpu_sim.waves import waves as deal_waves
from tinycomp.viz.bytes_chart import text_table
from tinycomp.viz.gpu_access import lane_ranges, percent
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style

__all__ = ["WavePlan", "shown_sms", "shown_waves", "wave_plan", "waves_picture", "waves_text"]

FULL_WAVES = (PALETTE[0], PALETTE[5])  # blue and sky blue, wave after wave
TAIL = PALETTE[1]  # orange
MAX_SMS = 8
MAX_SLOT_ROWS = 24
"""At most this many slot rows are drawn (SMs times blocks per SM)."""
MAX_WAVES = 10
"""Past this many waves the drawing shows the first ones and the tail."""


@dataclass(frozen=True)
class WavePlan:
    """Which SM, slot and wave every block of a grid gets (the simulator's
    ``WaveSchedule``), and how long each wave lasts."""

    schedule: WaveSchedule
    block_cycles: tuple[float, ...] | None = None

    @property
    def sm_count(self) -> int:
        return self.schedule.sm_count

    @property
    def blocks_per_sm(self) -> int:
        return self.schedule.blocks_per_sm

    @property
    def blocks_total(self) -> int:
        return self.schedule.blocks_total

    @property
    def per_wave(self) -> int:
        """Blocks in a full wave: ``S * B``."""
        return self.schedule.wave_size

    @property
    def waves(self) -> int:
        """How many waves the grid takes."""
        return self.schedule.waves

    @property
    def tail_blocks(self) -> int:
        """Blocks in the last wave (a full wave's count when it is full)."""
        return self.schedule.blocks_in_wave(self.waves - 1)

    def wave_blocks(self, wave: int) -> range:
        """The ids of the blocks of ``wave``."""
        return range(wave * self.per_wave, min((wave + 1) * self.per_wave, self.blocks_total))

    def place(self, block: int) -> tuple[int, int, int]:
        """``(wave, sm, slot)`` of ``block``.

        >>> wave_plan("classroom", blocks_total=10, blocks_per_sm=2).place(7)
        (1, 1, 1)
        """
        s = self.schedule
        return int(s.wave[block]), int(s.sm[block]), int(s.slot[block])

    def cycles(self, block: int) -> float:
        """The block's length: its cycles, or one unit."""
        return 1.0 if self.block_cycles is None else self.block_cycles[block]

    def durations(self) -> list[float]:
        """Each wave's length: its slowest block's."""
        return [max(self.cycles(b) for b in self.wave_blocks(w)) for w in range(self.waves)]

    def starts(self) -> list[float]:
        """When each wave starts (the sum of the waves before it)."""
        found, now = [], 0.0
        for length in self.durations():
            found.append(now)
            now += length
        return found

    @property
    def slot_use(self) -> float:
        """Blocks over the slots the waves offer: 1.0 when every wave is full."""
        return self.blocks_total / (self.waves * self.per_wave)


def wave_plan(
    preset: str | GpuPreset,
    blocks_total: int,
    blocks_per_sm: int,
    block_cycles: Sequence[float] | None = None,
) -> WavePlan:
    """Deal ``blocks_total`` blocks over ``preset``'s SMs, ``blocks_per_sm`` at a time.

    >>> plan = wave_plan("a6000", blocks_total=1000, blocks_per_sm=4)
    >>> plan.per_wave, plan.waves, plan.tail_blocks
    (336, 3, 328)
    """
    chip = lookup_preset(preset)
    if not 1 <= blocks_per_sm <= chip.max_blocks_per_sm:
        raise ValueError(
            f"expected blocks_per_sm from 1 to {chip.max_blocks_per_sm} (the {chip.name} cap), "
            f"got {blocks_per_sm}"
        )
    cycles = None
    if block_cycles is not None:
        cycles = tuple(float(c) for c in block_cycles)
        if len(cycles) != blocks_total or min(cycles) <= 0:
            raise ValueError(
                f"expected block_cycles to hold {blocks_total} positive numbers (one per "
                f"block), got {len(cycles)} with smallest {min(cycles, default=0)}"
            )
    return WavePlan(deal_waves(chip, blocks_total, blocks_per_sm), cycles)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _number(value: float) -> str:
    return f"{value:.4g}"


def waves_text(plan: WavePlan, chip: GpuPreset, sms: Sequence[int]) -> str:
    """The text twin of ``waves_picture`` (module docstring)."""
    lines = [
        f"waves on {chip.name}: {plan.blocks_total} blocks, {plan.sm_count} SMs x "
        f"{_plural(plan.blocks_per_sm, 'block')} per SM = {plan.per_wave} blocks per wave",
    ]
    full = plan.waves - 1 if plan.tail_blocks < plan.per_wave else plan.waves
    tail = (
        f"the tail holds {plan.tail_blocks} of {plan.per_wave} blocks "
        f"({percent(plan.tail_blocks / plan.per_wave)})"
        if full < plan.waves
        else "no partial tail"
    )
    lines.append(
        f"{plan.waves} wave{'' if plan.waves == 1 else 's'}: {full} full, {tail}; "
        f"{percent(plan.slot_use)} of the block slots used"
    )
    headers = ["wave", "blocks", "SMs busy"]
    if plan.block_cycles is not None:
        headers += ["starts", "cycles"]
        lines[-1] += f"; {_number(sum(plan.durations()))} cycles in all"
    rows = []
    starts, durations = plan.starts(), plan.durations()
    waves = shown_waves(plan)
    for number, wave in enumerate(waves):
        if number and wave != waves[number - 1] + 1:
            first, last = waves[number - 1] + 1, wave - 1
            blocks = range(first * plan.per_wave, (last + 1) * plan.per_wave)
            rows.append([f"{first}..{last}", f"{blocks.start}..{blocks.stop - 1}", "all, full"])
            rows[-1] += ["", ""] if plan.block_cycles is not None else []
        blocks = plan.wave_blocks(wave)
        busy = len({plan.place(block)[1] for block in blocks})
        tail = " (tail)" if len(blocks) < plan.per_wave else ""
        row = [str(wave), f"{blocks.start}..{blocks.stop - 1}", f"{busy}{tail}"]
        if plan.block_cycles is not None:
            row += [_number(starts[wave]), _number(durations[wave])]
        rows.append(row)
    lines += text_table(headers, rows)
    skipped = (
        ""
        if len(shown_waves(plan)) == plan.waves
        else f", waves {MAX_WAVES - 1}..{plan.waves - 2} left out"
    )
    lines.append(f"blocks per SM, wave by wave ({_which_sms(sms, plan.sm_count)}{skipped}):")
    per_sm = [[str(sm)] for sm in sms]
    for wave in waves:
        placed: dict[int, list[str]] = {sm: [] for sm in sms}
        for block in plan.wave_blocks(wave):
            sm = plan.place(block)[1]
            if sm in placed:
                placed[sm].append(str(block))
        for row, sm in enumerate(sms):
            per_sm[row].append(", ".join(placed[sm]) or "-")
    lines += text_table(["SM", *(f"wave {w}" for w in waves)], per_sm)
    return "\n".join(lines)


def shown_waves(plan: WavePlan) -> list[int]:
    """The waves drawn: all of them up to ``MAX_WAVES``, else the first ones and the tail.

    >>> shown_waves(wave_plan("classroom", 60, 1))[-3:]
    [7, 8, 29]
    """
    if plan.waves <= MAX_WAVES:
        return list(range(plan.waves))
    return [*range(MAX_WAVES - 1), plan.waves - 1]


def shown_sms(plan: WavePlan) -> list[int]:
    """The SMs drawn: all of them when few, else the first ones and the last one or two
    (where the tail wave leaves slots idle); at most ``MAX_SMS`` and ``MAX_SLOT_ROWS`` slots.

    >>> shown_sms(wave_plan("a6000", 1000, 4)), shown_sms(wave_plan("a6000", 1000, 16))
    ([0, 1, 2, 3, 82, 83], [0, 83])
    """
    count = max(2, min(MAX_SMS, MAX_SLOT_ROWS // plan.blocks_per_sm))
    if count >= plan.sm_count:
        return list(range(plan.sm_count))
    last = 1 if count <= 3 else 2
    return [*range(count - last), *range(plan.sm_count - last, plan.sm_count)]


def _which_sms(sms: Sequence[int], sm_count: int) -> str:
    """``all 2 SMs`` or ``SMs 0-3, 82-83 of 84``."""
    if len(sms) == sm_count:
        return f"all {sm_count} SM" + ("" if sm_count == 1 else "s")
    return f"SMs {lane_ranges(sms)} of {sm_count}"


def waves_picture(
    preset: str | GpuPreset,
    blocks_total: int,
    blocks_per_sm: int,
    block_cycles: Sequence[float] | None = None,
) -> Picture:
    """The waves of a grid over ``preset``'s first SMs (module docstring); with
    ``block_cycles`` (one per block) every box is as long as its block ran.

    >>> picture = waves_picture("a6000", blocks_total=85, blocks_per_sm=1)
    >>> picture.text.splitlines()[1]
    '2 waves: 1 full, the tail holds 1 of 84 blocks (1.19%); 50.6% of the block slots used'
    """
    chip = lookup_preset(preset)
    plan = wave_plan(chip, blocks_total, blocks_per_sm, block_cycles)
    sms = shown_sms(plan)
    waves = shown_waves(plan)
    durations, starts = plan.durations(), plan.starts()
    gap = max(durations)  # where skipped waves would be
    drawn_start: dict[int, float] = {}
    x = 0.0
    for number, wave in enumerate(waves):
        if number and wave != waves[number - 1] + 1:
            x += gap
        drawn_start[wave] = x
        x += durations[wave]
    right = x
    slots = plan.blocks_per_sm
    row_of = {sm: row * (slots + 0.6) for row, sm in enumerate(sms)}
    bottom_row = row_of[sms[-1]] + slots
    height = 1.75 + bottom_row * 0.26
    width_in = 11.0 * 0.84
    with house_style():
        fig = Figure(figsize=(11.0, height))
        top, bottom = 0.95 / height, 0.75 / height
        ax = fig.add_axes((0.11, bottom, 0.85, 1 - top - bottom))
        per_unit = width_in / right  # inches per unit of time
        for wave in waves:
            tail = len(plan.wave_blocks(wave)) < plan.per_wave
            color = TAIL if tail else FULL_WAVES[wave % 2]
            start, length = drawn_start[wave], durations[wave]
            pad = 0.04 * length
            filled = set()
            for block in plan.wave_blocks(wave):
                _, sm, slot = plan.place(block)
                if sm not in row_of:
                    continue
                filled.add((sm, slot))
                box = plan.cycles(block) - 2 * pad
                y = row_of[sm] + slot
                ax.add_patch(Rectangle((start + pad, y + 0.08), box, 0.84, facecolor=color,
                                       edgecolor="white", lw=0.6))  # fmt: skip
                label = str(block)
                if box * per_unit >= 0.075 * len(label) + 0.06:
                    ink = "white" if color == PALETTE[0] else "black"
                    ax.text(start + pad + box / 2, y + 0.5, label, ha="center", va="center",
                            fontsize=8, color=ink)  # fmt: skip
            for sm in sms:
                for slot in range(slots):
                    if tail and (sm, slot) not in filled:
                        corner = (start + pad, row_of[sm] + slot + 0.08)
                        ax.add_patch(Rectangle(corner, length - 2 * pad, 0.84, fill=False,
                                               ec="#999999", linestyle=":", lw=1.0))  # fmt: skip
            if wave:
                ax.axvline(start, color="#555555", linestyle="--", linewidth=1.0)
            held = _plural(len(plan.wave_blocks(wave)), "block")
            name = f"tail: {held}" if tail else f"wave {wave}"
            if length * per_unit < 0.09 * len(name):
                name = "tail" if tail else str(wave)
            ax.text(start + length / 2, -0.3, name, ha="center", va="bottom", fontsize=9)
        if len(waves) < plan.waves:
            skipped = waves[-2] + 1
            ax.text(drawn_start[waves[-1]] - gap / 2, bottom_row / 2,
                    f"waves\n{skipped}..{plan.waves - 2}\nnot\ndrawn", ha="center",
                    va="center", fontsize=9, color="#555555")  # fmt: skip
        ax.set_xlim(0, right)
        ax.set_ylim(bottom_row, -0.9)
        ax.grid(False)
        ax.set_yticks([row_of[sm] + slots / 2 for sm in sms], [f"SM {sm}" for sm in sms])
        ticks = [drawn_start[w] for w in waves] + [right]
        labels = [_number(starts[w]) for w in waves] + [_number(sum(durations))]
        ax.set_xticks(ticks, labels)
        ax.tick_params(length=0, labelsize=9)
        unit = "waves" if plan.block_cycles is None else "cycles"
        ax.set_xlabel(f"time ({unit}); each SM row holds {slots} block slot"
                      + ("" if slots == 1 else "s"), fontsize=10)  # fmt: skip
        for spine in ("left", "top", "right"):
            ax.spines[spine].set_visible(False)
        first = _which_sms(sms, plan.sm_count)
        fig.text(0.5, 1 - 0.1 / height, f"{blocks_total} blocks on {chip.name}, {slots} per "
                 f"SM at a time: {plan.waves} wave{'' if plan.waves == 1 else 's'} ({first})",
                 ha="center", va="top", fontsize=12)  # fmt: skip
        fig.text(0.5, 1 - 0.42 / height, f"{percent(plan.slot_use)} of the block slots used: "
                 "look at the idle slots of the tail wave", ha="center", va="top", fontsize=11,
                 fontweight="bold")  # fmt: skip
        handles = [
            Patch(facecolor=FULL_WAVES[0], label="block of a full wave"),
            Patch(facecolor=TAIL, label="block of the tail wave"),
            Patch(fill=False, edgecolor="#999999", linestyle=":", label="idle slot"),
        ]
        fig.legend(handles=handles, loc="lower center", ncols=3, fontsize=10)
    return figure_to_picture(fig, waves_text(plan, chip, sms))
