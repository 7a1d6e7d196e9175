"""Run notebooks in a real JupyterLab in headless Chromium and use their widgets.

Each browser test opens a notebook (a temporary copy), clicks Run -> Run All Cells,
checks that no cell produced an error, that a graph is drawn, and that moving an
explorer's slider changes its label or picture. Another opens chapters without running
them, as a fresh clone shows them (untrusted): every stored picture must show as an
image and every IR listing as coloured, unwrapped text, before and after trusting.
Screenshots go to ``test-artifacts/browser/``.

Run with ``pytest tests/browser -m browser -v -s`` (``-s`` prints the screenshot paths).
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
import pytest
from lab_harness import (
    CHAPTERS_DIR,
    CHROMIUM_ENV_VAR,
    SEL_LABEL,
    WIDGET_TIMEOUT,
    LabServer,
    NotebookDriver,
    RunResult,
    copy_chapters,
    find_chromium,
    stored_outputs,
    wait_for,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

#: Chapter notebooks that contain an explorer (a slider driving a ``tinycomp-label``).
NOTEBOOKS = ["00_welcome.ipynb", "01_ir.ipynb", "06_tiling.ipynb"]

#: Chapters opened without running them, and what each must store and show at first open:
#: 00's pipeline picture, 05's fusion graphs, 03's IR diffs.
UNRUN = {
    "00_welcome.ipynb": "pictures",
    "05_fusion.ipynb": "pictures",
    "03_rewrites_and_passes.ipynb": "IR listings",
}
FOLD = "\u22ef "  # the start of a row that stands for unchanged lines left out

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

SCRATCH_GRAPH_CELL = '''\
import warnings

import ipywidgets as widgets
from IPython.display import SVG, display


def chain_svg(n: int) -> str:
    """An SVG picture of a chain of n nodes joined by arrows."""
    parts = []
    for i in range(n):
        x = 40 + 90 * i
        parts.append(f'<circle cx="{x}" cy="40" r="22" fill="#cde" stroke="#246"/>')
        parts.append(f'<text x="{x}" y="45" text-anchor="middle">v{i}</text>')
        if i:
            parts.append(f'<line x1="{x - 68}" y1="40" x2="{x - 24}" y2="40" stroke="#246"/>')
    width = 90 * n
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="80" '
        f'viewBox="0 0 {width} 80">' + "".join(parts) + "</svg>"
    )


# A warning goes to stderr but is not an error: the test must tolerate it.
warnings.warn("a harmless warning", UserWarning, stacklevel=1)
display(SVG(chain_svg(3)))
'''

SCRATCH_EXPLORER_CELL = """\
slider = widgets.IntSlider(value=2, min=1, max=6, description="nodes")
label = widgets.HTML()
label.add_class("tinycomp-label")
picture = widgets.HTML()
picture.add_class("tinycomp-picture")


def update(change=None):
    label.value = f"<b>{slider.value}</b> nodes in the chain"
    picture.value = chain_svg(slider.value)


slider.observe(update, names="value")
update()
widgets.VBox([slider, label, picture])
"""


def write_notebook(path: Path, markdown: str, code_cells: list[str]) -> str:
    """Write a notebook with a markdown cell and ``code_cells``; return its file name."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.cells = [nbformat.v4.new_markdown_cell(markdown)]
    nb.cells += [nbformat.v4.new_code_cell(source) for source in code_cells]
    nbformat.write(nb, path)
    return path.name


def describe_errors(result: RunResult) -> str:
    """Format the errors of a run for an assertion message."""
    lines = [f"{e.get('ename')}: {e.get('evalue')}" for e in result.error_outputs]
    lines += [text[-1500:] for text in result.traceback_texts]
    return "\n".join(lines)


@contextmanager
def failure_artifacts(driver: NotebookDriver, name: str) -> Iterator[None]:
    """On a failure inside the block, save a screenshot and print the page state."""
    try:
        yield
    except (Exception, pytest.fail.Exception):
        try:
            driver.screenshot(f"{name}-failure")
        except Exception as exc:  # the page may be gone; keep the original failure
            print(f"no failure screenshot: {exc}")
        print(driver.describe())
        raise


