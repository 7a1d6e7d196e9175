"""One warp's shared-memory access drawn against the 32 banks: who waits for whom.

Shared memory is 32 *banks* of 4-byte words; word ``w`` lives in bank ``w mod 32``, and
a bank serves one word per round (a *wavefront*). ``banks_picture(event)`` draws the
banks as 32 columns and, down each column, one cell per distinct word that bank is asked
for, holding the lanes that asked for it. The first row is served in the first
wavefront (blue); every row below it is a further wavefront the whole warp waits for
(vermillion): the number of rows is the *conflict degree*. Lanes asking for the same
word share one cell, drawn hatched: a *broadcast*, which costs nothing extra.

The text twin lists, per bank asked, its words (one per wavefront) with their lanes.

>>> from tinycomp.viz.gpu_access import warp_access
>>> event = warp_access([8 * lane for lane in range(32)], 4, space="shared", array="%t")
>>> print("\\n".join(banks_picture(event).text.splitlines()[:5]))
shared load of %t (memref.load): 32 active lanes, 4 bytes each
conflict degree 2: 2 wavefronts (ideal 1)
  bank  wavefront  word  lanes
  0     1          0     0
        2          32    16
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from tinycomp.targets.gpu_sim.trace import TraceEvent
from tinycomp.viz.bytes_chart import text_table
from tinycomp.viz.gpu_access import BankUsage, bank_usage, lane_ranges
from tinycomp.viz.gpu_sectors import describe_access
from tinycomp.viz.palette import ink_for
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style

__all__ = ["banks_picture", "banks_text"]

FIRST = PALETTE[0]  # blue: served in the first wavefront
EXTRA = PALETTE[3]  # vermillion: a further wavefront, a bank conflict
BROADCAST_HATCH = "///"


def banks_text(event: TraceEvent, usage: BankUsage | None = None) -> str:
    """The text twin of ``banks_picture`` (module docstring)."""
    usage = usage or bank_usage(event)
    heading = (
        f"{describe_access(event)}: {event.active_lanes} active lanes, "
        f"{event.element_bytes} bytes each"
    )
    rows = []
    for bank, words in usage.banks.items():
        for wavefront, (word, lanes) in enumerate(words.items(), start=1):
            shared = " (broadcast)" if len(lanes) > 1 else ""
            first = str(bank) if wavefront == 1 else ""
            rows.append([first, str(wavefront), str(word), lane_ranges(lanes) + shared])
    lines = [heading, usage.caption]
    headers = ["bank", "wavefront", "word", "lanes"]
    lines += text_table(headers, rows) if rows else ["  no lane active"]
    idle = [bank for bank in range(usage.bank_count) if bank not in usage.banks]
    if rows and idle:
        lines.append(f"  banks not asked: {lane_ranges(idle)}")
    return "\n".join(lines)


def _cell_label(lanes: tuple[int, ...]) -> str:
    """The lanes as written in a cell: ``5``, ``0-31``, or ``7 lanes`` when too long."""
    text = lane_ranges(lanes)
    return text if len(text) <= 5 else f"{len(lanes)} ln"


def banks_picture(event: TraceEvent, bank_count: int = 32, bank_width: int = 4) -> Picture:
    """Banks against lanes for one shared request (module docstring).

    >>> from tinycomp.viz.gpu_access import warp_access
    >>> same_word = warp_access([0] * 32, 4, space="shared")
    >>> banks_picture(same_word).text.splitlines()[1]
    'conflict degree 1: 1 wavefront (ideal 1); 1 broadcast'
    """
    usage = bank_usage(event, bank_count, bank_width)
    rows = max(usage.degree, 1)
    row_height = 0.42 if rows <= 4 else max(0.2, min(0.32, 6.4 / rows))
    height = 1.9 + rows * row_height
    with house_style():
        fig = Figure(figsize=(11.0, height))
        top, bottom = 1.0 / height, 0.72 / height
        ax = fig.add_axes((0.07, bottom, 0.91, 1 - top - bottom))
        for bank in range(bank_count):
            ax.add_patch(Rectangle((bank, 0), 1, rows, facecolor="#f4f4f4" if bank % 2 else
                                   "#ebebeb", edgecolor="none"))  # fmt: skip
        for bank, words in usage.banks.items():
            for row, lanes in enumerate(words.values()):
                fill = FIRST if row == 0 else EXTRA
                shared = len(lanes) > 1
                ax.add_patch(Rectangle((bank + 0.05, row + 0.06), 0.9, 0.88, facecolor=fill,
                                       edgecolor="black" if shared else "white",
                                       hatch=BROADCAST_HATCH if shared else None,
                                       lw=1.2 if shared else 0.5))  # fmt: skip
                ax.text(bank + 0.5, row + 0.5, _cell_label(lanes), ha="center", va="center",
                        fontsize=8, color=ink_for(fill),
                        bbox={"boxstyle": "square,pad=0.05", "color": fill, "lw": 0}
                        if shared else None)  # fmt: skip
        ax.set_xlim(0, bank_count)
        ax.set_ylim(rows, 0)  # the first wavefront on top
        ax.grid(False)
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.set_xticks([b + 0.5 for b in range(bank_count)], [str(b) for b in range(bank_count)])
        ax.tick_params(length=0, labelsize=9)
        step = 1 if rows <= 16 else 4
        ticks = [r for r in range(rows) if r % step == 0 or r == rows - 1]
        ax.set_yticks([r + 0.5 for r in ticks], [str(r + 1) for r in ticks])
        ax.set_xlabel("bank (word address mod 32)", fontsize=10)
        ax.set_ylabel("wavefront", fontsize=10)
        for spine in ax.spines.values():
            spine.set_visible(False)
        fig.text(0.5, 1 - 0.1 / height, f"{describe_access(event)}: which bank serves each "
                 "lane?", ha="center", va="top", fontsize=12)  # fmt: skip
        fig.text(0.5, 1 - 0.38 / height, usage.caption, ha="center", va="top", fontsize=12,
                 fontweight="bold")  # fmt: skip
        handles = [
            Patch(facecolor=FIRST, edgecolor="white", label="first wavefront"),
            Patch(facecolor=EXTRA, edgecolor="white", label="another wavefront (conflict)"),
            Patch(facecolor=FIRST, edgecolor="black", hatch=BROADCAST_HATCH,
                  label="one word, several lanes (broadcast)"),
        ]  # fmt: skip
        key = 'numbers: the lanes asking for that word ("5 ln": five lanes)'
        fig.legend(handles=handles, loc="lower center", ncols=3, fontsize=10, title=key,
                   title_fontsize=9)  # fmt: skip
    return figure_to_picture(fig, banks_text(event, usage))
