"""Helpers for driving the course notebooks in a real JupyterLab through headless Chromium.

The module has three parts:

* locating a system Chromium and Playwright (so the tests can skip cleanly without them),
* starting and stopping a throw-away JupyterLab server on a loopback port, with every
  piece of Jupyter state (config, runtime, data, settings, workspaces) in a temporary
  directory and the notebooks served from a temporary copy,
* a small driver around a Playwright page that runs all cells of a notebook and inspects
  the result (errors, rendered pictures, ipywidgets sliders and labels), or looks at a
  notebook's stored outputs as a fresh clone shows them (untrusted), then trusted.

Playwright is imported lazily, so importing this module never fails where it is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Locator, Page

REPO_ROOT = Path(__file__).resolve().parents[2]
CHAPTERS_DIR = REPO_ROOT / "chapters"
ARTIFACT_DIR = REPO_ROOT / "test-artifacts" / "browser"

# --- Generous, bounded waits (seconds). Nothing asserts on how long a step took. ---------
SERVER_START_TIMEOUT = 120.0
PAGE_READY_TIMEOUT = 120.0
RUN_ALL_TIMEOUT = 180.0
WIDGET_TIMEOUT = 60.0
POLL_INTERVAL = 0.25

# --- Chromium -------------------------------------------------------------------------

#: Environment variable naming a Chromium/Chrome executable to use instead of the lookup.
CHROMIUM_ENV_VAR = "TINYCOMP_CHROMIUM"
#: Executable names looked up on PATH, in order of preference.
CHROMIUM_NAMES: tuple[str, ...] = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
)
#: Well-known system locations tried when nothing is found on PATH.
KNOWN_CHROMIUM_LOCATIONS: tuple[str, ...] = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
#: Command-line flags for a quiet, self-contained headless Chromium.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_chromium(
    search_path: str | None = None,
    known_locations: Iterable[str] | None = None,
) -> str | None:
    """Return the path of a system Chromium (or Chrome) executable, or ``None``.

    ``$TINYCOMP_CHROMIUM`` wins when set (and must then name an executable). Otherwise the
    names in :data:`CHROMIUM_NAMES` are looked up on ``search_path`` (default: ``$PATH``),
    then the :data:`KNOWN_CHROMIUM_LOCATIONS` (or ``known_locations``) are tried.
    """
    override = os.environ.get(CHROMIUM_ENV_VAR)
    if override:
        return override if _is_executable(override) else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name, path=search_path)
        if found:
            return found
    locations = KNOWN_CHROMIUM_LOCATIONS if known_locations is None else known_locations
    for candidate in locations:
        if _is_executable(candidate):
            return candidate
    return None


def chromium_missing_reason() -> str:
    """Explain, for a skip message, where Chromium was looked for."""
    override = os.environ.get(CHROMIUM_ENV_VAR)
    if override:
        return f"${CHROMIUM_ENV_VAR}={override!r} is not an executable file"
    reason = f"no Chromium found: none of {', '.join(CHROMIUM_NAMES)} is on PATH"
    if KNOWN_CHROMIUM_LOCATIONS:
        reason += f" and none of {', '.join(KNOWN_CHROMIUM_LOCATIONS)} exists"
    return reason


def playwright_missing_reason() -> str | None:
    """Return why ``playwright.sync_api`` cannot be imported, or ``None`` when it can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        return f"playwright is not importable ({exc}); install it with pip install playwright"
    return None


# --- Served notebook tree -------------------------------------------------------------


def strip_notebook(path: Path) -> None:
    """Remove outputs, execution counts and saved widget state from a notebook in place.

    The served copy then starts blank, so everything the browser sees afterwards was
    produced by this run.
    """
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    nb.get("metadata", {}).pop("widgets", None)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def copy_chapters(destination: Path, source: Path | None = None, *, strip: bool = True) -> Path:
    """Copy the chapter tree (default: :data:`CHAPTERS_DIR`) to ``destination``.

    The whole directory is copied so that anything a notebook reads relative to itself
    comes along; the copied notebooks are stripped (:func:`strip_notebook`) unless
    ``strip=False``, which keeps their stored outputs, as a fresh clone has them. Running
    the copy never touches the repository's notebooks. Returns ``destination``.
    """
    source = CHAPTERS_DIR if source is None else source
    if source.is_dir():
        shutil.copytree(
            source,
            destination,
            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"),
        )
    else:
        destination.mkdir(parents=True)
    if strip:
        for notebook in destination.rglob("*.ipynb"):
            strip_notebook(notebook)
    return destination