def check_explorer_notebook(
    page: Page,
    server: LabServer,
    notebook: str,
    name: str,
    expect_label_to_show_value: bool = False,
) -> None:
    """Run all cells of ``notebook`` and exercise its explorer; save two screenshots.

    With ``expect_label_to_show_value`` the label must also show the slider's final value.
    """
    driver = NotebookDriver(page, server, notebook)
    with failure_artifacts(driver, name):
        driver.open()
        result = driver.run_all()
        driver.screenshot(f"{name}-run-all")

        if result.error_outputs or result.traceback_texts:
            pytest.fail(f"{notebook} produced errors:\n{describe_errors(result)}")
        assert result.prompts, f"{notebook} has no code cells"
        unnumbered = [p for p in result.prompts if not p.strip("[]:").isdigit()]
        assert not unnumbered, f"cells without an execution count: {result.prompts}"
        for text in result.stderr_texts:
            print(f"stderr output (tolerated): {text.strip()[:200]}")

        driver.wait_for_graph()
        slider = driver.explorer_slider()
        before = wait_for(
            driver.explorer_state, WIDGET_TIMEOUT, "a tinycomp-label or tinycomp-picture"
        )
        readout_before = driver.slider_readout(slider)
        driver.nudge_slider(slider)
        after = driver.wait_for_explorer_update(before)
        readout_after = driver.slider_readout(slider)
        label = page.locator(SEL_LABEL).first
        label_text = label.inner_text() if label.count() else "(no label)"
        print(f"slider {readout_before} -> {readout_after}; label now: {label_text!r}")
        assert after != before
        driver.screenshot(f"{name}-slider-moved")
        if expect_label_to_show_value:
            assert readout_after in label_text, "the label should show the slider's value"

        late = driver.collect_run_result()
        if late.error_outputs:
            pytest.fail(f"errors after the slider move:\n{describe_errors(late)}")


@pytest.mark.browser
def test_scratch_explorer(page: Page, lab_server: LabServer) -> None:
    """The browser machinery works on a self-contained notebook with an SVG and a slider."""
    notebook = write_notebook(
        lab_server.root_dir / "scratch" / "explorer.ipynb",
        "# Scratch explorer\nA picture and a slider that redraws it.",
        [SCRATCH_GRAPH_CELL, SCRATCH_EXPLORER_CELL],
    )
    check_explorer_notebook(
        page, lab_server, f"scratch/{notebook}", "scratch_explorer", expect_label_to_show_value=True
    )


@pytest.mark.browser
def test_error_output_is_detected(page: Page, lab_server: LabServer) -> None:
    """A raising cell is reported as an error; a warning on stderr is not."""
    notebook = write_notebook(
        lab_server.root_dir / "scratch" / "failing.ipynb",
        "# A failing notebook",
        [
            'import warnings\nwarnings.warn("only a warning", UserWarning, stacklevel=1)',
            'raise ValueError("deliberate failure")',
        ],
    )
    driver = NotebookDriver(page, lab_server, f"scratch/{notebook}")
    driver.open()
    result = driver.run_all()
    assert [(e["ename"], e["evalue"]) for e in result.error_outputs] == [
        ("ValueError", "deliberate failure")
    ]
    assert len(result.traceback_texts) == 1
    assert "deliberate failure" in result.traceback_texts[0]
    assert len(result.stderr_texts) == 2, "expected the warning and the traceback on stderr"


def chapter_params() -> list[pytest.ParameterSet]:
    """One parameter per listed chapter; a missing notebook is skipped (no browser starts)."""
    return [
        pytest.param(
            notebook,
            marks=pytest.mark.skipif(
                not (CHAPTERS_DIR / notebook).is_file(),
                reason=f"chapters/{notebook} does not exist (yet)",
            ),
        )
        for notebook in NOTEBOOKS
    ]


@pytest.mark.browser
@pytest.mark.parametrize("notebook", chapter_params())
def test_chapter_explorer(page: Page, lab_server: LabServer, notebook: str) -> None:
    """A chapter notebook runs without errors in JupyterLab and its explorer reacts."""
    check_explorer_notebook(page, lab_server, f"chapters/{notebook}", Path(notebook).stem)


