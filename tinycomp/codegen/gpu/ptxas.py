"""What ``ptxas`` says about a kernel: registers, spills, shared memory, stack.

``ptxas`` is NVIDIA's assembler from PTX to SASS, the GPU's real instruction set; it
allocates registers, so only it knows how many a kernel needs (and so how many warps
fit on an SM). With ``-v`` it reports, per kernel::

    ptxas info    : Compiling entry function 'k' for 'sm_90'
    ptxas info    : Function properties for k
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 30 registers, used 1 barriers, 8448 bytes smem, 400 bytes cmem[0]

1. Find ``ptxas`` (``find_ptxas``): on ``PATH`` (it comes with the CUDA toolkit) or,
   failing that, in an installed ``nvidia-cuda-nvcc`` wheel (``nvidia/cu13/bin/ptxas``,
   ``nvidia/cuda_nvcc/bin/ptxas`` for CUDA 12). Without it, ``ptxas_report`` returns
   ``None`` and ``ptxas_unavailable()`` says why.
2. Write the PTX to a temporary directory and run ``ptxas -arch=<arch> -v``.
3. A PTX that does not assemble is a ``CodegenError`` with ptxas's message.
4. Parse the report: one ``KernelResources`` per kernel.

>>> report = ptxas_report(".version 7.0\\n.target sm_80\\n.address_size 64\\n"
...                       ".visible .entry k()\\n{\\n\\tret;\\n}\\n", "sm_80")
>>> report is None or report.kernels["k"].spill_stores == 0
True
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tinycomp.codegen.errors import CodegenError

__all__ = [
    "KernelResources",
    "PtxasReport",
    "WHEEL_PTXAS",
    "find_ptxas",
    "ptxas_report",
    "ptxas_unavailable",
]

WHEEL_PTXAS = ("nvidia/cu13/bin/ptxas", "nvidia/cuda_nvcc/bin/ptxas")
"""Where the ``nvidia-cuda-nvcc`` wheels put ptxas, under ``site-packages``."""


@dataclass(frozen=True)
class KernelResources:
    """What one kernel uses, as ``ptxas -v`` reports it."""

    registers: int
    """32-bit registers per thread."""
    spill_stores: int
    """Bytes stored to local memory because registers ran out."""
    spill_loads: int
    """Bytes loaded back from those spills."""
    shared_bytes: int
    """Static shared memory per block (``smem``)."""
    stack_frame: int
    """Bytes of stack frame per thread (local arrays that stayed in memory)."""


@dataclass(frozen=True)
class PtxasReport:
    """``ptxas -v``'s report on one PTX module."""

    arch: str
    """The architecture it assembled for (``sm_80``)."""
    kernels: dict[str, KernelResources]
    """Kernel name -> what it uses."""
    log: str = field(repr=False, default="")
    """ptxas's output as it printed it."""


def find_ptxas(path: str | None = None, roots: list[str] | None = None) -> str | None:
    """Step 1: the ``ptxas`` to run: the one on ``path`` (default ``PATH``) first, then one
    inside an ``nvidia-cuda-nvcc`` wheel under ``roots`` (default ``sys.path``); or ``None``.

    >>> find_ptxas(path="", roots=[]) is None
    True
    """
    found = shutil.which("ptxas", path=path)
    if found is not None:
        return found
    for root in sys.path if roots is None else roots:
        for relative in WHEEL_PTXAS:
            candidate = os.path.join(root or ".", *relative.split("/"))
            if sys.platform == "win32":
                candidate += ".exe"
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return None


def ptxas_unavailable() -> str | None:
    """Step 1: why ``ptxas`` cannot run here, or ``None`` when it can.

    >>> ptxas_unavailable() is None or "PATH" in ptxas_unavailable()
    True
    """
    if find_ptxas() is None:
        return (
            "ptxas is not on PATH (it comes with the CUDA toolkit) nor in an installed "
            "nvidia-cuda-nvcc wheel (pip install nvidia-cuda-nvcc)"
        )
    return None


def ptxas_report(ptx: str, arch: str) -> PtxasReport | None:
    """Steps 1-4: assemble ``ptx`` for ``arch`` and read what each kernel uses; ``None``
    when ptxas is absent (``ptxas_unavailable()`` says why)."""
    executable = find_ptxas()
    if executable is None:
        return None
    with tempfile.TemporaryDirectory() as directory:  # step 2
        source = Path(directory) / "kernel.ptx"
        source.write_text(ptx)
        cubin = source.with_suffix(".cubin")
        command = [executable, f"-arch={arch}", "-v", str(source), "-o", str(cubin)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    log = (done.stdout + done.stderr).replace(str(source), "kernel.ptx")
    if done.returncode != 0:  # step 3
        raise CodegenError(f"ptxas rejected the PTX for {arch}:\n{log.strip()}")
    return PtxasReport(arch, parse_ptxas_log(log), log)


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas_log(log: str) -> dict[str, KernelResources]:
    """Step 4: the resources of each kernel named in a ``ptxas -v`` log.

    >>> log = '''ptxas info    : Compiling entry function 'k' for 'sm_90'
    ... ptxas info    : Function properties for k
    ...     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
    ... ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]'''
    >>> parse_ptxas_log(log)["k"]
    KernelResources(registers=12, spill_stores=4, spill_loads=4, shared_bytes=1024, stack_frame=8)
    """
    found: dict[str, dict[str, int]] = {}
    current = None
    for line in log.splitlines():
        if match := _ENTRY.search(line) or _PROPERTIES.search(line):
            current = found.setdefault(match.group(1), {})
        elif current is None:
            continue
        elif match := _FRAME.search(line):
            current["stack_frame"], current["spill_stores"], current["spill_loads"] = (
                int(g) for g in match.groups()
            )
        elif match := _USED.search(line):
            current["registers"] = int(match.group(1))
            smem = _SMEM.search(line)
            current["shared_bytes"] = int(smem.group(1)) if smem else 0
    return {
        name: KernelResources(
            registers=values.get("registers", 0),
            spill_stores=values.get("spill_stores", 0),
            spill_loads=values.get("spill_loads", 0),
            shared_bytes=values.get("shared_bytes", 0),
            stack_frame=values.get("stack_frame", 0),
        )
        for name, values in found.items()
    }
