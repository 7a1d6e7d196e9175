"""The README's promises: two set-up commands that CI really runs, and a true chapter list."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def setup_commands() -> list[str]:
    """The fenced bash commands of the README's "Set up" section, in order."""
    section = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def test_readme_states_exactly_two_setup_commands():
    commands = setup_commands()
    assert len(commands) == 2, f"expected 2 set-up commands in the README, found {commands}"
    for command in commands:
        assert "\n" not in command, f"a set-up command should be one line, found:\n{command}"


def test_first_command_opens_the_welcome_chapter():
    open_notebooks = setup_commands()[0]
    assert open_notebooks.endswith("jupyter lab chapters/00_welcome.ipynb")
    assert (ROOT / "chapters" / "00_welcome.ipynb").exists()


CI_LINES = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
OPEN_JUPYTERLAB = " && .venv/bin/jupyter lab chapters/00_welcome.ipynb"


def runs_verbatim(command: str, line: str) -> bool:
    """True if a line of shell runs `command` as it is: alone, or piped on or `||`-handled."""
    return line == command or line.startswith(
        (f"{command} 2>&1 | ", f"{command} | ", f"{command} ||")
    )


def test_ci_runs_the_readme_test_command_verbatim():
    test_command = setup_commands()[1]
    assert any(runs_verbatim(test_command, line) for line in CI_LINES), (
        f".ci/run does not run the README's command: {test_command}"
    )


def test_ci_grades_with_the_readme_install_command_verbatim():
    """CI's student check installs with the README's first command, without starting JupyterLab."""
    open_notebooks = setup_commands()[0]
    assert open_notebooks.endswith(OPEN_JUPYTERLAB)
    install = open_notebooks.removesuffix(OPEN_JUPYTERLAB)
    assert install.endswith('pip install -e ".[lab]"'), install
    assert any(runs_verbatim(install, line) for line in CI_LINES), (
        f".ci/run does not install as the README does: {install}"
    )


def test_runs_verbatim_refuses_a_changed_command():
    assert runs_verbatim("make test", "make test 2>&1 | tee log")
    assert not runs_verbatim("make test", "make test-fast")
    assert not runs_verbatim("make test", "make test && rm -rf build")


def test_chapter_table_matches_the_notebooks_on_disk():
    listed = re.findall(r"^\| (\d\d) \| `(\w+)`( \*\(coming\)\*)? \|", README, re.M)
    assert listed, "the README should list the chapters in a table"
    on_disk = {path.stem for path in (ROOT / "chapters").glob("*.ipynb")}
    for number, name, coming in listed:
        assert name.startswith(number), f"chapter {name} is listed under number {number}"
        if coming:
            assert name not in on_disk, f"{name} exists; drop its '(coming)' mark in the README"
        else:
            assert name in on_disk, f"the README lists {name}, but chapters/{name}.ipynb is missing"
    listed_names = {name for _, name, _ in listed}
    assert on_disk <= listed_names, f"chapters missing from the README: {on_disk - listed_names}"