def stored_pictures_and_listings(path: Path) -> tuple[list[dict], list[dict]]:
    """The stored outputs of ``path`` that are pictures (an SVG) and IR listings."""
    stored = stored_outputs(path)
    pictures = [data for data in stored if "image/svg+xml" in data]
    listings = [data for data in stored if "tinycomp-ir" in "".join(data.get("text/html", ""))]
    return pictures, listings


def check_listing(shown: dict, twin: str, where: str) -> None:
    """One IR listing as the browser shows it: unwrapped, coloured, and its rows the lines
    of its text twin (a diff's rows with their markers, or without them side by side)."""
    assert set(shown["whiteSpace"]) == {"pre"}, f"{where}: code may wrap: {shown['whiteSpace']}"
    heights = shown["heights"]
    assert heights and max(heights) - min(heights) < 1, f"{where}: a row wrapped: {heights}"
    assert shown["coloured"] > 0, f"{where}: no token is coloured (styles stripped?)"
    assert shown["misaligned"] == 0, f"{where}: {shown['misaligned']} rows beside the wrong number"
    lines = twin.split("\n")
    unmarked = {line[1:] for line in lines}
    for row in shown["rows"]:
        if row and not row.startswith(FOLD):  # an empty row may face a line on the other side
            assert row in lines or row in unmarked, f"{where}: row {row!r} is not in the text"


def check_unrun_chapter(page: Page, server: LabServer, notebook: str, name: str) -> None:
    """Open ``notebook`` without running it (untrusted) and check its stored pictures and
    IR listings as a reader sees them; then trust it and check them again."""
    pictures, listings = stored_pictures_and_listings(server.root_dir / notebook)
    expected = UNRUN.get(Path(notebook).name, "pictures")
    assert pictures if expected == "pictures" else listings, f"{notebook} stores no {expected}"
    no_png = [number for number, data in enumerate(pictures, 1) if "image/png" not in data]
    assert not no_png, (
        f"{notebook}: pictures {no_png} were stored without a PNG, so an untrusted notebook "
        "shows only their text; re-execute the notebook"
    )
    driver = NotebookDriver(page, server, notebook)
    with failure_artifacts(driver, name):
        driver.open()
        shown = driver.wait_for_outputs(len(pictures) + len(listings))
        images = [index for index, output in enumerate(shown) if output["mime"] == "image/png"]
        assert len(images) == len(pictures), f"PNG outputs shown: {len(images)} of {len(pictures)}"
        small = [
            shown[i]["image"]
            for i in images
            if min(shown[i]["image"]["width"], shown[i]["image"]["height"]) <= 10
        ]
        assert not small, f"pictures drawn empty or tiny: {small}"
        irs = driver.ir_texts()
        assert len(irs) == len(listings), f"IR listings shown: {len(irs)} of {len(listings)}"
        for number, (ir, data) in enumerate(zip(irs, listings, strict=True), 1):
            check_listing(ir, "".join(data["text/plain"]), f"{notebook}, IR listing {number}")
        driver.screenshot(f"{name}-untrusted")
        if images:
            driver.output_screenshot(images[0], f"{name}-untrusted-picture")
        if irs:
            first_ir = next(i for i, o in enumerate(shown) if o["mime"] == "text/html")
            driver.output_screenshot(first_ir, f"{name}-untrusted-ir")
            rows = irs[0]["rows"][:3]  # copied with the mouse: the code, and no line numbers
            selected = driver.drag_select_code(0, rows=len(rows)).split("\n")
            copied = selected[:-1] == rows[:-1] and rows[-1].startswith(selected[-1])
            assert copied and selected[-1], f"selected {selected!r}, expected rows {rows!r}"

        driver.trust()
        trusted = driver.wait_for_outputs(len(pictures) + len(listings))
        svgs = [index for index, output in enumerate(trusted) if output["mime"] == "image/svg+xml"]
        assert len(svgs) == len(pictures), f"SVG outputs once trusted: {len(svgs)}"
        assert [ir["rows"] for ir in driver.ir_texts()] == [ir["rows"] for ir in irs]
        driver.screenshot(f"{name}-trusted")
        if svgs:
            driver.output_screenshot(svgs[0], f"{name}-trusted-picture")


