"""Chapter 08 in a real JupyterLab: its codegen explorer reacts to the slider and the CPU menu.

The notebook is run with Run All Cells in headless Chromium (see ``lab_harness.py``); then
the opt-level slider is moved with the keyboard and another CPU is picked from the menu,
and the explorer's label and hot-loop picture must follow. Screenshots go to
``test-artifacts/browser/``.

Run with ``pytest tests/browser/test_ch08_explorer.py -m browser -v -s``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lab_harness import (
    CHAPTERS_DIR,
    SEL_LABEL,
    WIDGET_TIMEOUT,
    LabServer,
    NotebookDriver,
    wait_for,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

NOTEBOOK = "08_loops_to_llvm.ipynb"
EXPLORER = ".tinycomp-explorer"


def _label(page: Page) -> str:
    return page.locator(f"{EXPLORER} {SEL_LABEL}").first.inner_text()


@pytest.mark.browser
@pytest.mark.skipif(not (CHAPTERS_DIR / NOTEBOOK).is_file(), reason=f"no chapters/{NOTEBOOK}")
def test_ch08_codegen_explorer_follows_its_controls(page: Page, lab_server: LabServer) -> None:
    driver = NotebookDriver(page, lab_server, f"chapters/{NOTEBOOK}")
    driver.open()
    result = driver.run_all()
    errors = [f"{e.get('ename')}: {e.get('evalue')}" for e in result.error_outputs]
    assert not errors and not result.traceback_texts, f"{NOTEBOOK} produced errors: {errors}"
    driver.screenshot("08_loops_to_llvm-run-all")

    explorer = page.locator(EXPLORER).first
    explorer.wait_for(state="visible", timeout=WIDGET_TIMEOUT * 1000)
    explorer.scroll_into_view_if_needed()
    start = wait_for(lambda: _label(page) or None, WIDGET_TIMEOUT, "the explorer's label")
    assert start.startswith("haswell, O3, width 8: hot loop of ")
    assert "8 FMAs" in start

    slider = driver.explorer_slider()  # the first slider of the explorer: the opt level
    before = driver.explorer_state()
    driver.nudge_slider(slider)  # at its maximum (3), so it moves left to 0
    after = driver.wait_for_explorer_update(before)
    label = _label(page)
    assert ", O0, " in label and "spills" in label, label
    assert after != before
    driver.screenshot("08_loops_to_llvm-opt-level-moved")

    before = driver.explorer_state()
    explorer.locator(".tinycomp-control-cpu select").select_option("znver4")
    driver.wait_for_explorer_update(before)
    assert _label(page).startswith("znver4, O0, "), _label(page)
    assert not driver.collect_run_result().error_outputs
    driver.screenshot("08_loops_to_llvm-cpu-changed")
