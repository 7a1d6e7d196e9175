"""Cross-core flags in the functional run, and the runner that takes turns between cores.

Cores of one launch exchange data only through GM, and a core that reads what another
wrote must wait on a cross-core flag first. The functional run executes each core's
program in program order; where a core waits on a flag not yet set, it must let the
other cores run. ``run_cores`` does that with one thread per core, only one of which
runs at a time (a baton passed in a fixed order, so runs are deterministic):

1. give the baton to the first core; it runs until it finishes or waits on a flag
   whose condition does not hold;
2. pass the baton to the next core that has not finished, round-robin; a waiting core
   that gets it checks its condition again;
3. when every unfinished core waits and no condition holds, no set can ever come: a
   ``"deadlock"`` error listing each core's wait (the notebook never hangs);
4. an error in any core stops all of them and is raised in the caller's thread.

A launch without cross-core ops runs its cores one after another, without threads.

The flags (``CrossCoreFlags``): mode 2 is a counting semaphore per receiving core (a
set on the cube core adds one on each of its vector cores, a set on a vector core adds
one on its cube core; a wait takes one); modes 0 and 1 are barriers over every core of
the same kind in the launch (0) or the two vector cores of one AI core (1): a core's
``g``-th wait holds until ``g`` sets from each of them.

>>> ran = []
>>> _ = run_cores(["a", "b"], lambda name: ran.append(name))
>>> ran
['a', 'b']
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from tinycomp.targets.npu_sim.errors import UNCHANGED, NpuSanitizerError

__all__ = ["CrossCoreFlags", "Turns", "run_cores", "scopes_of"]


class _Abort(Exception):
    """Stops a core's thread when another core failed."""