def stored_outputs(path: Path) -> list[dict[str, Any]]:
    """The stored display outputs of a notebook file (``execute_result``/``display_data``),
    in order: each one's ``data`` (mime type -> content)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [
        output.get("data", {})
        for cell in nb.get("cells", [])
        if cell.get("cell_type") == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") in ("execute_result", "display_data")
    ]


# --- JupyterLab server ----------------------------------------------------------------


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def write_lab_config(config_dir: Path, settings_dir: Path) -> None:
    """Write a minimal, quiet JupyterLab configuration into temporary directories.

    * the news/announcements plugin is disabled (no "receive official news?" toast),
    * news fetching and update checks are switched off,
    * notebook windowing is off, so every cell is in the DOM, on screen or not.
    """
    _write_json(
        config_dir / "labconfig" / "page_config.json",
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}},
    )
    _write_json(
        settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
        {"fetchNews": "false", "checkForUpdates": False},
    )
    _write_json(
        settings_dir / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings",
        {"windowingMode": "none"},
    )


def _http_get_json(url: str, timeout: float = 5.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))


def _http_delete(url: str, timeout: float = 10.0) -> None:
    request = urllib.request.Request(url, method="DELETE")
    with urllib.request.urlopen(request, timeout=timeout):
        pass


@dataclass
class LabServer:
    """A running JupyterLab server started by :func:`start_lab`."""

    base_url: str
    root_dir: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    def url(self, path: str) -> str:
        """Return the absolute URL of ``path`` (relative to the server root)."""
        return f"{self.base_url}/{path.lstrip('/')}"

    def log_tail(self, lines: int = 40) -> str:
        """Return the last ``lines`` lines of the server log."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return f"<server log unreadable: {exc}>"
        return "\n".join(text.splitlines()[-lines:])

    def kernels(self) -> list[dict[str, Any]]:
        """Return the server's list of running kernels (``/api/kernels``)."""
        return list(_http_get_json(self.url("api/kernels")))

    def shutdown_kernels(self) -> None:
        """Shut down every running kernel (best effort: errors are ignored)."""
        if self.process.poll() is not None:
            return
        try:
            for kernel in self.kernels():
                _http_delete(self.url(f"api/kernels/{kernel['id']}"))
        except (OSError, ValueError):
            pass

    def stop(self, timeout: float = 20.0) -> None:
        """Shut down the kernels, then stop the server's whole process group.

        Kernels run in sessions of their own, so they are shut down through the REST API
        first; SIGTERM then makes the server clean up whatever is left.
        """
        self.shutdown_kernels()
        _kill_process_group(self.process, timeout)


