"""Chapter 07 in a real JupyterLab: its liveness explorer follows the op slider and the stage.

The notebook is run with Run All Cells in headless Chromium (see ``lab_harness.py``); then
the program point is moved with the keyboard and another stage is picked from the menu,
and the explorer's label, its IR listing (the op marked) and its chart must follow.
Screenshots go to ``test-artifacts/browser/``.

Run with ``pytest tests/browser/test_ch07_explorer.py -m browser -v -s``.
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

NOTEBOOK = "07_bufferization.ipynb"
EXPLORER = ".tinycomp-explorer"
LISTING = ".tinycomp-ir-listing"


def _label(page: Page) -> str:
    return page.locator(f"{EXPLORER} {SEL_LABEL}").first.inner_text()


def _marked_line(page: Page) -> str:
    """The text of the IR line the explorer marks (its highlight band: the op index and
    line number beside it, then the code)."""
    return page.locator(f"{EXPLORER} {LISTING}").first.evaluate(
        """node => {
            const rows = Array.from(node.querySelectorAll('*')).filter(
                el => (el.getAttribute('style') || '').includes('#fff8c5') && el.innerText.trim());
            return rows.map(el => el.innerText.trim()).join(' ');
        }"""
    )


@pytest.mark.browser
@pytest.mark.skipif(not (CHAPTERS_DIR / NOTEBOOK).is_file(), reason=f"no chapters/{NOTEBOOK}")
def test_ch07_liveness_explorer_follows_its_controls(page: Page, lab_server: LabServer) -> None:
    driver = NotebookDriver(page, lab_server, f"chapters/{NOTEBOOK}")
    driver.open()
    result = driver.run_all()
    errors = [f"{e.get('ename')}: {e.get('evalue')}" for e in result.error_outputs]
    assert not errors and not result.traceback_texts, f"{NOTEBOOK} produced errors: {errors}"
    driver.screenshot("07_bufferization-run-all")

    explorer = page.locator(EXPLORER).first
    explorer.wait_for(state="visible", timeout=WIDGET_TIMEOUT * 1000)
    explorer.scroll_into_view_if_needed()
    start = wait_for(lambda: _label(page) or None, WIDGET_TIMEOUT, "the explorer's label")
    assert start.startswith("op 1 of 10: 'memref.alloc' at line 4; live: %alloc"), start
    assert "memref.alloc" in _marked_line(page)

    slider = driver.explorer_slider()  # the op slider (the stage is a menu)
    before = driver.explorer_state()
    driver.nudge_slider(slider)  # three steps right: op 4
    after = driver.wait_for_explorer_update(before)
    label = _label(page)
    assert label.startswith("op 4 of 10: 'memref.alloc'"), label
    assert "live: %alloc, %alloc_0" in label and "peak 192 B at op 7" in label
    assert after != before
    driver.screenshot("07_bufferization-op-moved")

    before = driver.explorer_state()
    explorer.locator(".tinycomp-control-stage select").select_option("buffer-deallocation")
    driver.wait_for_explorer_update(before)
    label = _label(page)
    assert label.startswith("op 4 of 9: ") and "peak 128 B at op 4" in label, label  # reused
    assert "after buffer-deallocation" in page.locator(f"{EXPLORER} {LISTING}").first.inner_text()
    assert not driver.collect_run_result().error_outputs
    driver.screenshot("07_bufferization-stage-changed")
