"""Fixtures for the real-browser JupyterLab tests (``pytest -m browser``).

One JupyterLab server and one headless Chromium are shared by all tests of a session;
each test gets a fresh browser context and page. The browser fixtures skip the test
(before any server is started) where Playwright or a system Chromium is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from lab_harness import (
    CHROMIUM_ARGS,
    LabServer,
    chromium_missing_reason,
    copy_chapters,
    find_chromium,
    playwright_missing_reason,
    start_lab,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, ViewportSize

#: Viewport for the screenshots: tall enough to show a short notebook in one picture.
VIEWPORT: ViewportSize = {"width": 1280, "height": 1600}


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``browser`` marker (so ``--strict-markers`` accepts it)."""
    config.addinivalue_line(
        "markers",
        "browser: drives JupyterLab in a real headless Chromium (needs playwright + chromium)",
    )


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    """Path of the system Chromium; skips the test where there is none."""
    executable = find_chromium()
    if executable is None:
        pytest.skip(chromium_missing_reason())
    return executable


@pytest.fixture(scope="session")
def browser(chromium_executable: str) -> Iterator[Browser]:
    """A headless system Chromium driven by Playwright; skips without Playwright.

    Playwright gives every launched browser a fresh temporary profile (user data dir)
    and deletes it on close.
    """
    reason = playwright_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=chromium_executable,
            headless=True,
            args=list(CHROMIUM_ARGS),
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def lab_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory JupyterLab serves: a stripped copy of ``chapters/`` plus ``scratch/``."""
    root = tmp_path_factory.mktemp("lab-root")
    copy_chapters(root / "chapters")
    (root / "scratch").mkdir()
    return root


@pytest.fixture(scope="session")
def lab_server(lab_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A JupyterLab server on a free loopback port with all its state in a temp dir."""
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed (pip install jupyterlab)")
    server = start_lab(lab_root, tmp_path_factory.mktemp("lab-state"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def page(browser: Browser, lab_server: LabServer) -> Iterator[Page]:
    """A fresh page in a new browser context (no state shared between tests).

    Afterwards the page is closed and the kernels it started are shut down.
    """
    context = browser.new_context(viewport=VIEWPORT)
    try:
        yield context.new_page()
    finally:
        context.close()
        lab_server.shutdown_kernels()
