"""Calling real MLIR (``mlir-opt-22``) from tests: the oracle for tinycomp's text.

Every dialect's corpus can reuse this. From another test package under ``tests/``
(pytest puts ``tests/`` on the import path, so this package is ``ir``)::

    from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

    @pytest.mark.mlir
    @requires_mlir_opt
    def test_accepted():
        run_mlir_opt(text, "--verify-each")              # raises MlirOptError if rejected
        generic = run_mlir_opt(text, "--mlir-print-op-generic")

Tests that use it are marked ``mlir`` and skip, with the reason, where ``mlir-opt-22``
is not on PATH (it comes with the Debian package ``mlir-22-tools``).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

MLIR_OPT = shutil.which("mlir-opt-22")
"""Path of ``mlir-opt-22``, or ``None`` when it is not installed."""

requires_mlir_opt = pytest.mark.skipif(
    MLIR_OPT is None, reason="mlir-opt-22 is not on PATH (Debian package mlir-22-tools)"
)
"""Skip marker for tests that run ``mlir-opt``; combine with ``pytest.mark.mlir``."""


class MlirOptError(AssertionError):
    """``mlir-opt`` rejected the input; the message holds its diagnostics and the input."""


def run_mlir_opt(text: str, *flags: str, allow_unregistered: bool = True) -> str:
    """Run ``mlir-opt-22 flags...`` on ``text`` and return what it prints.

    ``--allow-unregistered-dialect`` is passed unless ``allow_unregistered`` is False, so
    test ops such as ``"test.op"`` are accepted.
    """
    if MLIR_OPT is None:
        pytest.skip("mlir-opt-22 is not on PATH (Debian package mlir-22-tools)")
    command = [MLIR_OPT, *flags]
    if allow_unregistered:
        command.append("--allow-unregistered-dialect")
    result = subprocess.run(command, input=text, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        numbered = "\n".join(f"{n:4}| {line}" for n, line in enumerate(text.splitlines(), 1))
        raise MlirOptError(
            f"mlir-opt {' '.join(flags)} failed:\n{result.stderr}\ninput:\n{numbered}"
        )
    return result.stdout


def strip_mlir_opt_output(text: str) -> str:
    """mlir-opt's output without trailing blank lines (it ends with an empty line)."""
    return text.rstrip("\n")
