"""Occupancy, drawn and explored: which of four limits decides how many blocks an SM holds.

An SM keeps as many blocks resident as the scarcest of four resources allows (the rule is
``tinycomp.targets.gpu_sim.occupancy``): its registers, its shared memory, its warp
slots, and a hard cap on blocks. ``occupancy_picture(occ, preset)`` draws one answer:

1. on the left, one bar per limit: the blocks that resource alone would allow, the
   binding one(s) in vermillion, a dashed line at the blocks actually resident;
2. on the right, one SM's warp slots (a row per warp scheduler), each resident block's
   warps in its own colour and numbered, the empty slots grey: occupancy is the filled
   fraction.

``occupancy_explorer`` puts sliders for threads per block, registers per thread and
shared memory per block over the same drawing, with the limits also as a table; the
label, the table and the picture change together.

>>> from tinycomp.targets.gpu_sim.occupancy import occupancy
>>> from tinycomp.targets.gpu_sim.preset import lookup_preset
>>> a6000 = lookup_preset("a6000")
>>> print(occupancy_picture(occupancy(a6000, 256, 32, 0), a6000).text)
a6000: 256 threads, 32 registers, 0 B shared per block
limit          blocks/SM
warps                  6  <- binds
blocks                16
registers              8
shared memory        100
resident: 6 blocks, 48 warps, occupancy 100%, carve-out 8 KB
warp slots: 48 of 48 filled by 6 blocks of 8 warps
"""

from __future__ import annotations

import html

import ipywidgets
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from tinycomp.targets.gpu_sim.occupancy import (
    LIMIT_ORDER,
    Occupancy,
    OccupancyError,
    occupancy,
)
from tinycomp.targets.gpu_sim.preset import GpuPreset, lookup_preset
from tinycomp.viz.bytes_chart import format_bytes
from tinycomp.viz.gpu_access import percent
from tinycomp.viz.palette import ITEM_COLORS, swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style
from tinycomp.viz.widgets import Explorer

__all__ = ["occupancy_explorer", "occupancy_picture", "occupancy_table_html"]

FREE = PALETTE[0]  # blue: a limit that leaves room
BINDS = PALETTE[3]  # vermillion: the limit that decides
EMPTY = "#eeeeee"
BLOCK_COLORS = tuple(c for c in ITEM_COLORS if c != BINDS)
"""The blocks' colours in the warp slots: every item colour but the binding limit's."""
TABLE_STYLE = "border-collapse: collapse; font-size: 13px; margin: 4px 0"
CELL_STYLE = "padding: 2px 10px; border-bottom: 1px solid #dddddd; text-align: right"


def _limit_label(name: str, occ: Occupancy, chip: GpuPreset) -> str:
    """A limit's bar label with the figure it comes from."""
    if name == "warps":
        return f"warps\n({occ.warps_per_block} per block, {chip.max_warps_per_sm} per SM)"
    if name == "blocks":
        return f"blocks\n(cap {chip.max_blocks_per_sm} per SM)"
    if name == "registers":
        return f"registers\n({occ.registers_per_thread} per thread)"
    return f"shared memory\n({format_bytes(occ.shared_bytes_per_block)} per block)"


def occupancy_text(occ: Occupancy, chip: GpuPreset) -> str:
    """The text twin: the occupancy table, then the warp slots."""
    slots = (
        f"warp slots: {occ.warps_per_sm} of {chip.max_warps_per_sm} filled by "
        f"{occ.blocks_per_sm} block{'' if occ.blocks_per_sm == 1 else 's'} of "
        f"{occ.warps_per_block} warp{'' if occ.warps_per_block == 1 else 's'}"
    )
    return f"{occ}\n{slots}"


