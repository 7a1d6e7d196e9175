"""The errors the SIMT simulator raises, in the words of NVIDIA's compute-sanitizer.

Three kinds of mistake reach the user:

* ``ArgumentError``: the arguments do not match the kernel's signature (count, rank,
  element type, a scalar's type, an array that is not C-contiguous or not writeable);
* ``LaunchError``: the launch breaks one of the preset's limits (threads per block,
  block or grid dimensions, shared memory per block);
* ``SanitizerError``: the kernel itself did something wrong while it ran; ``kind``
  says what (``"out-of-bounds"``, ``"uninitialized"``, ``"race"``,
  ``"barrier-divergence"``, ``"shuffle"``, ``"step-limit"``, ``"arithmetic"``).

Every message names the kernel, and a sanitizer error the source line, the block, the
warp and lane, and the thread. The simulator works on copies, so every error message
ends by saying that the user's arrays were left as they were.

>>> error = SanitizerError("race", "kernel 'k': a race", line=7)
>>> error.kind, error.line, isinstance(error, SimulatorError)
('race', 7, True)
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ArgumentError", "LaunchError", "SanitizerError", "SimulatorError"]

UNCHANGED = "no array was changed"
"""How every error message ends: the simulator wrote nothing back."""

SANITIZER_KINDS = (
    "out-of-bounds",
    "uninitialized",
    "race",
    "barrier-divergence",
    "shuffle",
    "step-limit",
    "arithmetic",
    "unsupported",
)
"""The kinds of ``SanitizerError``."""


class SimulatorError(Exception):
    """Base of every error the simulator raises on purpose."""


class ArgumentError(SimulatorError, TypeError):
    """The arguments do not fit the kernel's signature."""


class LaunchError(SimulatorError, ValueError):
    """The launch configuration breaks a limit of the preset."""


class SanitizerError(SimulatorError):
    """The kernel did something a real GPU would get wrong (or hang on).

    >>> SanitizerError("out-of-bounds", "bad").kind
    'out-of-bounds'
    """

    def __init__(self, kind: str, message: str, line: int | None = None) -> None:
        if kind not in SANITIZER_KINDS:
            raise ValueError(f"unknown sanitizer error kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.line = line


def format_index(index: Sequence[int]) -> str:
    """``[5, 17]``.

    >>> format_index((5, 17))
    '[5, 17]'
    """
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def format_shape(shape: Sequence[int]) -> str:
    """``(16, 16)``, and ``(8,)`` for one dimension.

    >>> format_shape((16, 16)), format_shape((8,))
    ('(16, 16)', '(8,)')
    """
    return str(tuple(int(s) for s in shape))


def thread_text(block: Sequence[int], warp: int, lane: int, thread: Sequence[int]) -> str:
    """Where one thread is, as compute-sanitizer says it.

    >>> thread_text((1, 0, 0), 2, 5, (69, 0, 0))
    'block (1, 0, 0), warp 2, lane 5 (thread (69, 0, 0))'
    """
    return f"block {format_shape(block)}, warp {warp}, lane {lane} (thread {format_shape(thread)})"