class Turns:
    """The baton of ``run_cores`` (module docstring)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.condition = threading.Condition()
        self.holder: int | None = None
        self.done: set[int] = set()
        self.waiting: dict[int, tuple[Callable[[], bool], str, int | None]] = {}
        self.failure: BaseException | None = None
        self.local = threading.local()

    def _pass_on(self, me: int) -> None:
        """Give the baton to the next core that can run (caller holds the lock)."""
        count = len(self.names)
        for step in range(1, count + 1):
            other = (me + step) % count
            if other in self.done:
                continue
            waiting = self.waiting.get(other)
            if waiting is None or waiting[0]():
                self.holder = other
                self.condition.notify_all()
                return
        if len(self.done) < count and self.failure is None:
            waits = sorted(self.waiting.items())
            lines = [f"  {self.names[i]}: {what}" for i, (_, what, _) in waits]
            self.failure = NpuSanitizerError(
                "deadlock",
                "deadlock: every core that has not finished waits on a cross-core flag that "
                "no core will set:\n" + "\n".join(lines) + f"\n{UNCHANGED}",
                line=waits[0][1][2] if waits else None,
            )
        self.holder = None
        self.condition.notify_all()

    def wait_until(self, ready: Callable[[], bool], what: str, line: int | None = None) -> None:
        """Hold this core until ``ready()``, letting the others run meanwhile (``what``
        and the source ``line`` say what it waits on, should it never come)."""
        me = self.local.index
        with self.condition:
            while not ready():
                self.waiting[me] = (ready, what, line)
                self._pass_on(me)
                self.condition.wait_for(lambda: self.holder == me or self.failure is not None)
                if self.failure is not None:
                    raise _Abort
            self.waiting.pop(me, None)

    def _thread(self, index: int, body: Callable[[Any], None], item: Any) -> None:
        self.local.index = index
        with self.condition:
            self.condition.wait_for(lambda: self.holder == index or self.failure is not None)
            if self.failure is not None:
                return
        try:
            body(item)
        except _Abort:
            return
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            with self.condition:
                if self.failure is None:
                    self.failure = error
                self.condition.notify_all()
            return
        with self.condition:
            self.done.add(index)
            self._pass_on(index)


def run_cores(
    items: Sequence[Any], body: Callable[[Any], None], *, turns: Turns | None = None
) -> None:
    """Run ``body(item)`` for every core (module docstring): one after another, or,
    given ``turns``, each in its own thread taking turns with the others."""
    if turns is None:
        for item in items:
            body(item)
        return
    threads = [
        threading.Thread(target=turns._thread, args=(i, body, item), daemon=True)
        for i, item in enumerate(items)
    ]
    for thread in threads:
        thread.start()
    with turns.condition:
        turns.holder = 0
        turns.condition.notify_all()
    for thread in threads:
        thread.join()
    if turns.failure is not None:
        raise turns.failure


class CrossCoreFlags:
    """The cross-core flags of one functional run (module docstring)."""

    def __init__(self, turns: Turns | None, scopes: dict[tuple, list[str]], limit: int) -> None:
        self.turns = turns
        self.scopes = scopes
        """``(mode, core) -> the cores a set from ``core`` in ``mode`` reaches``."""
        self.limit = limit
        self.counters: dict[tuple[str, int], int] = defaultdict(int)
        self.sets: dict[tuple, int] = defaultdict(int)
        self.waits: dict[tuple[str, int], int] = defaultdict(int)

    def set(self, core: str, flag: int, mode: int) -> str | None:
        """A set from ``core``; returns a problem (too many pending sets) or ``None``."""
        if mode == 2:
            for target in self.scopes[(2, core)]:
                self.counters[(target, flag)] += 1
                if self.counters[(target, flag)] > self.limit:
                    return (
                        f"flag {flag} of {target} has {self.counters[(target, flag)]} pending "
                        f"sets, more than the {self.limit} the chip counts"
                    )
        else:
            self.sets[(mode, tuple(self.scopes[(mode, core)]), flag)] += 1
        return None

    def ready(self, core: str, flag: int, mode: int) -> Callable[[], bool]:
        """The condition a wait of ``core`` on ``flag`` holds until."""
        if mode == 2:
            return lambda: self.counters[(core, flag)] > 0
        scope = tuple(self.scopes[(mode, core)])
        needed = (self.waits[(core, flag)] + 1) * len(scope)
        return lambda: self.sets[(mode, scope, flag)] >= needed

    def wait(
        self, core: str, flag: int, mode: int, where: str = "", line: int | None = None
    ) -> None:
        """Hold ``core`` until the flag allows it, then take it; ``where`` names the
        waiting op (``'npu.cross_core_wait' at line 9``) for a deadlock's message."""
        ready = self.ready(core, flag, mode)
        if not ready():
            op = f" ({where})" if where else ""
            if self.turns is None or not hasattr(self.turns.local, "index"):
                raise NpuSanitizerError(
                    "deadlock",
                    f"deadlock: {core} waits on cross-core flag {flag} (mode {mode}){op}, which "
                    f"no core has set and no other core can set; {UNCHANGED}",
                    line=line,
                    core=core,
                )
            self.turns.wait_until(ready, f"cross_core_wait on flag {flag} (mode {mode}){op}", line)
        if mode == 2:
            self.counters[(core, flag)] -= 1
        self.waits[(core, flag)] += 1


def scopes_of(cores: Sequence[Any]) -> dict[tuple[int, str], list[str]]:
    """Which cores a cross-core set of each mode reaches (see ``sync.py`` of the dialect)."""
    scopes: dict[tuple[int, str], list[str]] = {}
    by_kind: dict[str, list[str]] = defaultdict(list)
    groups: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for core in cores:
        by_kind[core.kind].append(core.name)
        groups[core.group][core.kind].append(core.name)
    for core in cores:
        scopes[(0, core.name)] = by_kind[core.kind]
        scopes[(1, core.name)] = groups[core.group]["aiv"]
        other = "aiv" if core.kind == "aic" else "aic"
        scopes[(2, core.name)] = groups[core.group][other]
    return scopes