def occupancy_picture(occ: Occupancy, preset: str | GpuPreset) -> Picture:
    """The four limits and one SM's warp slots for ``occ`` (module docstring).

    >>> from tinycomp.targets.gpu_sim.occupancy import occupancy
    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> a100 = lookup_preset("a100")
    >>> occupancy_picture(occupancy(a100, 256, 64, 0), a100).text.splitlines()[-2]
    'resident: 4 blocks, 32 warps, occupancy 50%, carve-out 8 KB'
    """
    chip = lookup_preset(preset)
    with house_style():
        fig = Figure(figsize=(11.0, 4.6))
        bars = fig.add_axes((0.2, 0.16, 0.3, 0.62))
        slots = fig.add_axes((0.6, 0.16, 0.38, 0.62))
        _draw_limits(bars, occ, chip)
        _draw_slots(slots, occ, chip)
        shared = format_bytes(occ.shared_bytes_per_block)
        fig.text(0.5, 0.97, f"{chip.name}: {occ.threads_per_block} threads x "
                 f"{occ.registers_per_thread} registers, {shared} shared per block: which "
                 "limit decides?", ha="center", va="top", fontsize=12)  # fmt: skip
        fig.text(0.5, 0.9, f"{occ.blocks_per_sm} blocks per SM, occupancy "
                 f"{percent(occ.occupancy)}, bound by {' and '.join(occ.bound_by)}",
                 ha="center", va="top", fontsize=12, fontweight="bold")  # fmt: skip
    return figure_to_picture(fig, occupancy_text(occ, chip))


def _draw_limits(ax, occ: Occupancy, chip: GpuPreset) -> None:
    """Step 1: a bar per limit, clipped at the right edge when far beyond the others."""
    scale = max(chip.max_blocks_per_sm, occ.blocks_per_sm) * 1.45
    names = list(LIMIT_ORDER)
    for row, name in enumerate(names):
        value = occ.limits[name]
        if value is None:
            ax.text(0.02 * scale, row, "no limit (not used)", va="center", fontsize=9,
                    color="#444444")  # fmt: skip
            continue
        shown = min(value, scale * 0.72)
        color = BINDS if name in occ.bound_by else FREE
        ax.barh(row, shown, height=0.6, color=color)
        more = " (off the scale)" if shown < value else ""
        ax.text(shown + 0.01 * scale, row, f"{value}{more}", va="center", fontsize=9)
    ax.axvline(occ.blocks_per_sm, color="black", linestyle="--", linewidth=1.2)
    ax.text(occ.blocks_per_sm, len(names) - 0.45, f" resident: {occ.blocks_per_sm}",
            fontsize=9, va="bottom")  # fmt: skip
    ax.set_yticks(range(len(names)), [_limit_label(n, occ, chip) for n in names])
    ax.set_ylim(len(names) - 0.2, -0.6)
    ax.set_xlim(0, scale)
    ax.tick_params(labelsize=9)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("blocks per SM this limit allows", fontsize=10)


