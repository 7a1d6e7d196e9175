"""Change the optimization level, the vector width or the CPU: the hot loop redraws.

``codegen_explorer(program)`` puts three controls on top of the real passes
(``hot_loop_view.compile_variant``): LLVM's optimization level (0-3), tinycomp's
``vectorize-loops`` width (0: tinycomp leaves the loops scalar and LLVM's own vectorizer
decides; 4, 8 or 16 floats, with ``a * b + c`` fused into ``vector.fma``), and the x86
CPU LLVM compiles for (by name, not the host, so the listing is the same on every
machine). At every change it:

1. compiles the program for the chosen setting, or takes it from the cache (each
   setting is compiled once per explorer, in a few tens of milliseconds);
2. draws the hot loop of the entry function's assembly, each instruction coloured by
   what it counts as (FMA, load, store, spill), with the counts above it; counts that
   changed since the previous setting are drawn in orange;
3. sets the label to the setting and the counts in one line.

Nothing is printed; the explorer's text is the text twin of the current setting.

>>> import numpy as np, tinycomp
>>> loops = tinycomp.compile(lambda x, y: x * 2.0 + y, np.ones(512, np.float32),
...                          np.ones(512, np.float32), stop_after="loops")
>>> explorer = codegen_explorer(loops.module, cpus=("haswell",))
>>> explorer.values
{'opt_level': 3, 'vector_width': 0, 'cpu': 'haswell'}
>>> print(explorer.label)
haswell, O3, LLVM's width: hot loop of 35 instructions, 0 FMAs, 16 loads, 8 stores, 0 spills; \
0.00 FMAs per load
>>> explorer.set(vector_width=8)  # tinycomp vectorizes first, fusing a * b + c
>>> print(explorer.label)
haswell, O3, width 8: hot loop of 27 instructions, 8 FMAs, 16 loads, 8 stores, 0 spills; \
0.50 FMAs per load
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets

from tinycomp.ir.operation import Operation
from tinycomp.viz.hot_loop_view import CPUS, Variant, compile_variant, hot_loop_picture
from tinycomp.viz.picture import Picture
from tinycomp.viz.widgets import Explorer

__all__ = ["WIDTHS", "codegen_explorer"]

WIDTHS = (0, 4, 8, 16)
"""The vector widths offered: 0 is no tinycomp vectorization (LLVM's vectorizer decides
at O2 and O3)."""


def codegen_explorer(
    program: Operation | str,
    entry: str | None = None,
    *,
    cpus: Sequence[str] = tuple(CPUS),
    opt_level: int = 3,
    vector_width: int = 0,
    caption: str | None = "loops to assembly",
) -> Explorer:
    """Controls for the optimization level, vector width and CPU of ``program`` (a
    loop-level module or its MLIR text), redrawing the hot loop of ``@entry`` (default:
    the last function). The first CPU of ``cpus`` is the starting one.

    >>> explorer = codegen_explorer("func.func @f(%x: f32) -> f32 {\\n  return %x : f32\\n}")
    >>> print(explorer.label)
    haswell, O3, LLVM's width: no loop in the assembly
    >>> explorer.set(cpu="znver4", opt_level=0)
    >>> print(explorer.label)
    znver4, O0, LLVM's width: no loop in the assembly
    """
    text = program if isinstance(program, str) else str(program)
    if entry is None:
        names = [line.split("@")[1].split("(")[0] for line in text.splitlines()
                 if line.lstrip().startswith("func.func @")]  # fmt: skip
        if not names:
            raise ValueError("expected a module with a func.func, found none")
        entry = names[-1]
    if vector_width not in WIDTHS:
        raise ValueError(f"expected a vector width in {WIDTHS}, got {vector_width!r}")
    if not cpus:
        raise ValueError("expected at least one CPU name, got none")
    style = {"description_width": "90px"}  # room for "vector width", the same for all three
    controls = {
        "opt_level": ipywidgets.IntSlider(
            value=opt_level, min=0, max=3, description="opt level", style=style
        ),
        "vector_width": ipywidgets.SelectionSlider(
            options=[("LLVM", 0)] + [(str(w), w) for w in WIDTHS[1:]],
            value=vector_width,
            description="vector width",
            style=style,
        ),
        "cpu": ipywidgets.Dropdown(
            options=list(cpus), value=cpus[0], description="cpu", style=style
        ),
    }
    shown: list[Variant] = []  # the variant on screen, to mark what the next one changes

    def draw(opt_level: int, vector_width: int, cpu: str) -> tuple[Picture, str]:
        variant = compile_variant(text, entry, cpu, opt_level, vector_width)
        picture = hot_loop_picture(variant, shown[-1] if shown else None)
        shown[:] = [variant]
        return picture, variant.describe()

    return Explorer(draw, controls, caption=caption)
