"""SVG to PNG: the raster copy of a picture, for places that do not show SVG.

JupyterLab shows a notebook's saved SVG only once the notebook is trusted (a cloned
notebook is not), and some static viewers show no SVG at all; both show a PNG. So every
:class:`~tinycomp.viz.Picture` also offers a PNG, drawn here with resvg (through the
``resvg-py`` wheel: no system library needed).

1. Read the drawing's size in CSS pixels from the ``<svg>`` element (``width`` and
   ``height`` in px, pt, in, cm or mm, else its ``viewBox``).
2. Choose the zoom: ``scale`` (1 by default: one PNG pixel per CSS pixel), lowered so
   that the PNG has at most ``max_pixels`` pixels.
3. Render with fonts that always exist: the machine's own plus the DejaVu fonts that
   matplotlib ships, each generic family (serif, sans-serif, monospace) set to the best
   font found here (Arial or Helvetica metrics first, as Graphviz lays text out with
   them; DejaVu last). A family without a font would otherwise drop the text silently.
4. Return the PNG with the drawing's size in CSS pixels, or ``None`` when resvg is
   missing or cannot draw the SVG: the picture then simply has no PNG, and nothing fails.

>>> svg = '<svg xmlns="http://www.w3.org/2000/svg" width="30pt" height="15pt"><rect/></svg>'
>>> raster = svg_to_png(svg)
>>> raster.png[:4], (raster.width, raster.height)
(b'\\x89PNG', (40, 20))
"""

from __future__ import annotations

import importlib.util
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["MAX_PIXELS", "SCALE", "Raster", "bundled_font_folder", "natural_size", "svg_to_png"]

SCALE = 1.0
"""PNG pixels per CSS pixel. A notebook shows a PNG at its pixel size (no size is stored
with it), so 1 keeps it as large as the SVG; the PNG is only the stand-in for the SVG."""
MAX_PIXELS = 2_000_000
"""The most pixels one PNG may have; a bigger drawing is rendered at a lower zoom."""

_UNITS = {"": 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54}
_UNITS["mm"] = 96 / 25.4
_LENGTH = re.compile(r"\s*([0-9.]+(?:e[-+]?\d+)?)\s*([a-z]*)\s*$")
_SVG_TAG = re.compile(r"<svg\b[^>]*>", re.DOTALL)
_GENERIC_FONTS = {  # resvg-py's argument for a generic family -> the fonts to use, best first
    "serif_family": ("Times New Roman", "Times", "Liberation Serif", "DejaVu Serif"),
    "sans_serif_family": ("Arial", "Helvetica", "Liberation Sans", "DejaVu Sans"),
    "monospace_family": ("Courier New", "Menlo", "Consolas", "Liberation Mono", "DejaVu Sans Mono"),
}


@dataclass(frozen=True)
class Raster:
    """A PNG, and the size of the drawing in CSS pixels (the PNG's pixels over the zoom).

    >>> Raster(png=b"...", width=40, height=20).width
    40
    """

    png: bytes
    width: int
    height: int


def natural_size(svg: str) -> tuple[float, float] | None:
    """The size of an SVG drawing in CSS pixels (step 1), or ``None`` if it has none.

    >>> natural_size('<svg width="72pt" height="36pt">')
    (96.0, 48.0)
    >>> natural_size('<svg viewBox="0 0 300 100">')
    (300.0, 100.0)
    """
    tag = _SVG_TAG.search(svg)
    if tag is None:
        return None
    width, height = _attribute(tag.group(), "width"), _attribute(tag.group(), "height")
    size = (_pixels(width), _pixels(height))
    if size[0] is not None and size[1] is not None:
        return size
    view_box = _attribute(tag.group(), "viewBox")
    numbers = re.split(r"[\s,]+", view_box.strip()) if view_box else []
    if len(numbers) == 4:
        try:
            return float(numbers[2]), float(numbers[3])
        except ValueError:
            return None
    return None


def svg_to_png(svg: str, scale: float = SCALE, max_pixels: int = MAX_PIXELS) -> Raster | None:
    """Draw ``svg`` as a PNG (see the module docstring); ``None`` if it cannot be drawn.

    >>> svg_to_png("not an svg") is None
    True
    """
    try:
        import resvg_py
    except ImportError:  # no wheel for this platform: pictures keep their SVG and text twin
        return None
    size = natural_size(svg)
    if size is None or size[0] <= 0 or size[1] <= 0:
        return None
    width, height = size
    zoom = min(scale, math.sqrt(max_pixels / (width * height)))  # step 2
    try:
        png = resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, **_font_options())  # step 3
    except Exception:  # resvg reports a malformed SVG as a plain exception
        return None
    return Raster(png=bytes(png), width=round(width), height=round(height))


def _attribute(tag: str, name: str) -> str | None:
    match = re.search(rf'\s{name}\s*=\s*["\']([^"\']*)["\']', tag)
    return None if match is None else match.group(1)


def _pixels(length: str | None) -> float | None:
    """A length such as ``"12pt"`` in CSS pixels; ``None`` for a percentage or nothing."""
    match = _LENGTH.match(length or "")
    if match is None or match.group(2) not in _UNITS:
        return None
    return float(match.group(1)) * _UNITS[match.group(2)]


def bundled_font_folder() -> Path | None:
    """The folder of the TrueType fonts matplotlib ships (found without importing it).

    >>> bundled_font_folder().name
    'ttf'
    """
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"
    return folder if (folder / "DejaVuSans.ttf").is_file() else None


@lru_cache(maxsize=2)
def _font_options(system_fonts: bool = True) -> dict[str, object]:
    """resvg-py's font arguments: the bundled fonts, and for each generic family the first
    font of :data:`_GENERIC_FONTS` that is here (step 3). A font counts as here when a word
    drawn in it differs from the same word in a family that exists nowhere. Found once.
    ``system_fonts=False`` leaves the machine's fonts out, as on a machine without any."""
    import resvg_py

    # dpi: CSS pixels per inch; resvg-py's default of 0 makes every length in pt zero.
    folder = bundled_font_folder()
    options: dict[str, object] = {"skip_system_fonts": not system_fonts, "dpi": 96.0}
    if folder is not None:
        options["font_dirs"] = [str(folder)]
    missing = resvg_py.svg_to_bytes(svg_string=_word_svg("tinycomp-no-such-font"), **options)
    chosen = {}
    for argument, candidates in _GENERIC_FONTS.items():
        for family in candidates:
            if resvg_py.svg_to_bytes(svg_string=_word_svg(family), **options) != missing:
                chosen[argument] = family
                break
    return {**options, **chosen}


def _word_svg(family: str) -> str:
    """A small SVG with one word in ``family``."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20">'
        f'<text x="2" y="15" font-family="{family}" font-size="14">Mwi1</text></svg>'
    )
