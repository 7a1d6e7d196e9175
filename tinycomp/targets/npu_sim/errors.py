"""The errors the NPU simulator raises.

* ``NpuArgumentError``: the launch arguments do not fit the kernel (count, shape, dtype);
* ``NpuLaunchError``: the launch breaks a limit of the preset (more blocks than AI
  cores, a kernel type that does not match the ops the kernel uses);
* ``NpuSanitizerError``: the kernel did something the chip would get wrong or hang on;
  ``kind`` says what: ``"overflow"`` (a buffer past its space), ``"misaligned"`` (a DMA
  length or an on-chip address not on 32 bytes), ``"out-of-bounds"`` (an access past a
  buffer), ``"hazard"`` (two pipes touch the same bytes with no flag between them),
  ``"deadlock"`` (a wait that is never set), ``"event"`` (an event id out of range, a
  flag set twice before its wait), ``"wrong-core"`` (a cube op on a vector core or a
  vector op on the cube core), ``"repeat"`` (a vector instruction's repeats or mask).

Every message names the op, its source line and the core. The simulator works on copies
of the arrays and writes them back only when the run succeeds, so every error leaves
the user's arrays as they were.

>>> error = NpuSanitizerError("hazard", "a hazard", line=12, core="AIV 0.0")
>>> error.kind, error.line, error.core, isinstance(error, NpuSimulatorError)
('hazard', 12, 'AIV 0.0', True)
"""

from __future__ import annotations

from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation

__all__ = [
    "SANITIZER_KINDS", "UNCHANGED", "NpuArgumentError", "NpuLaunchError", "NpuSanitizerError",
    "NpuSimulatorError", "op_text", "sanitizer_error",
]  # fmt: skip

UNCHANGED = "no array was changed"
"""How every error message ends."""

SANITIZER_KINDS = (
    "overflow", "misaligned", "out-of-bounds", "hazard", "deadlock", "event", "wrong-core",
    "repeat", "uninitialized",
)  # fmt: skip


class NpuSimulatorError(Exception):
    """Base of every error the NPU simulator raises on purpose."""


class NpuArgumentError(NpuSimulatorError, TypeError):
    """The arguments do not fit the kernel."""


class NpuLaunchError(NpuSimulatorError, ValueError):
    """The launch breaks a limit of the preset."""


class NpuSanitizerError(NpuSimulatorError):
    """The kernel did something a real NPU would get wrong (or hang on)."""

    def __init__(
        self, kind: str, message: str, line: int | None = None, core: str | None = None
    ) -> None:
        if kind not in SANITIZER_KINDS:
            raise ValueError(f"unknown sanitizer error kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        """One of ``SANITIZER_KINDS``."""
        self.line = line
        """The source line of the op at fault."""
        self.core = core
        """The core it ran on: ``"AIV 3.1"``."""


def op_text(op: Operation) -> str:
    """``'npu.vadd' at line 12``: an op as messages name it.

    >>> op_text(Operation.create("npu.vadd"))
    "'npu.vadd'"
    """
    return f"'{op.name}'{describe_location(op.location)}"


def sanitizer_error(kind: str, op: Operation, core: str, message: str) -> NpuSanitizerError:
    """A sanitizer error that starts with the op, its line and the core.

    >>> print(sanitizer_error("event", Operation.create("npu.set_flag"), "AIV 0.0", "bad id"))
    'npu.set_flag' on AIV 0.0: bad id; no array was changed
    """
    line = op.location.line if op.location is not None else None
    return NpuSanitizerError(
        kind, f"{op_text(op)} on {core}: {message}; {UNCHANGED}", line=line, core=core
    )
