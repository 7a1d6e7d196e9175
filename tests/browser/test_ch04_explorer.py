"""Chapter 04's program explorer, driven in a real JupyterLab in headless Chromium.

The test opens a fresh copy of ``chapters/04_tensor_programs.ipynb``, runs all its cells,
then uses the explorer as a reader would: it moves the matmul's ``k`` slider with the
keyboard, reads the label back (it must name the size that moved and what the counts did),
checks that the picture was redrawn and that the IR listing shows the new shape, then picks
softmax in the program menu and finds its sliders, label and IR. Screenshots go to
``test-artifacts/browser/``.

Run with ``pytest tests/browser/test_ch04_explorer.py -m browser -v -s``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from lab_harness import CHAPTERS_DIR, WIDGET_TIMEOUT, LabServer, NotebookDriver, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

NOTEBOOK = "chapters/04_tensor_programs.ipynb"
RUN_ALL_TIMEOUT = 600.0
"""Seconds for Run All: the chapter's grade cell runs the whole ch04 grader once."""
EXPLORER = ".tinycomp-program-explorer"


def label_text(explorer: Locator) -> str:
    return explorer.locator(".tinycomp-label").first.inner_text().strip()


def picture_source(explorer: Locator) -> str:
    return str(explorer.locator("img.tinycomp-picture").first.get_attribute("src"))


def listing_text(explorer: Locator) -> str:
    return explorer.locator(".tinycomp-ir-listing").inner_text()


@pytest.mark.browser
@pytest.mark.skipif(not (CHAPTERS_DIR / "04_tensor_programs.ipynb").is_file(), reason="no ch04")
def test_program_explorer_follows_the_sliders_and_the_menu(
    page: Page, lab_server: LabServer
) -> None:
    driver = NotebookDriver(page, lab_server, NOTEBOOK)
    driver.open()
    result = driver.run_all(timeout=RUN_ALL_TIMEOUT)
    errors = [f"{e.get('ename')}: {e.get('evalue')}" for e in result.error_outputs]
    assert not errors and not result.traceback_texts, "\n".join(errors + result.traceback_texts)

    explorer = page.locator(EXPLORER).first
    explorer.wait_for(state="visible", timeout=WIDGET_TIMEOUT * 1000)
    explorer.scroll_into_view_if_needed()
    wait_for(
        lambda: label_text(explorer).startswith("matmul (m=16, k=32, n=8): 2 kernels"),
        WIDGET_TIMEOUT,
        "the explorer's first label",
        driver.describe,
    )
    assert "linalg.matmul" in listing_text(explorer)
    driver.screenshot("04_tensor_programs-explorer-first")
    before = picture_source(explorer)

    slider = explorer.locator(".tinycomp-control-k").first
    driver.nudge_slider(slider, presses=1)  # k: 32 -> 64, the next value of the slider
    wait_for(
        lambda: "k 32 -> 64: FLOPs x2" in label_text(explorer),
        WIDGET_TIMEOUT,
        "the label to name the size that moved",
        driver.describe,
    )
    assert label_text(explorer).startswith("matmul (m=16, k=64, n=8)"), label_text(explorer)
    wait_for(lambda: picture_source(explorer) != before, WIDGET_TIMEOUT, "a redrawn picture")
    wait_for(lambda: "tensor<16x64xf32>" in listing_text(explorer), WIDGET_TIMEOUT, "the new IR")
    driver.screenshot("04_tensor_programs-explorer-k-moved")

    explorer.locator(".tinycomp-control-program select").select_option("softmax")
    wait_for(
        lambda: label_text(explorer).startswith("softmax (rows=8, cols=32): 7 kernels"),
        WIDGET_TIMEOUT,
        "the label of softmax",
        driver.describe,
    )
    wait_for(lambda: "@main of softmax" in listing_text(explorer), WIDGET_TIMEOUT, "its IR")
    names = explorer.locator(".widget-slider .widget-label").all_inner_texts()
    assert [re.sub(r"\s+", "", name) for name in names] == ["rows", "cols"], names
    driver.screenshot("04_tensor_programs-explorer-softmax")

    late = driver.collect_run_result()
    assert not late.error_outputs, late.error_outputs
