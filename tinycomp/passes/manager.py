"""The pass manager: run a pipeline of passes, check the IR after each, keep every stage.

``PassManager.parse("canonicalize,cse,dce").run(module)`` runs the passes in order and
returns a ``PipelineResult``. Along the way it:

1. verifies the input, and the IR after every pass (``verify_each``, on by default): a
   pass that leaves invalid IR is named in the ``PassError``, instead of a later pass
   tripping over the damage;
2. prints the IR after every pass (``print_after_each``, on by default) into
   ``result.stages``, a list of ``Stage(name, text)`` whose first entry is the
   ``"input"``: what a notebook shows and diffs, one stage at a time;
3. times each pass (and the verifier and printer) into ``result.timings``
   (``PassTiming(name, seconds)``), reported by ``result.timing_report()`` only when
   asked;
4. collects each pass's ``statistics`` (``{"ops erased": 3}``) into
   ``result.statistics`` (``PassStatistics(name, counts)``).

The records are in ``pipeline_result.py``. While the passes run, Python's cyclic garbage
collector is paused, as the parser pauses it: a pass over a big module creates and drops
millions of objects, and each collection walks every live one, so the collector alone
would make pass time grow faster than the module (reference counting still frees
everything as usual; the collector is switched back on after the run).

Nested pipelines (``builtin.module(func.func(cse))``) run a pass on every op of the
anchor name directly inside the current op. Each pass runs over all anchors before the
next pass starts (MLIR runs the whole nested pipeline per function; for function-local
passes the result is the same), so that each stage is one pass.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %c0 = arith.constant 0 : i32
...   %a = arith.addi %x, %c0 : i32
...   %b = arith.muli %a, %a : i32
...   %c = arith.muli %x, %x : i32
...   return %c : i32
... }''')
>>> result = PassManager.parse("func.func(canonicalize,cse)").run(m)
>>> [stage.name for stage in result.stages]
['input', 'func.func(canonicalize)', 'func.func(cse)']
>>> print(result.final_text)
module {
  func.func @f(%x: i32) -> i32 {
    %c = arith.muli %x, %x : i32
    return %c : i32
  }
}
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tinycomp.ir.errors import VerifyError
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import print_ir
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.verifier import verify
from tinycomp.passes.errors import PassError
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.pipeline import PipelineElement, parse_pipeline
from tinycomp.passes.pipeline_result import PassStatistics, PassTiming, PipelineResult, Stage
from tinycomp.passes.registry import lookup_pass, registered_passes

__all__ = ["PassManager", "PassStatistics", "PassTiming", "PipelineResult", "Stage"]


class PassManager:
    """An ordered list of passes and nested pass managers (see the module docstring).

    ``anchor`` is the op name this manager runs on (``"func.func"`` for a nested one);
    ``None`` accepts whatever op it is given.
    """

    def __init__(
        self,
        passes: Sequence[Pass | PassManager] = (),
        anchor: str | None = None,
        verify_each: bool = True,
        print_after_each: bool = True,
    ) -> None:
        self.items: list[Pass | PassManager] = list(passes)
        """The passes and nested managers, in order."""
        self.anchor = anchor
        """The op name this manager runs on, or ``None`` for any."""
        self.verify_each = verify_each
        """Verify the input and the IR after every pass."""
        self.print_after_each = print_after_each
        """Record the IR text after every pass in ``result.stages``."""

    @classmethod
    def parse(
        cls, pipeline: str, verify_each: bool = True, print_after_each: bool = True
    ) -> PassManager:
        """A pass manager for pipeline text such as ``"canonicalize,cse,dce"`` or
        ``"builtin.module(func.func(canonicalize,cse))"``.

        >>> PassManager.parse("builtin.module(func.func(cse),dce)").pipeline_text()
        'builtin.module(func.func(cse),dce)'
        >>> PassManager.parse("cse,mem2reg")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tinycomp.passes.errors.PassError: unknown pass 'mem2reg'; known passes: ...canonicalize...
        """
        elements = parse_pipeline(pipeline)
        anchor = None
        if (
            len(elements) == 1
            and elements[0].name == "builtin.module"
            and elements[0].nested is not None
        ):
            anchor, elements = elements[0].name, elements[0].nested  # the root: a module
        manager = cls(anchor=anchor, verify_each=verify_each, print_after_each=print_after_each)
        manager._add_elements(elements)
        return manager

    def _add_elements(self, elements: Sequence[PipelineElement]) -> None:
        for element in elements:
            if element.nested is None:
                self.add(lookup_pass(element.name)())
                continue
            if element.name in registered_passes():
                raise PassError(f"'{element.name}' is a pass, not an op name: it cannot nest")
            self.nest(element.name)._add_elements(element.nested)

    def add(self, item: Pass | PassManager) -> PassManager:
        """Append a pass (or a nested manager); returns ``self`` for chaining."""
        self.items.append(item)
        return self

    def nest(self, anchor: str) -> PassManager:
        """Append and return a nested manager that runs on each ``anchor`` op
        (``pm.nest("func.func").add(CSEPass())``)."""
        nested = PassManager(anchor=anchor)
        self.items.append(nested)
        return nested

    def pipeline_text(self) -> str:
        """The pipeline as text (parsing it gives an equivalent manager)."""
        inner = ",".join(
            item.pipeline_text() if isinstance(item, PassManager) else item.name
            for item in self.items
        )
        return f"{self.anchor}({inner})" if self.anchor else inner

    def steps(self) -> Iterator[tuple[str, Pass, tuple[str, ...]]]:
        """``(stage name, pass, anchor path)`` for each pass, in order; the path lists
        the nested op names below this manager (``("func.func",)``)."""
        for item in self.items:
            if isinstance(item, Pass):
                yield item.name, item, ()
                continue
            for name, pass_, path in item.steps():
                yield f"{item.anchor}({name})", pass_, (item.anchor, *path)

    # -- running -----------------------------------------------------------------------------
    def run(self, op: Operation) -> PipelineResult:
        """Run the pipeline on ``op`` (usually a module), changing it in place, with the
        cyclic garbage collector paused (module docstring)."""
        if self.anchor is not None and op.name != self.anchor:
            raise PassError(f"the pipeline runs on '{self.anchor}', but was given '{op.name}'")
        with _garbage_collector_paused():
            return self._run(op)

    def _run(self, op: Operation) -> PipelineResult:
        result = PipelineResult(op)
        self._check(op, result, None)
        self._record(op, result, "input")
        for stage_name, pass_, path in self.steps():
            pass_.statistics.clear()
            start = time.perf_counter()
            for target in _anchored_ops(op, path):
                try:
                    pass_.run(target)
                except Exception as error:
                    raise PassError(
                        f"pass '{stage_name}' failed on {_describe_target(target)}: {error}",
                        stage_name,
                        result,
                    ) from error
            result.timings.append(PassTiming(stage_name, time.perf_counter() - start))
            result.statistics.append(PassStatistics(stage_name, dict(pass_.statistics)))
            self._check(op, result, stage_name)
            self._record(op, result, stage_name)
        return result

    def _check(self, op: Operation, result: PipelineResult, stage_name: str | None) -> None:
        """Step 1: verify, blaming the input or the pass that just ran."""
        if not self.verify_each:
            return
        start = time.perf_counter()
        try:
            verify(op)
        except VerifyError as error:
            if stage_name is None:
                raise PassError(f"the input IR does not verify: {error}", None, result) from error
            raise PassError(
                f"pass '{stage_name}' produced IR that does not verify: {error}",
                stage_name,
                result,
            ) from error
        finally:
            result.verify_seconds += time.perf_counter() - start

    def _record(self, op: Operation, result: PipelineResult, stage_name: str) -> None:
        """Step 2: keep the IR text after this stage."""
        if not self.print_after_each:
            return
        start = time.perf_counter()
        result.stages.append(Stage(stage_name, print_ir(op)))
        result.print_seconds += time.perf_counter() - start


@contextmanager
def _garbage_collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a run (module docstring); a nested run
    leaves it paused, and it is switched back on only if it was on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _anchored_ops(root: Operation, path: tuple[str, ...]) -> list[Operation]:
    """The ops a pass with anchor ``path`` runs on: ``root`` itself for an empty path,
    else the ops named ``path[0]`` directly inside ``root``, and so on down."""
    targets = [root]
    for anchor in path:
        targets = [
            child
            for target in targets
            for region in target.regions
            for block in region.blocks
            for child in block
            if child.name == anchor
        ]
    return targets


def _describe_target(op: Operation) -> str:
    """``'func.func' @f`` or ``'builtin.module'``, for messages."""
    name = symbol_name(op)
    return f"'{op.name}' @{name}" if name else f"'{op.name}'"