def _draw_slots(ax, occ: Occupancy, chip: GpuPreset) -> None:
    """Step 2: the SM's warp slots, a row per scheduler, filled block by block."""
    rows = chip.schedulers_per_sm
    columns = -(-chip.max_warps_per_sm // rows)
    colors = swatches(occ.blocks_per_sm, BLOCK_COLORS)
    for slot in range(chip.max_warps_per_sm):
        row, column = slot % rows, slot // rows
        block = slot // occ.warps_per_block if slot < occ.warps_per_sm else None
        fill = EMPTY if block is None else colors[block].color
        hatch = None if block is None else colors[block].hatch or None
        ax.add_patch(Rectangle((column + 0.05, row + 0.08), 0.9, 0.84, facecolor=fill,
                               edgecolor="white", hatch=hatch, lw=0.5))  # fmt: skip
        if block is not None and columns <= 24:
            box = {"boxstyle": "square,pad=0.05", "color": fill, "lw": 0} if hatch else None
            ax.text(column + 0.5, row + 0.5, str(block), ha="center", va="center", fontsize=8,
                    color=colors[block].ink, bbox=box)  # fmt: skip
    ax.set_xlim(0, columns)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xticks([])
    ax.set_yticks([r + 0.5 for r in range(rows)], [f"scheduler {r}" for r in range(rows)])
    ax.tick_params(length=0, labelsize=9)
    ax.set_title(f"one SM's {chip.max_warps_per_sm} warp slots: {occ.warps_per_sm} filled "
                 "(number: the block)", fontsize=10)  # fmt: skip


def occupancy_table_html(occ: Occupancy) -> str:
    """The limits as an HTML table, the binding ones in bold (for the explorer).

    >>> from tinycomp.targets.gpu_sim.occupancy import occupancy
    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> "<b>6</b>" in occupancy_table_html(occupancy(lookup_preset("a6000"), 256, 32, 0))
    True
    """
    rows = []
    for name in LIMIT_ORDER:
        value = occ.limits[name]
        shown = "no limit" if value is None else str(value)
        if name in occ.bound_by:
            shown, name = f"<b>{shown}</b>", f"<b>{html.escape(name)} (binds)</b>"
        rows.append(f'<tr><td style="{CELL_STYLE}; text-align: left">{name}</td>'
                    f'<td style="{CELL_STYLE}">{shown}</td></tr>')  # fmt: skip
    head = (
        f'<tr><th style="{CELL_STYLE}; text-align: left">limit</th>'
        f'<th style="{CELL_STYLE}">blocks per SM</th></tr>'
    )
    return f'<table style="{TABLE_STYLE}">{head}{"".join(rows)}</table>'


def _check_start(name: str, value: int, low: int, high: int, step: int) -> None:
    if not (low <= value <= high and (value - low) % step == 0):
        raise ValueError(
            f"occupancy_explorer: expected {name} from {low} to {high} in steps of {step}, "
            f"got {value}"
        )


def occupancy_explorer(
    preset: str | GpuPreset = "a6000",
    threads: int = 256,
    registers: int = 32,
    shared_bytes: int = 0,
) -> Explorer:
    """Sliders for threads per block (32 to the preset's maximum, in steps of 32),
    registers per thread (16 to 255) and shared memory per block (0 to the maximum, in
    steps of 1 KB) over ``occupancy_picture`` and a table of the limits.

    >>> explorer = occupancy_explorer("a6000", threads=256, registers=32)
    >>> explorer.set(registers=128)
    >>> explorer.label
    '2 blocks per SM, 16 of 48 warps: occupancy 33.3%, bound by registers'
    """
    chip = lookup_preset(preset)
    most_threads = chip.max_threads_per_block // 32 * 32
    most_shared = chip.max_shared_per_block // 1024 * 1024
    _check_start("threads", threads, 32, most_threads, 32)
    _check_start("registers", registers, 16, chip.max_registers_per_thread, 1)
    _check_start("shared_bytes", shared_bytes, 0, most_shared, 1024)
    controls = {
        "threads": ipywidgets.IntSlider(threads, 32, most_threads, 32,
                                        description="threads/block"),
        "registers": ipywidgets.IntSlider(registers, 16, chip.max_registers_per_thread, 1,
                                          description="registers/thread"),
        "shared_bytes": ipywidgets.IntSlider(shared_bytes, 0, most_shared, 1024,
                                             description="shared B/block"),
    }  # fmt: skip
    style = {"description_width": "120px"}
    for control in controls.values():
        control.style = style
    table = ipywidgets.HTML()
    table.add_class("tinycomp-occupancy-table")

    def draw(threads: int, registers: int, shared_bytes: int) -> tuple[Picture, str]:
        try:
            occ = occupancy(chip, threads, registers, shared_bytes)
        except OccupancyError as error:
            table.value = ""
            return Picture.from_text(f"{chip.name}: cannot run: {error}"), f"cannot run: {error}"
        table.value = occupancy_table_html(occ)
        blocks = f"{occ.blocks_per_sm} block{'' if occ.blocks_per_sm == 1 else 's'}"
        label = (
            f"{blocks} per SM, {occ.warps_per_sm} of {chip.max_warps_per_sm} warps: "
            f"occupancy {percent(occ.occupancy)}, bound by {' and '.join(occ.bound_by)}"
        )
        return occupancy_picture(occ, chip), label

    explorer = Explorer(draw, controls, caption=f"occupancy on {chip.name}")
    parts = list(explorer.widget.children)
    parts.insert(len(parts) - 2, table)  # the table between the label and the picture
    explorer.widget.children = tuple(parts)
    return explorer
