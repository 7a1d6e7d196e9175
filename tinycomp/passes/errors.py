"""The exception class of the pass layer.

``PassError`` is raised for a pipeline that cannot be built (an unknown pass name, a
syntax error in the pipeline text) and for a pipeline that fails while running: a pass
raised an error, or the IR no longer verifies after a pass. The message names the
pass; ``partial_result`` keeps what the run produced up to the failure (its stages and
timings), so a notebook can show the IR just before and after the pass that broke it.

>>> raise PassError("unknown pass 'cse2'; known passes: canonicalize, cse, dce")
Traceback (most recent call last):
...
tinycomp.passes.errors.PassError: unknown pass 'cse2'; known passes: canonicalize, cse, dce
"""

from __future__ import annotations

from typing import Any

__all__ = ["PassError"]


class PassError(Exception):
    """A pipeline that cannot be built or that failed while running."""

    def __init__(self, message: str, pass_name: str | None = None, partial_result: Any = None):
        self.message = message
        """What went wrong, naming the pass."""
        self.pass_name = pass_name
        """The pass at fault (its name in the pipeline), when there is one."""
        self.partial_result = partial_result
        """The ``PipelineResult`` up to the failure, when the pipeline was running."""
        super().__init__(message)
