"""Chapter 05's fusion explorer, driven in a real JupyterLab in headless Chromium.

The test opens a fresh copy of ``chapters/05_fusion.ipynb``, runs all its cells, then uses
the explorer as a reader would: it picks RMSNorm in the program menu, switches *fuse into
reductions and matmuls* off, and reads the label and the picture back. The label must
name the op that left its kernel and the bytes it costs, and the picture must be redrawn.
Screenshots go to ``test-artifacts/browser/``.

Run with ``pytest tests/browser/test_ch05_explorer.py -m browser -v -s``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lab_harness import (
    CHAPTERS_DIR,
    WIDGET_TIMEOUT,
    LabServer,
    NotebookDriver,
    wait_for,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

NOTEBOOK = "chapters/05_fusion.ipynb"
RUN_ALL_TIMEOUT = 600.0
"""Seconds for Run All: the chapter's grade cell runs the whole ch05 grader once."""
EXPLORER = ".tinycomp-explorer:has(.tinycomp-control-into_reductions)"


def label_text(explorer: Locator) -> str:
    return explorer.locator(".tinycomp-label").inner_text().strip()


def picture_source(explorer: Locator) -> str:
    return str(explorer.locator("img.tinycomp-picture").get_attribute("src"))


@pytest.mark.browser
@pytest.mark.skipif(not (CHAPTERS_DIR / "05_fusion.ipynb").is_file(), reason="no chapter 05")
def test_fusion_explorer_switches_a_kind_of_fusion_off(page: Page, lab_server: LabServer) -> None:
    driver = NotebookDriver(page, lab_server, NOTEBOOK)
    driver.open()
    result = driver.run_all(timeout=RUN_ALL_TIMEOUT)
    errors = [f"{e.get('ename')}: {e.get('evalue')}" for e in result.error_outputs]
    assert not errors and not result.traceback_texts, "\n".join(errors + result.traceback_texts)

    explorer = page.locator(EXPLORER).first
    explorer.wait_for(state="visible", timeout=WIDGET_TIMEOUT * 1000)
    explorer.scroll_into_view_if_needed()
    wait_for(lambda: label_text(explorer).startswith("softmax:"), WIDGET_TIMEOUT, "the label")
    driver.screenshot("05_fusion-explorer-first")

    explorer.locator(".tinycomp-control-program select").select_option("rmsnorm")
    wait_for(
        lambda: label_text(explorer).startswith("rmsnorm: 3 kernels, 12.02 MiB moved"),
        WIDGET_TIMEOUT,
        "the label to show RMSNorm after the library's fusion",
        driver.describe,
    )
    before = picture_source(explorer)

    explorer.locator(".tinycomp-control-into_reductions input[type=checkbox]").uncheck()
    wait_for(
        lambda: "%mul no longer fused into %sum" in label_text(explorer),
        WIDGET_TIMEOUT,
        "the label to name the op that left its kernel",
        driver.describe,
    )
    label = label_text(explorer)
    assert label.startswith("rmsnorm: 4 kernels, 20.02 MiB moved"), label
    assert "+8 MiB" in label, label
    wait_for(lambda: picture_source(explorer) != before, WIDGET_TIMEOUT, "a redrawn picture")
    driver.screenshot("05_fusion-explorer-switched")

    late = driver.collect_run_result()
    assert not late.error_outputs, late.error_outputs
