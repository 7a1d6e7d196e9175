"""Explorer: controls drive draw(), and the label and the text twin follow."""

import ipywidgets
import pytest

from tinycomp.viz import Explorer, Picture, explore


def draw(n: int, mode: str = "plain"):
    return Picture.from_text(f"{mode}: " + "#" * n), f"{n} blocks"


def make() -> Explorer:
    return explore(draw, caption="blocks", n=range(1, 9), mode=["plain", "fancy"])


def test_initial_state_is_drawn():
    explorer = make()
    assert explorer.values == {"n": 1, "mode": "plain"}
    assert explorer.label == "1 blocks"
    assert explorer.text == "explorer \"blocks\": n=1, mode='plain'\nlabel: 1 blocks\nplain: #"


def test_set_redraws_picture_label_and_twin():
    explorer = make()
    explorer.set(n=4, mode="fancy")
    assert explorer.label == "4 blocks"
    assert explorer.picture.text == "fancy: ####"
    assert explorer.text.splitlines() == [
        "explorer \"blocks\": n=4, mode='fancy'",
        "label: 4 blocks",
        "fancy: ####",
    ]
    assert repr(explorer) == explorer.text


def test_set_updates_the_widgets_a_browser_sees():
    explorer = make()
    explorer.set(n=3)
    assert explorer.controls["n"].value == 3
    assert explorer._label.value == "3 blocks"
    assert explorer._image.value == explorer.picture.svg.encode()


def test_dragging_a_control_redraws_like_set():
    explorer = make()
    explorer.controls["n"].value = 6  # what a slider drag in the browser does
    assert explorer.label == "6 blocks"
    assert explorer.picture.text == "plain: ######"


def test_set_draws_once_for_several_controls():
    calls = []

    def counting(a, b):
        calls.append((a, b))
        return Picture.from_text(f"{a}{b}")

    explorer = explore(counting, a=range(3), b=range(3))
    explorer.set(a=2, b=2)
    assert calls == [(0, 0), (2, 2)]


def test_bad_values_are_rejected_and_nothing_changes():
    explorer = make()
    with pytest.raises(ValueError, match=r"from 1 to 8 in steps of 1\), got 100"):
        explorer.set(n=100)  # a slider would silently clamp this to 8
    with pytest.raises(ValueError, match=r"one of \['plain', 'fancy'\]"):
        explorer.set(n=5, mode="shiny")
    with pytest.raises(KeyError, match="expected control names from"):
        explorer.set(size=3)
    assert explorer.values == {"n": 1, "mode": "plain"}
    assert explorer.label == "1 blocks"


def test_values_off_the_slider_step_are_rejected():
    explorer = explore(lambda tile: Picture.from_text(str(tile)), tile=range(4, 33, 4))
    assert explorer.controls["tile"].max == 32
    with pytest.raises(ValueError, match="in steps of 4"):
        explorer.set(tile=6)
    explorer.set(tile=12)
    assert explorer.picture.text == "12"


def test_controls_label_and_picture_have_css_classes():
    explorer = make()
    assert {"tinycomp-control", "tinycomp-control-n"} <= set(explorer.controls["n"]._dom_classes)
    assert "tinycomp-label" in explorer._label._dom_classes
    assert "tinycomp-picture" in explorer._image._dom_classes
    assert explorer._image.format == "svg+xml"
    assert "tinycomp-explorer" in explorer.widget._dom_classes


def test_mime_bundle_is_the_widget_view_with_the_twin_as_text():
    explorer = make()
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"] == explorer.text
    assert set(bundle) <= {"text/plain", "application/vnd.jupyter.widget-view+json"}


def test_explore_turns_values_into_controls():
    slider = ipywidgets.IntSlider(value=2, min=0, max=5)
    explorer = explore(
        lambda a, b, c, d: Picture.from_text("x"), a=range(2, 10, 2), b=[1, 2], c=["x"], d=slider
    )
    kinds = {name: type(control).__name__ for name, control in explorer.controls.items()}
    assert kinds == {"a": "IntSlider", "b": "SelectionSlider", "c": "Dropdown", "d": "IntSlider"}
    assert explorer.controls["d"] is slider
    assert explore(lambda flag: Picture.from_text(str(flag)), flag=True).text.endswith("True")
    with pytest.raises(TypeError, match="expected control 'n' to be a non-empty increasing range"):
        explore(draw, n=4)
    with pytest.raises(TypeError, match="got range range"):
        explore(draw, n=range(8, 0, -1))


def test_draw_errors_show_in_the_label_and_propagate():
    def fragile(n):
        if n > 2:
            raise ValueError("too big")
        return Picture.from_text(str(n))

    explorer = explore(fragile, n=range(1, 5))
    with pytest.raises(ValueError, match="too big"):
        explorer.set(n=3)
    assert "draw failed: ValueError: too big" in explorer._label.value


def test_draw_must_return_a_picture():
    with pytest.raises(TypeError, match="expected draw to return a Picture or"):
        explore(lambda n: "not a picture", n=range(2))


def test_a_closed_widget_still_shows_its_text_twin():
    explorer = make()
    explorer.widget.close()
    assert explorer._repr_mimebundle_() == {"text/plain": explorer.text}
