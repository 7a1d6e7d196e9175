"""Step through a pass pipeline: pick a stage, see what that pass changed.

A pipeline run gives a list of *stages*, ``(pass name, IR text after it)``, the first
being ``("input", text)`` (the pass manager's ``result.stages``, whose ``Stage`` records
have ``name`` and ``text``; plain pairs work too). The stepper shows one
stage at a time: the first as the IR itself, every later one as a coloured diff
against the stage before it (see :mod:`tinycomp.viz.ir_diff`), with a label that
counts the change: ``after cse: 2 lines removed, 1 added (5 ops -> 4 ops)``.

The op counts come from parsing each stage's text with :func:`tinycomp.ir.parse` and
counting the ops inside the module; a stage that does not parse (a dialect not
loaded) is labelled without them.

>>> stages = [
...     ("input", "func.func @f(%x: f32) -> f32 {\\n  %0 = arith.negf %x : f32\\n"
...               "  %1 = arith.negf %0 : f32\\n  return %1 : f32\\n}"),
...     ("canonicalize", "func.func @f(%x: f32) -> f32 {\\n  return %x : f32\\n}"),
... ]
>>> stepper = pass_stepper(stages)
>>> stepper.label
'input: 4 ops'
>>> stepper.set(stage=1)
>>> print(stepper)
explorer "passes": stage=1
label: after canonicalize: 3 lines removed, 1 added (4 ops -> 2 ops)
--- input
+++ canonicalize
@@ -1,5 +1,3 @@
 func.func @f(%x: f32) -> f32 {
-  %0 = arith.negf %x : f32
-  %1 = arith.negf %0 : f32
-  return %1 : f32
+  return %x : f32
 }
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import ipywidgets

from tinycomp.ir.errors import ParseError
from tinycomp.ir.parser import parse
from tinycomp.viz.ir_diff import LAYOUTS, diff_counts, ir_diff, ir_listing
from tinycomp.viz.picture import Picture
from tinycomp.viz.widgets import Explorer

__all__ = ["count_ops", "pass_stepper", "stage_picture"]

Stage = tuple[str, str]
"""One stage of a pipeline: the pass name and the IR text after it."""


@lru_cache(maxsize=64)  # each stage is counted twice: as itself and as the previous one
def count_ops(text: str) -> int | None:
    """The number of ops in an IR text, not counting the module around them;
    ``None`` if the text does not parse (it is not verified: any readable IR counts).

    >>> count_ops("func.func @f() {\\n  return\\n}")
    2
    >>> count_ops("this is not IR") is None
    True
    """
    try:
        module = parse(text, verify=False)
    except ParseError:
        return None
    return sum(1 for _ in module.walk()) - 1


def stage_picture(
    stages: Sequence[Stage], index: int, *, context: int = 3, layout: str = "unified"
) -> tuple[Picture, str]:
    """The picture and label of stage ``index``: the IR itself for the first stage,
    the diff against the previous stage for the others.

    >>> picture, label = stage_picture([("input", "a"), ("rename", "b")], 1)
    >>> label
    'after rename: 1 line removed, 1 added'
    """
    stages = _checked(stages)
    if not 0 <= index < len(stages):
        raise ValueError(f"expected a stage number from 0 to {len(stages) - 1}, got {index}")
    name, text = stages[index]
    ops = count_ops(text)
    if index == 0:
        label = name if ops is None else f"{name}: {_plural(ops, 'op')}"
        return ir_listing(text, title=name), label
    previous_name, previous_text = stages[index - 1]
    removed, added = diff_counts(previous_text, text)
    label = f"after {name}: {_plural(removed, 'line')} removed, {added} added"
    previous_ops = count_ops(previous_text)
    if ops is not None and previous_ops is not None:
        label += f" ({_plural(previous_ops, 'op')} -> {_plural(ops, 'op')})"
    picture = ir_diff(previous_text, text, previous_name, name, context=context, layout=layout)
    return picture, label


def pass_stepper(
    stages: Sequence[Stage],
    *,
    context: int = 3,
    layout: str = "unified",
    caption: str | None = "passes",
) -> Explorer:
    """An :class:`~tinycomp.viz.Explorer` with a dropdown of stages (see the module
    docstring); ``context`` and ``layout`` are passed to :func:`~tinycomp.viz.ir_diff.ir_diff`.

    The dropdown shows ``1. cse`` and its value is the stage number, so
    ``stepper.set(stage=1)`` shows what the first pass did.

    >>> stepper = pass_stepper([("input", "a"), ("dce", "")])
    >>> stepper.set(stage=1)
    >>> stepper.label
    'after dce: 1 line removed, 0 added'
    """
    stages = _checked(stages)
    if layout not in LAYOUTS:
        raise ValueError(f"expected layout to be one of {LAYOUTS}, got {layout!r}")
    options = [(f"{number}. {name}", number) for number, (name, _) in enumerate(stages)]
    dropdown = ipywidgets.Dropdown(options=options, value=0, description="stage")

    def draw(stage: int) -> tuple[Picture, str]:
        return stage_picture(stages, stage, context=context, layout=layout)

    return Explorer(draw, {"stage": dropdown}, caption=caption)


def _checked(stages: Sequence[Stage]) -> list[Stage]:
    """The stages as ``(name, text)`` pairs, after checking each: a pair of strings, or
    a pass manager ``Stage`` (which has ``name`` and ``text``)."""
    checked: list[Stage] = []
    for number, stage in enumerate(stages):
        pair = (getattr(stage, "name", None), getattr(stage, "text", None))
        if isinstance(stage, tuple) and len(stage) == 2:
            pair = stage
        if not (isinstance(pair[0], str) and isinstance(pair[1], str)):
            raise TypeError(
                f"expected stage {number} to be a (pass name, IR text) pair of strings, "
                f"got {type(stage).__name__} {str(stage)[:60]!r}"
            )
        checked.append((pair[0], pair[1]))
    if not checked:
        raise ValueError("expected at least one stage, such as ('input', ir_text), got none")
    return checked


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
