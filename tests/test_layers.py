"""The layers of ``docs/architecture.md`` hold: ``lint-imports`` checks every contract.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``), one per forbidden
arrow, each named for what it forbids: the layers point down; the IR core imports no
dialect; code generation imports only the IR, the dialects and its own pieces; only the
command line and the tour import the top package. An import inside a function counts
as much as one at the top of a file. import-linter comes with the ``[dev]`` extra, so a
missing tool is a failure here, not a skip.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {contract["id"]: contract for contract in CONFIG["contracts"]}

BROKEN_TODAY: dict[str, str] = {}
"""Contracts that the code breaks today, and how. Each is an expected failure that must
stay one: once the code keeps the contract, its entry here has to go (strict xfail)."""


def lint_imports_command() -> list[str]:
    """``lint-imports`` next to this interpreter, else the one on PATH."""
    beside = Path(sys.executable).with_name("lint-imports")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("lint-imports")
    if found is None:
        pytest.fail(
            "lint-imports is not installed: it comes with the [dev] extra "
            "(pip install -e '.[dev]'), and CI checks the layers with it"
        )
    return [found]


@pytest.mark.parametrize(
    "contract_id",
    [
        pytest.param(
            contract_id,
            marks=pytest.mark.xfail(strict=True, reason=BROKEN_TODAY[contract_id])
            if contract_id in BROKEN_TODAY
            else (),
        )
        for contract_id in CONTRACTS
    ],
)
def test_contract_is_kept(contract_id: str) -> None:
    command = [*lint_imports_command(), "--no-cache", "--no-logo", "--contract", contract_id]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    name = CONTRACTS[contract_id]["name"]
    assert result.returncode == 0, (
        f"contract {contract_id!r} ({name}) is broken:\n{result.stdout}{result.stderr}"
    )


def test_no_contract_hides_a_violation() -> None:
    hiding = [cid for cid, contract in CONTRACTS.items() if contract.get("ignore_imports")]
    assert hiding == [], f"contracts with ignore_imports (forbidden here): {hiding}"


def test_the_layers_cover_every_package() -> None:
    layers = CONTRACTS["layers"]
    assert layers.get("exhaustive") is True, "the layers contract must declare every package"
    names = {
        tail.strip().strip("()")
        for layer in layers["layers"]
        for tail in layer.replace("|", ":").split(":")
    }
    packages = {
        path.name if path.is_dir() else path.stem
        for path in (ROOT / "tinycomp").iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and path.stem != "__init__")
    }
    assert packages <= names, f"packages in no layer: {sorted(packages - names)}"


def test_known_breaks_name_real_contracts() -> None:
    assert set(BROKEN_TODAY) <= set(CONTRACTS), sorted(set(BROKEN_TODAY) - set(CONTRACTS))


def test_a_lazy_upward_import_breaks_the_layers(tmp_path: Path) -> None:
    """The check can fail: an import inside a function of a low layer is caught."""
    package = tmp_path / "demo"
    (package / "low").mkdir(parents=True)
    (package / "high").mkdir()
    (package / "__init__.py").write_text("")
    (package / "high" / "__init__.py").write_text("VALUE = 1\n")
    (package / "low" / "__init__.py").write_text(
        "def lazy():\n    from demo.high import VALUE\n\n    return VALUE\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_package = "demo"\n\n'
        '[[tool.importlinter.contracts]]\nname = "demo layers"\ntype = "layers"\n'
        'containers = ["demo"]\nlayers = ["high", "low"]\n'
    )
    command = [*lint_imports_command(), "--no-cache", "--no-logo"]
    environment = {"PYTHONPATH": str(tmp_path), "PATH": ""}
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=environment)
    assert result.returncode != 0, result.stdout + result.stderr
    assert "demo.low is not allowed to import demo.high" in result.stdout, result.stdout
