"""Reading a drawn SVG back: where its text is, how big it shows, and how well it contrasts.

Tests (and anyone checking a picture) use these to hold a drawing to three promises:

1. **No two labels collide**: ``text_boxes`` estimates the box of every ``<text>``
   element (its width measured in DejaVu Sans, its height one font size, placed by
   ``text-anchor`` and the enclosing ``transform``\\ s); ``overlapping_text`` lists the
   pairs whose boxes intersect.
2. **Text stays readable**: ``smallest_text_px`` is the smallest font size, in CSS pixels,
   as a notebook shows the picture: scaled down to the cell width when it is wider.
3. **Text contrasts with its box**: ``node_text_contrast`` pairs each node's text with the
   fill of the shape it sits on and gives their WCAG contrast ratio.

The width is deliberately generous: graphs ask for Helvetica or Arial (about 0.46 em per
character of IR text), and DejaVu Sans, the sans-serif a browser falls back to on Linux and
the one matplotlib ships, is about 15% wider. Text that is apart in DejaVu Sans is apart
in any of them. (``width="chars"`` uses ``ADVANCE_EM`` per character instead.)

>>> svg = '''<svg xmlns="http://www.w3.org/2000/svg" width="200pt" height="50pt"
...   viewBox="0 0 200 50"><g transform="translate(4 46)">
...   <text text-anchor="middle" x="30" y="-20" font-size="10">abcdef</text>
...   <text text-anchor="start" x="40" y="-20" font-size="10">ghi</text></g></svg>'''
>>> [(b.text, round(b.left, 1), round(b.right, 1)) for b in text_boxes(svg)]
[('abcdef', 17.0, 51.0), ('ghi', 44.0, 59.5)]
>>> [(a.text, b.text) for a, b in overlapping_text(svg)]
[('abcdef', 'ghi')]
>>> round(smallest_text_px(svg), 2)  # 200 pt = 267 px wide: shown at full size
13.33
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from tinycomp.viz.graph_style import DISPLAY_WIDTH_PX, MIN_TEXT_PX
from tinycomp.viz.palette import MIN_CONTRAST, contrast_ratio, to_hex

__all__ = [
    "ADVANCE_EM",
    "TextBox",
    "drawing_problems",
    "node_text_contrast",
    "overlapping_text",
    "smallest_text_px",
    "text_boxes",
]

ADVANCE_EM = 0.6
"""A character's width, in font sizes, for ``width="chars"`` (an upper bound for Arial)."""

_SVG = "{http://www.w3.org/2000/svg}"
_UNITS_PX = {"pt": 4 / 3, "px": 1.0, "": 1.0, "in": 96.0}
_TRANSFORM = re.compile(r"(translate|scale|rotate)\(([^)]*)\)")


@dataclass(frozen=True)
class TextBox:
    """The estimated box of one ``<text>`` element, in the SVG's root user units."""

    text: str
    left: float
    top: float
    right: float
    bottom: float
    font_size: float
    """In root user units (the element's size times the enclosing scales)."""

    def overlaps(self, other: TextBox) -> bool:
        """Whether the two boxes share some area (touching edges do not count)."""
        return (
            self.left < other.right
            and other.left < self.right
            and self.top < other.bottom
            and other.top < self.bottom
        )


def _numbers(text: str) -> list[float]:
    return [float(part) for part in re.split(r"[\s,]+", text.strip()) if part]


def _apply(transform: str, scale: float, dx: float, dy: float) -> tuple[float, float, float]:
    """Compose a parent's ``(scale, dx, dy)`` with an element's ``transform`` attribute
    (``translate``, uniform ``scale``, ``rotate(0)``: what Graphviz and matplotlib write)."""
    for kind, arguments in _TRANSFORM.findall(transform or ""):
        values = _numbers(arguments)
        if kind == "translate":
            tx, ty = values[0], values[1] if len(values) > 1 else 0.0
            dx, dy = dx + scale * tx, dy + scale * ty
        elif kind == "scale":
            scale *= values[0]
        elif values and values[0] != 0:
            raise ValueError(f"text_boxes: expected no rotation, got rotate({arguments})")
    return scale, dx, dy


def _font_size(element: ET.Element, inherited: float) -> float:
    size = element.get("font-size")
    style = re.search(r"font-size:\s*([\d.]+)", element.get("style", ""))
    if style:
        size = style.group(1)
    return float(size.removesuffix("px").removesuffix("pt")) if size else inherited


