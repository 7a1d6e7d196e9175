"""Small helpers shared by the IR tests."""

from __future__ import annotations

from pathlib import Path

from tinycomp.ir import Operation, Use

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_FILES = sorted(GOLDEN_DIR.glob("*.mlir"))


def without_comment_lines(text: str) -> str:
    """The golden text as the printer writes it: full-line ``//`` comments removed (they
    explain the file; the printer does not keep comments) and no final newline."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(lines).rstrip("\n")


def check_use_lists(root: Operation) -> None:
    """Assert that operands and use lists agree everywhere under ``root``: every operand
    slot is in its value's uses, and every use of a value defined under ``root`` points
    at an op that really reads it there."""
    for op in root.walk():
        for index, value in enumerate(op.operands):
            assert Use(op, index) in value._uses, f"{op.name} operand #{index} missing a use"
        defined = list(op.results)
        for region in op.regions:
            for block in region.blocks:
                defined.extend(block.arguments)
        for value in defined:
            for use in value.uses:
                assert use.user.operands[use.index] is value, f"stale use of a value of {op.name}"