def _kill_process_group(process: subprocess.Popen[bytes], timeout: float) -> None:
    """Send SIGTERM, then SIGKILL, to the process group led by ``process``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is not None:
            break
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            continue
    # Reap anything left in the group (for example a helper that outlived the server).
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.poll() is None:
        process.wait(timeout=timeout)


def start_lab(
    root_dir: Path,
    state_dir: Path,
    *,
    timeout: float = SERVER_START_TIMEOUT,
    extra_pythonpath: Sequence[Path] = (REPO_ROOT,),
) -> LabServer:
    """Start JupyterLab serving ``root_dir`` and wait until ``/api/status`` answers.

    All Jupyter state lives under ``state_dir``. The server runs in its own process group
    with the interpreter running the tests, so it finds the same packages and kernels.
    ``extra_pythonpath`` is prepended to the kernels' ``PYTHONPATH`` (by default the
    repository root, so ``import tinycomp`` works from the copied chapters as it does
    from a checkout). Raises ``RuntimeError`` with the log tail if the server does not
    come up within ``timeout`` seconds.
    """
    config_dir = state_dir / "config"
    settings_dir = state_dir / "lab-settings"
    write_lab_config(config_dir, settings_dir)
    env = dict(os.environ)
    for key in ("JUPYTER_TOKEN", "JUPYTER_PASSWORD"):
        env.pop(key, None)
    pythonpath = [str(p) for p in extra_pythonpath]
    if env.get("PYTHONPATH"):
        pythonpath.append(env["PYTHONPATH"])
    env.update(
        JUPYTER_CONFIG_DIR=str(config_dir),
        JUPYTER_RUNTIME_DIR=str(state_dir / "runtime"),
        JUPYTER_DATA_DIR=str(state_dir / "data"),
        JUPYTERLAB_SETTINGS_DIR=str(settings_dir),
        JUPYTERLAB_WORKSPACES_DIR=str(state_dir / "workspaces"),
        IPYTHONDIR=str(state_dir / "ipython"),
        PYTHONPATH=os.pathsep.join(pythonpath),
    )
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",  # the current name of --ServerApp.token
        "--PasswordIdentityProvider.hashed_password=",  # ... and of --ServerApp.password
        # Without a token, REST calls such as DELETE /api/kernels/ID would need an XSRF
        # cookie; this throw-away server listens on loopback only.
        "--ServerApp.disable_check_xsrf=True",
        f"--ServerApp.root_dir={root_dir}",
        # No calls to the outside: no PyPI extension manager, no update checks.
        "--LabApp.extension_manager=readonly",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # Lets the tests read the notebook model (the galata test tool relies on this too).
        "--LabApp.expose_app_in_browser=True",
    ]
    log_path = state_dir / "jupyterlab.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=root_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = LabServer(f"http://127.0.0.1:{port}", root_dir, process, log_path)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(
                f"JupyterLab exited with code {process.returncode} before it was ready.\n"
                f"--- server log tail ---\n{server.log_tail()}"
            )
        try:
            _http_get_json(server.url("api/status"), timeout=2.0)
            return server
        except (OSError, ValueError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(
                f"JupyterLab did not answer {server.url('api/status')} within {timeout:.0f} s.\n"
                f"--- server log tail ---\n{server.log_tail()}"
            )
        time.sleep(POLL_INTERVAL * 2)


# --- Polling --------------------------------------------------------------------------

T = TypeVar("T")


def wait_for(
    probe: Callable[[], T | None],
    timeout: float,
    what: str,
    details: Callable[[], str] | None = None,
) -> T:
    """Call ``probe`` until it returns something truthy and return that value.

    Raises ``AssertionError`` naming ``what`` (plus ``details()`` if given) after
    ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            extra = f"\n{details()}" if details is not None else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{extra}")
        time.sleep(POLL_INTERVAL)


# --- Driving a notebook in the browser ------------------------------------------------

#: Selectors this driver relies on (JupyterLab 4, ipywidgets 8).
SEL_NOTEBOOK = ".jp-NotebookPanel .jp-Notebook"
SEL_MAIN_MENU = "#jp-MainMenu"
#: Run -> Run All Cells (the menu wraps notebook:run-all-cells in runmenu:run-all).
SEL_RUN_ALL_ITEM = ", ".join(
    f'.lm-Menu-item[data-command="{command}"]'
    for command in ("runmenu:run-all", "notebook:run-all-cells")
)
SEL_STDERR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
SEL_EXPLORER = ".tinycomp-explorer"
SEL_SLIDER = ".widget-slider"
SEL_SLIDER_HANDLE = ".noUi-handle"
SEL_SLIDER_READOUT = ".widget-readout"
SEL_LABEL = ".tinycomp-label"
#: The explorer's picture: an ipywidgets Image (the class sits on the <img> itself) or a
#: container (for example an HTML widget) holding an <svg> or <img>.
SEL_PICTURE = ".tinycomp-picture"
#: A rendered graph: SVG output (JupyterLab 4 draws it as an <img>) or an explorer picture.
SEL_GRAPH = ", ".join(
    (
        ".jp-RenderedSVG img",
        f"img{SEL_PICTURE}",
        f"{SEL_PICTURE} svg",
        f"{SEL_PICTURE} img",
        ".widget-html-content svg",
    )
)

