"""Real MLIR (``mlir-opt-22``) as the peer that tinycomp's IR timings are compared with.

tinycomp's IR text is MLIR's, so the very module tinycomp printed can be handed to
``mlir-opt`` and the same work timed there:

1. ``parse+verify+print``: ``mlir-opt-22 FILE -o /dev/null`` parses the file, verifies
   it and prints it (to ``/dev/null``).
2. ``canonicalize+cse``: ``mlir-opt-22 FILE --canonicalize --cse -o /dev/null``, the
   pipeline closest to tinycomp's ``canonicalize`` and ``cse`` passes. It parses,
   verifies and prints too, so it is compared with tinycomp's parse + verify +
   canonicalize + cse + print.

Each command is a new process, so its wall-clock time includes the process start-up
(loading the binary and its shared libraries, registering every dialect).
:func:`startup_seconds` measures that once on an empty module, so a report can show
the time with and without it. Every figure is the best of ``repeats`` runs: the
minimum is the run least disturbed by whatever else the machine was doing.

Example::

    from mlir_peer import MLIR_OPT, peer_seconds, startup_seconds
    if MLIR_OPT is not None:
        print(startup_seconds(), peer_seconds("module {}"))
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["MLIR_OPT", "PEER_PIPELINES", "best_of", "peer_seconds", "startup_seconds"]

MLIR_OPT = shutil.which("mlir-opt-22")
"""Path of ``mlir-opt-22``, or ``None`` when it is not installed (package mlir-22-tools)."""

PEER_PIPELINES: dict[str, tuple[str, ...]] = {
    "parse+verify+print": (),
    "canonicalize+cse": ("--canonicalize", "--cse"),
}
"""Name of each measured pipeline -> the ``mlir-opt`` flags that run it."""


def best_of(command: list[str], repeats: int = 3) -> float:
    """The shortest wall-clock time, in seconds, of ``repeats`` runs of ``command``.

    A run that fails raises ``RuntimeError`` with ``mlir-opt``'s diagnostics: a time
    for a rejected module would be meaningless.

    >>> best_of(["true"]) > 0
    True
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command)} failed (exit status {result.returncode}):\n"
                f"{result.stderr[:2000]}"
            )
        best = min(best, elapsed)
    return best


def peer_seconds(text: str, repeats: int = 3) -> dict[str, float]:
    """Best-of-``repeats`` seconds of each of :data:`PEER_PIPELINES` on the module ``text``.

    The text is written to a temporary file, as a user would run ``mlir-opt`` on a
    file. Requires ``mlir-opt-22`` (:data:`MLIR_OPT` is not ``None``).

    >>> if MLIR_OPT:  # doctest: +SKIP
    ...     sorted(peer_seconds("module {}"))
    ['canonicalize+cse', 'parse+verify+print']
    """
    if MLIR_OPT is None:
        raise RuntimeError("mlir-opt-22 is not on PATH (Debian package mlir-22-tools)")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "module.mlir"
        path.write_text(text)
        return {
            name: best_of([MLIR_OPT, str(path), *flags, "-o", "/dev/null"], repeats)
            for name, flags in PEER_PIPELINES.items()
        }


def startup_seconds(repeats: int = 3) -> float:
    """Best-of-``repeats`` seconds of ``mlir-opt-22`` on an empty module: its start-up cost.

    >>> if MLIR_OPT:  # doctest: +SKIP
    ...     startup_seconds() < 1.0
    True
    """
    return peer_seconds("module {}\n", repeats)["parse+verify+print"]
