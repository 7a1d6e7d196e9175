"""The `tinycomp` command.

    tinycomp --version
    tinycomp grade [CHAPTER ...] [--solutions] [--json FILE] [--timeout S] [--root DIR] [--verbose]

This file only reads the command line; the work happens in `tinycomp.grading`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tinycomp import __version__
from tinycomp.grading.grader import DEFAULT_TIMEOUT, grade
from tinycomp.grading.gradescope import write_gradescope_results
from tinycomp.grading.report import print_report
from tinycomp.grading.tasks import GradingError

__all__ = ["build_parser", "main"]

EXIT_ALL_PASSED, EXIT_NOT_ALL_PASSED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `tinycomp` command, with one subcommand per job.

    >>> build_parser().parse_args(["grade", "ch00", "--solutions"]).solutions
    True
    """
    parser = argparse.ArgumentParser(
        prog="tinycomp", description="tinycomp: a teaching kit for GPU/NPU compiler engineering."
    )
    parser.add_argument("--version", action="version", version=f"tinycomp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    grade_parser = commands.add_parser(
        "grade",
        help="grade your exercises",
        description="Run the graded tests of the chosen chapters and show one row per task. "
        "Exits with 0 only if every task passed.",
    )
    grade_parser.add_argument(
        "chapters", nargs="*", metavar="CHAPTER", help="chapters to grade, e.g. ch00 (default: all)"
    )
    grade_parser.add_argument(
        "--solutions", action="store_true", help="grade the reference answers in solutions/"
    )
    grade_parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write Gradescope's results.json to FILE"
    )
    grade_parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"seconds each test may run (default: {DEFAULT_TIMEOUT:g})",
    )
    grade_parser.add_argument(
        "--root", type=Path, metavar="DIR", help="the project folder (default: found from here)"
    )
    grade_parser.add_argument(
        "--verbose", "-v", action="store_true", help="show all the feedback of each task"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the `tinycomp` command; return its exit status.

    >>> main(["grade", "ch99"])  # doctest: +SKIP
    tinycomp grade: no chapter 'ch99'; chapters with exercises: ch00_warmup
    2
    """
    arguments = build_parser().parse_args(argv)
    if arguments.command == "grade":
        return _grade(arguments)
    raise AssertionError(f"unhandled command {arguments.command!r}")


def _grade(arguments: argparse.Namespace) -> int:
    """`tinycomp grade`: grade, print the report (`report.print_report`), write results.json."""
    try:
        report = grade(
            arguments.chapters,
            root=arguments.root,
            implementation="solutions" if arguments.solutions else "exercises",
            timeout=arguments.timeout,
        )
    except GradingError as error:
        print(f"tinycomp grade: {error}", file=sys.stderr)
        return EXIT_USAGE
    print_report(report, verbose=arguments.verbose)
    if arguments.json:
        try:
            write_gradescope_results(report, arguments.json)
        except OSError as error:
            print(f"tinycomp grade: cannot write {arguments.json}: {error}", file=sys.stderr)
            return EXIT_USAGE
    return EXIT_ALL_PASSED if report.all_passed else EXIT_NOT_ALL_PASSED


if __name__ == "__main__":
    sys.exit(main())