#: One rendered output; its ``data-mime-type`` says which of the output's keys is shown.
SEL_OUTPUT = ".jp-NotebookPanel .jp-OutputArea-output"
#: An IR listing or diff (``tinycomp.viz.IRText``) and its code column.
SEL_IR_TEXT = ".tinycomp-ir"
SEL_IR_CODE = ".tinycomp-ir-code pre"
#: The button of JupyterLab's "Trust this notebook?" dialog.
SEL_DIALOG_ACCEPT = ".jp-Dialog .jp-mod-accept"

# JavaScript run in the page. ``window.jupyterapp`` exists because the server is started
# with --LabApp.expose_app_in_browser=True.
_JS_KERNEL_STATUS = """
() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
    && panel.sessionContext.session.kernel;
  return kernel ? kernel.status : null;
}
"""
_JS_NOTEBOOK_JSON = """
() => {
  const panel = window.jupyterapp.shell.currentWidget;
  return panel.context.model.toJSON();
}
"""
# Prompt of every code cell with source: "[*]" running/queued, "[3]" done, "[ ]" not run.
_JS_PROMPTS = """
() => Array.from(document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-CodeCell'))
  .filter(cell => {
    const editor = cell.querySelector('.cm-content');
    return editor && editor.textContent.trim().length > 0;
  })
  .map(cell => {
    const prompt = cell.querySelector('.jp-InputPrompt');
    return prompt ? prompt.textContent.trim() : '';
  })
"""
_JS_GRAPH_STATE = """
(node) => {
  const box = node.getBoundingClientRect();
  const decoded = node.tagName.toLowerCase() !== 'img' || (node.complete && node.naturalWidth > 0);
  return {width: box.width, height: box.height, decoded: decoded};
}
"""

# What each output shows: the mime type rendered and, for a picture, whether it decoded.
_JS_OUTPUTS = """
() => Array.from(document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output'))
  .map(node => {
    const img = node.querySelector('img');
    const box = img ? img.getBoundingClientRect() : null;
    return {
      mime: node.getAttribute('data-mime-type'),
      image: img ? {decoded: img.complete && img.naturalWidth > 0,
                    width: box.width, height: box.height} : null,
    };
  })
"""
# Each IR listing: its rows, their heights (a wrapped row is taller), how many tokens are
# coloured, the white-space of the code, and the scroll widths of its scrolling boxes.
_JS_IR_TEXTS = """
() => Array.from(document.querySelectorAll('.jp-NotebookPanel .tinycomp-ir'))
  .filter(box => !box.closest('.tinycomp-explorer'))  // stored outputs, not a live explorer's
  .map(box => {
  const rows = Array.from(box.querySelectorAll('.tinycomp-ir-code pre > span'));
  const plain = getComputedStyle(box).color;
  const tokens = Array.from(box.querySelectorAll('.tinycomp-ir-code pre > span > span'));
  const scrollers = [box, ...box.querySelectorAll('div')]
    .filter(node => getComputedStyle(node).overflowX === 'auto');
  return {
    rows: rows.map(row => row.textContent),
    heights: rows.map(row => row.getBoundingClientRect().height),
    coloured: tokens.filter(token => getComputedStyle(token).color !== plain).length,
    whiteSpace: Array.from(box.querySelectorAll('pre'))
      .map(pre => getComputedStyle(pre).whiteSpace),
    scroll: scrollers.map(node => [node.scrollWidth, node.clientWidth]),
    misaligned: Array.from(box.querySelectorAll('.tinycomp-ir-lines')).map(table => {
      const tops = (kind) => Array.from(table.querySelectorAll(`.tinycomp-ir-${kind} pre > span`))
        .map(row => row.getBoundingClientRect().top);
      const numbers = tops('numbers');
      const code = tops('code');
      const off = code.filter((top, i) => Math.abs(top - numbers[i]) > 1);
      return numbers.length === 0 ? 0 : off.length;
    }).reduce((a, b) => a + b, 0),
  };
})
"""
_JS_SELECTION = "() => window.getSelection().toString()"
# The right edge of the part of an element that is visible in its sideways-scrolling box.
_JS_VISIBLE_RIGHT = """
(node) => {
  let box = node.parentElement;
  while (box && getComputedStyle(box).overflowX !== 'auto') { box = box.parentElement; }
  return box ? box.getBoundingClientRect().right : window.innerWidth;
}
"""
_JS_TRUSTED = """
() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type === 'code' && cell.outputs.length && !cell.trusted) { return false; }
  }
  return true;
}
"""