@lru_cache(maxsize=4096)
def _dejavu_em(text: str) -> float:
    """The advance width of ``text`` in DejaVu Sans, in font sizes."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    font = FontProperties(family="DejaVu Sans")
    width, _, _ = TextToPath().get_text_width_height_descent(text, font, ismath=False)
    return width / FontProperties(family="DejaVu Sans").get_size_in_points()


def _text_width(text: str, size: float, width: str) -> float:
    if width == "chars":
        return len(text) * ADVANCE_EM * size
    if width == "dejavu":
        return _dejavu_em(text) * size
    raise ValueError(f"expected width to be 'dejavu' or 'chars', got {width!r}")


def _walk(element, scale, dx, dy, font_size, found, width_by) -> None:
    scale, dx, dy = _apply(element.get("transform", ""), scale, dx, dy)
    font_size = _font_size(element, font_size)
    if element.tag == f"{_SVG}text":
        text = "".join(element.itertext())
        size = font_size * scale
        width = _text_width(text, size, width_by)
        x = dx + scale * float(element.get("x", "0"))
        y = dy + scale * float(element.get("y", "0"))
        anchor = element.get("text-anchor", "start")
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        found.append(TextBox(text, left, y - 0.8 * size, left + width, y + 0.2 * size, size))
        return
    for child in element:
        _walk(child, scale, dx, dy, font_size, found, width_by)


def text_boxes(svg: str, width: str = "dejavu") -> list[TextBox]:
    """The estimated box of every non-empty ``<text>`` of ``svg``, in document order.

    >>> svg = '<svg xmlns="http://www.w3.org/2000/svg"><text x="5" y="20">hi</text></svg>'
    >>> box = text_boxes(svg)[0]
    >>> box.text, box.font_size, [round(v, 1) for v in (box.left, box.top, box.right, box.bottom)]
    ('hi', 16.0, [5.0, 7.2, 19.6, 23.2])
    """
    found: list[TextBox] = []
    _walk(ET.fromstring(svg), 1.0, 0.0, 0.0, 16.0, found, width)
    return [box for box in found if box.text.strip()]


def overlapping_text(svg: str, width: str = "dejavu") -> list[tuple[TextBox, TextBox]]:
    """Every pair of ``<text>`` elements whose estimated boxes intersect (module docstring)."""
    boxes = text_boxes(svg, width)
    return [(a, b) for a, b in combinations(boxes, 2) if a.overlaps(b)]


def _length_px(value: str) -> float:
    match = re.fullmatch(r"\s*([\d.]+)\s*([a-z]*)\s*", value)
    if match is None or match.group(2) not in _UNITS_PX:
        raise ValueError(f"expected an SVG length such as '300pt' or '120', got {value!r}")
    return float(match.group(1)) * _UNITS_PX[match.group(2)]


def smallest_text_px(svg: str, display_width_px: float = DISPLAY_WIDTH_PX) -> float:
    """The smallest font size of ``svg``'s text, in CSS pixels, as shown in a cell
    ``display_width_px`` wide: the drawing's own width, scaled down to fit when wider.

    >>> wide = ('<svg xmlns="http://www.w3.org/2000/svg" width="1800px" height="10px" '
    ...         'viewBox="0 0 1800 10"><text font-size="14">x</text></svg>')
    >>> smallest_text_px(wide)  # shown at half size
    7.0
    """
    root = ET.fromstring(svg)
    width_px = _length_px(root.get("width", "0"))
    view = _numbers(root.get("viewBox", f"0 0 {width_px} 0"))
    user_px = width_px / view[2] if view[2] else 1.0
    shown = min(1.0, display_width_px / width_px) if width_px else 1.0
    sizes = [box.font_size for box in text_boxes(svg)]
    if not sizes:
        raise ValueError("smallest_text_px: the SVG has no text")
    return min(sizes) * user_px * shown


def node_text_contrast(svg: str) -> list[tuple[str, str, str, float]]:
    """For each Graphviz node (``<g class="node">``): ``(text, ink, fill, contrast)``, the
    text colour, the fill of the node's shape (white when unfilled) and their ratio.

    >>> svg = ('<svg xmlns="http://www.w3.org/2000/svg"><g class="node">'
    ...        '<polygon fill="#E69F00"/><text fill="white">a</text></g></svg>')
    >>> [(text, ink, fill, round(ratio, 2)) for text, ink, fill, ratio in node_text_contrast(svg)]
    [('a', '#ffffff', '#e69f00', 2.25)]
    """
    found = []
    for group in ET.fromstring(svg).iter(f"{_SVG}g"):
        if group.get("class") != "node":
            continue
        fill = "#ffffff"
        for shape in group:
            if shape.tag in {f"{_SVG}{kind}" for kind in ("polygon", "ellipse", "path")}:
                value = shape.get("fill", "none")
                if value not in ("none", "transparent"):
                    fill = to_hex(value)
                break
        for text in group.iter(f"{_SVG}text"):
            ink = to_hex(text.get("fill", "#000000"))
            found.append(("".join(text.itertext()), ink, fill, contrast_ratio(ink, fill)))
    return found


def drawing_problems(svg: str) -> list[str]:
    """Each broken promise of a Graphviz drawing, in words (none: ``[]``): two labels that
    collide, text below ``MIN_TEXT_PX`` in a notebook cell, node text below
    ``MIN_CONTRAST`` on its fill.

    >>> svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="100px" height="20px" '
    ...        'viewBox="0 0 100 20"><g class="node"><polygon fill="#E69F00"/>'
    ...        '<text x="2" y="15" font-size="8" fill="white">tiny</text></g></svg>')
    >>> for problem in drawing_problems(svg):
    ...     print(problem)
    text shows at 8.0 px in a 900 px cell, below 11.0 px
    'tiny' (#ffffff on #e69f00) has contrast 2.25, below 4.5
    """
    problems = [
        f"{a.text!r} at ({a.left:.0f}, {a.top:.0f}) runs into {b.text!r} at "
        f"({b.left:.0f}, {b.top:.0f})"
        for a, b in overlapping_text(svg)
    ]
    smallest = smallest_text_px(svg)
    if smallest < MIN_TEXT_PX - 1e-9:
        cell = f"{DISPLAY_WIDTH_PX} px cell"
        problems.append(f"text shows at {smallest:.1f} px in a {cell}, below {MIN_TEXT_PX} px")
    for text, ink, fill, ratio in node_text_contrast(svg):
        if ratio < MIN_CONTRAST:
            problems.append(
                f"{text!r} ({ink} on {fill}) has contrast {ratio:.2f}, below {MIN_CONTRAST}"
            )
    return problems
