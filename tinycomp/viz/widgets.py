"""Interactive explorers: drag a slider, and the picture and its caption redraw.

An :class:`Explorer` wraps a ``draw`` function. Whenever a control changes it
calls ``draw(**values)`` and puts the result into two widgets: an
``ipywidgets.Image`` showing the SVG (or, for IR, an ``ipywidgets.HTML`` showing the
listing's coloured text) and an ``ipywidgets.HTML`` label. It never prints, so nbval
(strict mode) sees no stray output.

In a notebook the explorer displays as live widgets; its ``text/plain`` is the
text twin of the current state, which is what nbval compares and what tests
read back through :meth:`Explorer.set`, :attr:`Explorer.text` and
:attr:`Explorer.label`.

>>> from tinycomp.viz.picture import Picture
>>> def draw(n):
...     return Picture.from_text("#" * n), f"{n} blocks"
>>> explorer = explore(draw, n=range(1, 9))
>>> print(explorer)
explorer: n=1
label: 1 blocks
#
>>> explorer.set(n=3)
>>> explorer.label
'3 blocks'
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets
from traitlets import TraitError

from tinycomp.viz.picture import Picture

__all__ = ["Explorer", "explore"]

DrawResult = Picture | tuple[Picture, str]
"""What a draw function returns: a picture, or a picture and a label."""


class Explorer:
    """Controls, a label and a picture, kept in step by a ``draw`` function.

    ``controls`` maps each argument name of ``draw`` to a widget with a
    ``value`` (an ``IntSlider``, a ``Dropdown``...). CSS classes let a browser
    test find the parts: ``tinycomp-control`` (and ``tinycomp-control-NAME``),
    ``tinycomp-label`` and ``tinycomp-picture``. ``caption`` is a heading shown
    above the controls; ``explorer.widget`` is the whole box, to place in a layout.

    >>> import ipywidgets
    >>> from tinycomp.viz.picture import Picture
    >>> slider = ipywidgets.IntSlider(value=2, min=1, max=4)
    >>> explorer = Explorer(lambda n: Picture.from_text("o" * n), {"n": slider})
    >>> explorer.text
    'explorer: n=2\\noo'
    """

    def __init__(
        self,
        draw: Callable[..., DrawResult],
        controls: Mapping[str, ipywidgets.ValueWidget],
        caption: str | None = None,
    ) -> None:
        self.draw = draw
        self.controls = dict(controls)
        self.caption = caption
        for name, control in self.controls.items():
            if not isinstance(control, ipywidgets.ValueWidget):
                raise TypeError(
                    f"expected control {name!r} to be an ipywidgets widget with a value, "
                    f"got {type(control).__name__}"
                )
            control.add_class("tinycomp-control")
            control.add_class(f"tinycomp-control-{name}")
            if not control.description:
                control.description = name

        self._label = ipywidgets.HTML()
        self._label.add_class("tinycomp-label")
        # Natural size (a flex column would stretch it), shrunk only to fit the notebook.
        fit = ipywidgets.Layout(align_self="flex-start", max_width="100%")
        self._image = ipywidgets.Image(format="svg+xml", layout=fit)
        self._image.add_class("tinycomp-picture")
        # IR (an IRText) is shown as its HTML: coloured text that scrolls, not a drawing
        # shrunk to the cell's width.
        self._text = ipywidgets.HTML(layout=ipywidgets.Layout(max_width="100%"))
        self._text.add_class("tinycomp-picture")
        self._text.add_class("tinycomp-picture-text")
        parts: list[ipywidgets.Widget] = []
        if caption is not None:
            parts.append(ipywidgets.HTML(f"<b>{html.escape(caption)}</b>"))
        parts += [*self.controls.values(), self._label, self._image, self._text]
        self.widget = ipywidgets.VBox(parts)
        self.widget.add_class("tinycomp-explorer")

        self._holding = False  # True while set() changes several controls at once
        self._redraw()
        for control in self.controls.values():
            control.observe(self._on_change, names="value")

    @property
    def values(self) -> dict[str, Any]:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    @property
    def picture(self) -> Picture:
        """The picture for the current values."""
        return self._picture

    @property
    def label(self) -> str:
        """The label text for the current values (empty if ``draw`` gives none)."""
        return self._label_text

    @property
    def text(self) -> str:
        """The text twin: the control values, the label, then the picture's twin."""
        settings = ", ".join(f"{name}={value!r}" for name, value in self.values.items())
        title = "explorer" if self.caption is None else f"explorer {json.dumps(self.caption)}"
        lines = [f"{title}: {settings}"]
        if self._label_text:
            lines.append(f"label: {self._label_text}")
        lines.append(self._picture.text)
        return "\n".join(lines)

    def set(self, **values: Any) -> None:
        """Set some controls, as a user dragging them would, then redraw once.

        Raises ``KeyError`` for an unknown control and ``ValueError`` for a
        value the control cannot hold (the old values are then kept).
        """
        unknown = [name for name in values if name not in self.controls]
        if unknown:
            raise KeyError(f"expected control names from {list(self.controls)}, got {unknown}")
        before = self.values
        self._holding = True
        try:
            for name, value in values.items():
                self._set_one(name, value, before)
        finally:
            self._holding = False
        self._redraw()

    def _set_one(self, name: str, value: Any, before: dict[str, Any]) -> None:
        control = self.controls[name]
        try:
            control.value = value
            # Sliders clamp out-of-range values silently, and do not check the step.
            accepted = control.value == value and _on_step(control, value)
        except TraitError:
            accepted = False
        if not accepted:
            for old_name, old_value in before.items():
                self.controls[old_name].value = old_value
            raise ValueError(
                f"expected a value control {name!r} can hold ({_describe(control)}), got {value!r}"
            )

    def _on_change(self, change: dict) -> None:
        if not self._holding:
            self._redraw()

    def _redraw(self) -> None:
        """Call ``draw`` and show its result; on failure, show the error in the label."""
        try:
            result = self.draw(**self.values)
            picture, label = result if isinstance(result, tuple) else (result, "")
            if not isinstance(picture, Picture):
                raise TypeError(
                    "expected draw to return a Picture or (Picture, label), "
                    f"got {type(result).__name__}"
                )
        except Exception as error:
            message = f"draw failed: {type(error).__name__}: {error}"
            self._label.value = f'<span style="color:#b00020">{html.escape(message)}</span>'
            raise
        self._picture = picture
        self._label_text = str(label)
        self._label.value = html.escape(self._label_text)
        self._image.value = picture.svg.encode("utf-8")
        as_text = getattr(picture, "html", "")
        self._text.value = as_text
        self._text.layout.display = None if as_text else "none"
        self._image.layout.display = "none" if as_text else None

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The live widget for the notebook, with the text twin as ``text/plain``."""
        widget_bundle = self.widget._repr_mimebundle_  # None once the widget is closed
        bundle = {} if widget_bundle is None else dict(widget_bundle(**kwargs))
        bundle["text/plain"] = self.text
        return bundle

    def __repr__(self) -> str:
        return self.text


def explore(
    draw: Callable[..., DrawResult], caption: str | None = None, **controls: Any
) -> Explorer:
    """Make an :class:`Explorer`, turning plain values into controls.

    - ``range(1, 9)`` becomes an integer slider (1 to 8, with the range's step);
    - a list or tuple of numbers becomes a slider over those choices,
      of other things a dropdown; the first item is the starting value;
    - ``True``/``False`` becomes a checkbox; a widget is used as it is.

    ``caption`` is a heading above the controls (so no control can be named ``caption``).

    >>> from tinycomp.viz.picture import Picture
    >>> explorer = explore(lambda tile: Picture.from_text(f"tile {tile}"), tile=[4, 8, 16])
    >>> explorer.set(tile=16)
    >>> explorer.text
    'explorer: tile=16\\ntile 16'
    """
    return Explorer(draw, {name: _control(name, spec) for name, spec in controls.items()}, caption)


def _control(name: str, spec: Any) -> ipywidgets.ValueWidget:
    """The widget for one ``explore`` argument."""
    if isinstance(spec, ipywidgets.ValueWidget):
        return spec
    if isinstance(spec, bool):
        return ipywidgets.Checkbox(value=spec, description=name)
    if isinstance(spec, range) and len(spec) > 0 and spec.step > 0:
        return ipywidgets.IntSlider(
            value=spec.start, min=spec.start, max=spec[-1], step=spec.step, description=name
        )
    if isinstance(spec, (list, tuple)) and len(spec) > 0:
        numbers = all(isinstance(item, (int, float)) for item in spec)
        kind = ipywidgets.SelectionSlider if numbers else ipywidgets.Dropdown
        return kind(options=list(spec), value=spec[0], description=name)
    raise TypeError(
        f"expected control {name!r} to be a non-empty increasing range, a non-empty list, "
        f"a bool or an ipywidgets widget, got {type(spec).__name__} {spec!r}"
    )


def _on_step(control: ipywidgets.ValueWidget, value: Any) -> bool:
    """Whether ``value`` is ``min + k * step`` for an integer slider (other controls: True)."""
    if isinstance(control, ipywidgets.IntSlider):
        return (value - control.min) % control.step == 0
    return True


def _describe(control: ipywidgets.ValueWidget) -> str:
    """Say which values a control accepts, for error messages."""
    if hasattr(control, "options"):
        return f"one of {list(control.options)}"
    if hasattr(control, "min") and hasattr(control, "max"):
        step = getattr(control, "step", None)
        return f"from {control.min} to {control.max} in steps of {step}"
    return f"a value like {control.value!r}"