#: A visible stderr output is taken for an error traceback if a line matches this. Warnings
#: also go to stderr but look like ``file.py:3: UserWarning: text`` and do not match.
_TRACEBACK_LINE = re.compile(
    r"^(?:.*Traceback \(most recent call last\)|\w*(?:Error|Exception)(?::.*)?)\s*$",
    re.MULTILINE,
)


@dataclass
class RunResult:
    """What a Run All left behind."""

    prompts: list[str]
    error_outputs: list[dict[str, Any]]
    """Error outputs of the notebook model (``output_type == "error"``)."""
    traceback_texts: list[str]
    """Visible stderr outputs that look like an error traceback."""
    stderr_texts: list[str]
    """All visible stderr outputs (warnings included)."""


class NotebookDriver:
    """Operate one notebook opened in JupyterLab through a Playwright page."""

    def __init__(self, page: Page, server: LabServer, notebook: str) -> None:
        self.page = page
        self.server = server
        self.notebook = notebook
        self.console_errors: list[str] = []
        page.on("pageerror", lambda exc: self.console_errors.append(f"pageerror: {exc}"))
        page.on("console", self._on_console)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.console_errors.append(f"console.error: {message.text}")

    # -- opening and running ---------------------------------------------------------

    def open(self) -> None:
        """Open the notebook in a reset workspace and wait for an idle kernel."""
        self.page.goto(
            self.server.url(f"lab/tree/{self.notebook}?reset"),
            timeout=PAGE_READY_TIMEOUT * 1000,
        )
        self.page.locator(SEL_NOTEBOOK).first.wait_for(
            state="visible", timeout=PAGE_READY_TIMEOUT * 1000
        )
        wait_for(
            lambda: self.page.evaluate(_JS_KERNEL_STATUS) == "idle",
            PAGE_READY_TIMEOUT,
            f"an idle kernel for {self.notebook}",
            self.describe,
        )

    def prompts(self) -> list[str]:
        """Return the input prompts of all non-empty code cells, e.g. ``["[1]:", "[*]:"]``."""
        return list(self.page.evaluate(_JS_PROMPTS))

    def run_all(self, timeout: float = RUN_ALL_TIMEOUT) -> RunResult:
        """Click Run -> Run All Cells and wait until execution has settled.

        Settled means: no cell queued or running (no ``[*]`` prompt) and the kernel idle,
        seen twice in a row. Execution stops at the first error, so cells after it may
        have no execution count; :class:`RunResult` reports what happened.
        """
        menu_bar = self.page.locator(SEL_MAIN_MENU)
        menu_bar.get_by_role("menuitem", name="Run", exact=True).click()
        self.page.locator(SEL_RUN_ALL_ITEM).first.click()
        wait_for(
            lambda: not (prompts := self.prompts()) or any(p != "[ ]:" for p in prompts),
            PAGE_READY_TIMEOUT,
            "Run All Cells to start",
            self.describe,
        )
        settled_once = False

        def settled() -> bool:
            nonlocal settled_once
            prompts = self.prompts()
            quiet = all("*" not in p for p in prompts)
            quiet = quiet and self.page.evaluate(_JS_KERNEL_STATUS) == "idle"
            was_settled, settled_once = settled_once, quiet
            return quiet and was_settled

        wait_for(settled, timeout, f"Run All Cells of {self.notebook} to finish", self.describe)
        return self.collect_run_result()

    def collect_run_result(self) -> RunResult:
        """Read execution state and errors from the notebook model and the page."""
        model = self.page.evaluate(_JS_NOTEBOOK_JSON)
        errors = [
            output
            for cell in model.get("cells", [])
            if cell.get("cell_type") == "code"
            for output in cell.get("outputs", [])
            if output.get("output_type") == "error"
        ]
        stderr_texts = self.page.locator(SEL_STDERR_OUTPUT).all_inner_texts()
        tracebacks = [text for text in stderr_texts if _TRACEBACK_LINE.search(text)]
        return RunResult(self.prompts(), errors, tracebacks, stderr_texts)

    # -- pictures and widgets --------------------------------------------------------

    def wait_for_graph(self, timeout: float = WIDGET_TIMEOUT) -> Locator:
        """Wait for a rendered graph with a non-empty, decoded picture; return it."""
        graph = self.page.locator(SEL_GRAPH).first
        graph.wait_for(state="attached", timeout=timeout * 1000)
        graph.scroll_into_view_if_needed(timeout=timeout * 1000)

        def shown() -> bool:
            state = graph.evaluate(_JS_GRAPH_STATE)
            return bool(state["decoded"] and state["width"] > 10 and state["height"] > 10)

        wait_for(shown, timeout, "the rendered graph to be visible and decoded", self.describe)
        return graph

    def explorer_slider(self, timeout: float = WIDGET_TIMEOUT) -> Locator:
        """Return the slider that drives a ``tinycomp-label``/``tinycomp-picture``.

        Looked for, in order: in a ``tinycomp-explorer`` box, in the output area that
        holds the label (or picture), and finally anywhere in the notebook.
        """
        first_slider = self.page.locator(SEL_SLIDER).first
        first_slider.wait_for(state="visible", timeout=timeout * 1000)
        scopes = [self.page.locator(SEL_EXPLORER)]
        for marker in (SEL_LABEL, SEL_PICTURE):
            scopes.append(self.page.locator(".jp-OutputArea", has=self.page.locator(marker)))
        for scope in scopes:
            sliders = scope.locator(SEL_SLIDER)
            if sliders.count():
                return sliders.first
        return first_slider

    def explorer_state(self) -> list[str]:
        """Snapshot the explorer's label(s) and picture(s), in page order.

        An element counts by its HTML; an ``<img>`` (the ipywidgets Image) by its ``src``,
        which gets a new blob URL whenever the picture is redrawn.
        """
        return self.page.locator(f"{SEL_LABEL}, {SEL_PICTURE}").evaluate_all(
            "nodes => nodes.map(node => node.tagName === 'IMG' ? node.src : node.innerHTML)"
        )

    def slider_readout(self, slider: Locator) -> str:
        """Return the value shown next to ``slider``."""
        return slider.locator(SEL_SLIDER_READOUT).inner_text().strip()

    def nudge_slider(self, slider: Locator, presses: int = 3) -> None:
        """Move ``slider`` with the keyboard.

        Focuses the slider handle and presses ArrowRight ``presses`` times; if the readout
        does not move (slider already at its maximum) ArrowLeft is used instead.
        """
        slider.scroll_into_view_if_needed()
        handle = slider.locator(SEL_SLIDER_HANDLE).first
        before = self.slider_readout(slider)
        for key in ("ArrowRight", "ArrowLeft"):
            handle.focus()
            for _ in range(presses):
                handle.press(key)
            try:
                wait_for(lambda: self.slider_readout(slider) != before, 5.0, "a new readout")
            except AssertionError:
                continue
            return
        raise AssertionError(f"the slider did not move with the arrow keys (readout {before!r})")

    def wait_for_explorer_update(
        self, before: list[str], timeout: float = WIDGET_TIMEOUT, quiet_for: float = 1.0
    ) -> list[str]:
        """Wait until the explorer differs from ``before`` and has stopped changing.

        Each key press sends the kernel an update and the label follows them one by one,
        so the state counts as final once the kernel is idle and the label and picture
        have stayed the same for ``quiet_for`` seconds.
        """
        last: list[str] | None = None
        last_change = time.monotonic()

        def probe() -> list[str] | None:
            nonlocal last, last_change
            state = self.explorer_state()
            idle = self.page.evaluate(_JS_KERNEL_STATUS) == "idle"
            if state != last or not idle:
                last, last_change = state, time.monotonic()
                return None
            if state != before and time.monotonic() - last_change >= quiet_for:
                return state
            return None

        return wait_for(
            probe,
            timeout,
            "the explorer's label or picture to change after moving the slider",
            self.describe,
        )

    # -- stored outputs (a notebook opened without running it) -----------------------

    def outputs(self) -> list[dict[str, Any]]:
        """What every output shows: ``{"mime": rendered mime type, "image": None or
        {"decoded", "width", "height"}}``, in page order."""
        return list(self.page.evaluate(_JS_OUTPUTS))

    def wait_for_outputs(self, count: int, timeout: float = WIDGET_TIMEOUT) -> list[dict[str, Any]]:
        """Wait until ``count`` outputs are rendered and every picture has decoded."""

        def ready() -> list[dict[str, Any]] | None:
            shown = self.outputs()
            images = [o["image"] for o in shown if o["image"] is not None]
            complete = len(shown) >= count and all(image["decoded"] for image in images)
            return shown if complete else None

        return wait_for(ready, timeout, f"{count} rendered outputs", self.describe)

    def ir_texts(self) -> list[dict[str, Any]]:
        """Every IR listing or diff stored as an output on the page (not one an explorer
        widget shows): ``rows`` (the text of each code row),
        ``heights`` (of each row), ``coloured`` (tokens drawn in a colour of their own),
        ``whiteSpace`` (of each ``<pre>``), ``scroll`` (``[scrollWidth, clientWidth]`` of
        each box that scrolls sideways) and ``misaligned`` (code rows not level with their
        line number)."""
        return list(self.page.evaluate(_JS_IR_TEXTS))

    def drag_select_code(self, index: int = 0, rows: int = 3) -> str:
        """Drag the mouse over the code of the ``index``-th IR listing, as a reader copying
        it would: from the left of its first row to the right edge of what is visible of
        row ``rows``. Return the selected text (the last row may be cut where it scrolls)."""
        code = self.page.locator(SEL_IR_CODE).nth(index)
        code.scroll_into_view_if_needed()
        last: dict[str, float] | None = None

        def settled() -> dict[str, float] | None:  # the notebook may still be scrolling
            nonlocal last
            box = code.bounding_box()
            stable = box is not None and box == last
            last = box
            return box if stable else None

        box = wait_for(settled, WIDGET_TIMEOUT, f"IR listing {index} to stop moving", self.describe)
        right = min(box["x"] + box["width"], code.evaluate(_JS_VISIBLE_RIGHT)) - 2
        row_height = self.ir_texts()[index]["heights"][0]
        self.page.mouse.move(box["x"] + 1, box["y"] + row_height / 2)
        self.page.mouse.down()
        self.page.mouse.move(right, box["y"] + row_height * (rows - 0.5), steps=10)
        self.page.mouse.up()
        return str(self.page.evaluate(_JS_SELECTION))

    def trust(self, timeout: float = WIDGET_TIMEOUT) -> None:
        """Trust the open notebook (File > Trust Notebook, then the dialog's button) and
        wait until its outputs are rendered as trusted."""
        self.page.evaluate("() => { window.jupyterapp.commands.execute('notebook:trust'); }")
        self.page.locator(SEL_DIALOG_ACCEPT).click(timeout=timeout * 1000)
        wait_for(
            lambda: self.page.evaluate(_JS_TRUSTED), timeout, "the trusted outputs", self.describe
        )

    def output_screenshot(self, index: int, name: str) -> Path:
        """Save a screenshot of the ``index``-th output under ``test-artifacts/browser/``."""
        ARTIFACT_DIR.mkdir(parents=True, exist_ok=True)
        path = ARTIFACT_DIR / f"{name}.png"
        self.page.locator(SEL_OUTPUT).nth(index).screenshot(path=str(path))
        print(f"screenshot: {path}")
        return path

    # -- diagnostics -----------------------------------------------------------------

    def describe(self) -> str:
        """Summarise the page state for failure messages."""
        try:
            prompts = self.prompts()
            kernel = self.page.evaluate(_JS_KERNEL_STATUS)
        except Exception as exc:  # diagnostics must never raise
            return f"(page state unavailable: {exc})"
        lines = [f"kernel status: {kernel}", f"cell prompts: {prompts}"]
        if self.console_errors:
            lines.append("browser errors:\n  " + "\n  ".join(self.console_errors[-10:]))
        lines.append(f"--- server log tail ---\n{self.server.log_tail(20)}")
        return "\n".join(lines)

    def screenshot(self, name: str) -> Path:
        """Save a full-page screenshot under ``test-artifacts/browser/`` and print its path."""
        ARTIFACT_DIR.mkdir(parents=True, exist_ok=True)
        path = ARTIFACT_DIR / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path
