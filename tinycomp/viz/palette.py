"""Colours that mean one thing: distinct swatches per picture, and text that stays readable.

Three rules hold for every picture tinycomp draws:

1. **One colour, one meaning.** Within one picture a colour names one thing (one buffer,
   one kernel). ``swatches(n)`` gives ``n`` swatches that are all different: the
   qualitative colours first, then the same colours again with a hatching (for bars) and
   a different lightness (for boxes), so no two items ever look alike.
2. **Readable text on colour.** Text drawn on a coloured box is black or white, whichever
   contrasts more with the fill (``ink_for``). WCAG 2.1 asks for a contrast ratio of at
   least 4.5 for normal text (``contrast_ratio``); black or white always reaches it.
3. **Fixed roles stay fixed.** Inputs, constants and terminators have colours of their
   own in every graph (``tinycomp.viz.graph_style``), so the item palette leaves them out.

>>> [s.color for s in swatches(3)]
['#0072B2', '#E69F00', '#009E73']
>>> round(contrast_ratio("#000000", "#ffffff"), 1), ink_for("#0072B2"), ink_for("#F0E442")
(21.0, '#ffffff', '#000000')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "HATCHES",
    "ITEM_COLORS",
    "MIN_CONTRAST",
    "OKABE_ITO",
    "Swatch",
    "contrast_ratio",
    "ink_for",
    "mix",
    "relative_luminance",
    "swatches",
    "to_hex",
]

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
"""Okabe and Ito's colours, distinct for readers with any kind of colour blindness
(blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow)."""

ITEM_COLORS = (*OKABE_ITO, "#882255", "#44AA99", "#999933", "#332288", "#AA4499")
"""The colours for items of one picture: Okabe-Ito, then five of Paul Tol's 'muted'
scheme (wine, teal, olive, indigo, purple) for pictures with more items."""

HATCHES = ("", "//", "..", "xx", "\\\\", "++")
"""Matplotlib hatchings, one per round through ``ITEM_COLORS``."""

MIN_CONTRAST = 4.5
"""WCAG 2.1's minimum contrast ratio for normal-size text (success criterion 1.4.3)."""

BLACK, WHITE = "#000000", "#ffffff"


def to_hex(color: str) -> str:
    """Any colour Graphviz or a browser knows (``"#E69F00"``, ``"#abc"``, ``"red"``,
    ``"lightblue"``) as lower-case ``#rrggbb``.

    >>> to_hex("lightblue"), to_hex("#ABC"), to_hex("white")
    ('#add8e6', '#aabbcc', '#ffffff')
    """
    from matplotlib.colors import to_hex as matplotlib_to_hex

    if re.fullmatch(r"#[0-9a-fA-F]{3}", color):
        color = "#" + "".join(2 * digit for digit in color[1:])
    try:
        return matplotlib_to_hex(color)
    except ValueError as error:
        raise ValueError(f"expected a colour name or #rrggbb, got {color!r}") from error


def _channels(color: str) -> tuple[int, int, int]:
    """Any colour (``to_hex``) as three integers 0..255."""
    digits = to_hex(color).removeprefix("#")
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def relative_luminance(color: str) -> float:
    """WCAG 2.1's relative luminance of ``color``: 0 for black, 1 for white.

    >>> relative_luminance("#000000"), relative_luminance("#ffffff")
    (0.0, 1.0)
    """
    linear = []
    for channel in _channels(color):
        value = channel / 255
        linear.append(value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4)
    red, green, blue = linear
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2.1's contrast ratio of two colours, from 1 (the same) to 21 (black on white).

    >>> round(contrast_ratio("#ffffff", "#E69F00"), 2)  # white on orange: too faint
    2.25
    """
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)))[::-1]
    return (lighter + 0.05) / (darker + 0.05)


def ink_for(fill: str) -> str:
    """The text colour for a box filled with ``fill``: black or white, whichever contrasts
    more (always at least ``MIN_CONTRAST``).

    >>> ink_for("#dcebf5"), ink_for("#332288")
    ('#000000', '#ffffff')
    """
    return BLACK if contrast_ratio(BLACK, fill) >= contrast_ratio(WHITE, fill) else WHITE


def mix(color: str, amount: float, toward: str = WHITE) -> str:
    """``color`` moved ``amount`` (0..1) of the way to ``toward``: a tint (toward white)
    or a shade (toward black).

    >>> mix("#0072B2", 0.5), mix("#0072B2", 0.5, toward="#000000")
    ('#80b8d8', '#003959')
    """
    start, end = _channels(color), _channels(toward)
    mixed = [round(a + (b - a) * amount) for a, b in zip(start, end, strict=True)]
    return "#" + "".join(f"{channel:02x}" for channel in mixed)


@dataclass(frozen=True)
class Swatch:
    """How one item of a picture is drawn; no two swatches of ``swatches(n)`` are equal."""

    color: str
    """The item's colour: bars, borders, lines."""
    hatch: str
    """A matplotlib hatching over the colour (``""``: none), from the second round on."""
    fill: str
    """A light tint of the colour, for boxes that carry text (a graph's cluster, a node)."""
    ink: str
    """Black or white: text drawn on ``color``."""


def swatches(count: int, colors: tuple[str, ...] = ITEM_COLORS) -> list[Swatch]:
    """``count`` swatches, all different: each colour of ``colors`` once, then again with
    the next hatching and a lighter tint, round after round.

    >>> more = swatches(len(ITEM_COLORS) + 1)
    >>> more[0].color == more[-1].color, more[0].hatch, more[-1].hatch
    (True, '', '//')
    >>> more[0].fill != more[-1].fill
    True
    """
    if not colors:
        raise ValueError("swatches needs at least one colour")
    tints = (0.78, 0.9, 0.62, 0.84, 0.7, 0.95)
    found: list[Swatch] = []
    for number in range(count):
        round_, position = divmod(number, len(colors))
        color = colors[position]
        hatch = HATCHES[round_ % len(HATCHES)]
        fill = mix(color, tints[round_ % len(tints)])
        if round_ >= len(HATCHES):  # beyond every hatching: darken, so the pair stays new
            color = mix(color, 0.15 * (round_ // len(HATCHES)), toward=BLACK)
        found.append(Swatch(color, hatch, fill, ink_for(color)))
    return found
