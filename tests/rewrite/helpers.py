"""Small helpers shared by the rewrite tests."""

from __future__ import annotations

from tinycomp.ir import Operation, parse
from tinycomp.rewrite import RewriteListener


def function_ops(text: str) -> tuple[Operation, list[Operation]]:
    """Parse ``text`` (one function) and return the module and the ops of its entry block."""
    module = parse(text)
    return module, module.body.first_op.entry_block.ops


def body_text(module: Operation) -> str:
    """The printed first function of ``module``."""
    return str(module.body.first_op)


class RecordingListener(RewriteListener):
    """Remembers every notification as ``(kind, op name)``."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def notify_op_inserted(self, op: Operation) -> None:
        self.events.append(("inserted", op.name))

    def notify_op_modified(self, op: Operation) -> None:
        self.events.append(("modified", op.name))

    def notify_op_replaced(self, op: Operation, new_values) -> None:
        self.events.append(("replaced", op.name))

    def notify_op_erased(self, op: Operation) -> None:
        self.events.append(("erased", op.name))