def unrun_params() -> list[pytest.ParameterSet]:
    return [
        pytest.param(
            notebook,
            marks=pytest.mark.skipif(
                not (CHAPTERS_DIR / notebook).is_file(), reason=f"chapters/{notebook} is missing"
            ),
        )
        for notebook in UNRUN
    ]


@pytest.mark.browser
@pytest.mark.parametrize("notebook", unrun_params())
def test_unrun_chapter_shows_its_pictures_and_listings(
    page: Page, lab_server: LabServer, notebook: str
) -> None:
    """A chapter as cloned (stored outputs, untrusted) shows its pictures and IR listings."""
    stored = lab_server.root_dir / "stored"
    if not stored.exists():
        copy_chapters(stored, strip=False)
    check_unrun_chapter(page, lab_server, f"stored/{notebook}", f"{Path(notebook).stem}-unrun")


# --- Tests of the helpers (no browser needed) -----------------------------------------


def test_find_chromium_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lookup honours PATH, the known locations and the override variable."""
    monkeypatch.delenv(CHROMIUM_ENV_VAR, raising=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert find_chromium(search_path=str(empty), known_locations=()) is None

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "chromium-browser"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    assert find_chromium(search_path=str(bin_dir), known_locations=()) == str(fake)
    assert find_chromium(search_path=str(empty), known_locations=[str(fake)]) == str(fake)

    monkeypatch.setenv(CHROMIUM_ENV_VAR, str(tmp_path / "missing"))
    assert find_chromium(search_path=str(bin_dir)) is None


def test_copy_chapters_strips_outputs(tmp_path: Path) -> None:
    """The served copy starts without outputs and the source notebook is left alone."""
    source = tmp_path / "src"
    source.mkdir()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=4)
    cell.outputs = [
        nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=4)
    ]
    nb.cells = [cell]
    nbformat.write(nb, source / "nb.ipynb")
    original = (source / "nb.ipynb").read_text()

    copy_chapters(tmp_path / "served", source)
    served = nbformat.read(tmp_path / "served" / "nb.ipynb", as_version=4)
    assert served.cells[0].outputs == []
    assert served.cells[0].execution_count is None
    assert (source / "nb.ipynb").read_text() == original


def test_stored_outputs_lists_pictures_and_listings(tmp_path: Path) -> None:
    """The helper finds the stored pictures (SVG) and IR listings of a notebook."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x", execution_count=1)
    picture = {"text/plain": "p", "image/svg+xml": "<svg/>", "image/png": "iVBOR"}
    listing = {"text/plain": "ir", "text/html": '<div class="tinycomp-ir"></div>'}
    cell.outputs = [
        nbformat.v4.new_output("display_data", data=picture),
        nbformat.v4.new_output("stream", name="stdout", text="printed"),
        nbformat.v4.new_output("execute_result", data=listing, execution_count=1),
    ]
    nb.cells = [cell]
    nbformat.write(nb, tmp_path / "nb.ipynb")
    pictures, listings = stored_pictures_and_listings(tmp_path / "nb.ipynb")
    assert ["".join(data["text/plain"]) for data in pictures + listings] == ["p", "ir"]


def test_check_listing_finds_a_wrapped_row_and_a_lost_indent() -> None:
    """A wrapped row (taller) or a row that is not a line of the text fails the check."""
    good = {"whiteSpace": ["pre"], "heights": [19, 19], "coloured": 3, "rows": ["a {", "  b"]}
    good["misaligned"] = 0
    check_listing(good, "a {\n  b", "good")
    with pytest.raises(AssertionError, match="a row wrapped"):
        check_listing({**good, "heights": [19, 38]}, "a {\n  b", "wrapped")
    with pytest.raises(AssertionError, match="is not in the text"):
        check_listing({**good, "rows": ["a {", "b"]}, "a {\n  b", "indent lost")
