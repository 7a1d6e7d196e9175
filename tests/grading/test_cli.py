"""The `tinycomp` command: version, help, and errors without tracebacks."""

import subprocess
import sys
from pathlib import Path

import pytest

from tinycomp import __version__
from tinycomp.cli import build_parser, main
from tinycomp.grading.tasks import discover_chapters

ROOT = Path(__file__).resolve().parents[2]

RUN_CLI = "import sys; from tinycomp.cli import main; sys.exit(main())"


def tinycomp_process(*args: str) -> subprocess.CompletedProcess:
    """Run `tinycomp ARGS` as a separate process, like the installed command does."""
    command = [sys.executable, "-c", RUN_CLI, *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def test_version(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"tinycomp {__version__}"


def test_a_command_is_required(capsys):
    with pytest.raises(SystemExit) as caught:
        main([])
    assert caught.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_grade_options():
    arguments = build_parser().parse_args(
        ["grade", "ch00", "ch01", "--solutions", "--json", "r.json", "--timeout", "5"]
    )
    assert arguments.chapters == ["ch00", "ch01"]
    assert arguments.solutions and arguments.timeout == 5.0
    assert str(arguments.json) == "r.json"


def test_a_bad_timeout_is_refused(tinycomp):
    run = tinycomp("grade", "--timeout", "0")
    assert run.exit_code == 2
    assert "the timeout must be a positive number of seconds" in run.stderr


def test_an_unknown_chapter_exits_cleanly_as_a_process():
    done = tinycomp_process("grade", "ch99")
    assert done.returncode == 2
    assert done.stderr.startswith("tinycomp grade: no chapter 'ch99'; chapters with exercises: ")
    assert all(chapter.name in done.stderr for chapter in discover_chapters(ROOT))
    assert "Traceback" not in done.stderr


def test_grading_the_warm_up_as_a_process():
    done = tinycomp_process("grade", "ch00", "--solutions", "--root", str(ROOT))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Grading solutions/ (the reference answers)" in done.stdout
    assert " tasks passed, " in done.stdout
