"""raster: SVG to PNG with resvg, text drawn even without system fonts, None on failure."""

import builtins
import io

import pytest
from PIL import Image

from tinycomp.viz import raster
from tinycomp.viz.raster import _font_options, natural_size, svg_to_png

resvg_py = pytest.importorskip("resvg_py")


def text_svg(family: str, text: str = "Mw 4x8xf32") -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="120pt" height="30pt" viewBox="0 0 120 30">'
        '<rect width="120" height="30" fill="white"/>'
        f'<text x="4" y="20" font-family="{family}" font-size="14">{text}</text></svg>'
    )


def dark_pixels(png: bytes) -> int:
    """How many pixels are clearly darker than the white background."""
    gray = Image.open(io.BytesIO(png)).convert("L")
    return sum(gray.histogram()[:128])


@pytest.mark.parametrize(
    "attributes, size",
    [
        ('width="72pt" height="36pt"', (96.0, 48.0)),
        ('width="100" height="50px"', (100.0, 50.0)),
        ('width="1in" height="2.54cm"', (96.0, 96.0)),
        ('width="100%" viewBox="0 0 30 20"', (30.0, 20.0)),
        ("", None),
    ],
)
def test_natural_size_in_css_pixels(attributes, size):
    assert natural_size(f"<svg {attributes}>") == size


def test_png_is_the_size_of_the_drawing():
    result = svg_to_png(text_svg("sans-serif"))
    image = Image.open(io.BytesIO(result.png))
    assert image.format == "PNG" and image.size == (160, 40)  # 120pt x 30pt at 96 dpi
    assert (result.width, result.height) == (160, 40)


def test_a_big_drawing_is_drawn_at_a_lower_zoom_under_the_pixel_cap():
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="2000"><rect/></svg>'
    result = svg_to_png(svg, max_pixels=200_000)
    width, height = Image.open(io.BytesIO(result.png)).size
    assert width * height <= 200_000 and width / height == pytest.approx(2, rel=0.01)
    assert (result.width, result.height) == (4000, 2000)  # the drawing's own size


@pytest.mark.parametrize(
    "family", ["sans-serif", "serif", "monospace", "Helvetica,Arial,sans-serif"]
)
def test_text_is_drawn_in_every_generic_family(family):
    blank = svg_to_png(text_svg(family, text=""))
    drawn = svg_to_png(text_svg(family))
    assert dark_pixels(blank.png) == 0 and dark_pixels(drawn.png) > 50


@pytest.mark.parametrize("family", ["sans-serif", "monospace", "Times,serif"])
def test_without_system_fonts_the_bundled_fonts_draw_the_text(family):
    options = _font_options(system_fonts=False)
    assert options["sans_serif_family"] == "DejaVu Sans"  # nothing else is there
    png = resvg_py.svg_to_bytes(svg_string=text_svg(family), **options)
    assert dark_pixels(png) > 50


def test_malformed_svg_gives_no_png():
    assert svg_to_png("<svg width='10' height='10'><rect></svg>") is None
    assert svg_to_png("<svg></svg>") is None  # no size


def test_no_resvg_gives_no_png(monkeypatch):
    real_import = builtins.__import__

    def without_resvg(name, *args, **kwargs):
        if name == "resvg_py":
            raise ImportError("no resvg here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_resvg)
    assert raster.svg_to_png(text_svg("serif")) is None
