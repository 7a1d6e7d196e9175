"""``tinycomp.compile``: a tensor program through the whole pipeline.

1. Take the input: a Python function is traced on the example arrays (or
   ``TensorSpec``s); a module (or MLIR text) is verified and copied, so the caller's
   module is never changed.
2. Check the request: the target is in the table (``targets.py``), ``stop_after``
   names a stage the target can stop at, the options name its strategies.
3. Run each stage of ``tinycomp.compiler.stages`` in order, each as one
   ``PassManager`` run (verifying after every pass): the stage's own passes, the
   passes of the target's strategies for that stage, the user's extra passes. Keep
   its IR text, its pass manager result, the reports its passes wrote and the
   strategy each kernel got; stop after ``stop_after``.
4. Hand the module to the target's backend, if it has one (native code for ``cpu``).
5. Return a ``CompiledProgram``: callable on numpy arrays, every stage kept.

>>> import numpy as np, tinycomp
>>> from tinycomp.frontend import softmax
>>> x = np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32)
>>> program = tinycomp.compile(softmax, x, stop_after="fused")
>>> [program.counts[s]["kernels"] for s in program.stages]
[7, 7, 6]
>>> bool(np.allclose(program(x).sum(axis=-1), 1.0))
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.compiler.errors import CompileError
from tinycomp.compiler.options import CompileOptions
from tinycomp.compiler.program import CompiledProgram, count_ops
from tinycomp.compiler.stages import STAGE_NAMES, STAGES, check_stage_name
from tinycomp.compiler.targets import TARGETS, lookup_target
from tinycomp.frontend import trace
from tinycomp.ir import parse, to_numpy_dtype
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import print_ir
from tinycomp.ir.symbols import symbol_name
from tinycomp.passes import PassManager
from tinycomp.passes.strategy import StrategyDecision

__all__ = ["TARGETS", "compile"]


def compile(  # noqa: A001  (the public name mirrors torch.compile / triton.compile)
    fn_or_module: Callable[..., Any] | Operation | str,
    *examples: Any,
    target: str = "interp",
    options: CompileOptions | None = None,
    stop_after: str = "loops",
    entry: str = "main",
) -> CompiledProgram:
    """Compile ``fn_or_module`` for ``target``; see the module docstring.

    >>> import numpy as np
    >>> program = compile(lambda a, b: a @ b, np.ones((2, 3), np.float32),
    ...                   np.ones((3, 4), np.float32), stop_after="generalized")
    >>> print(program)
    tinycomp.compile(@main, target="interp")
      stage        kernels  loops  allocs   ops  passes
      traced             2      0       0    10  (input)
      generalized        2      0       0    10  linalg-generalize-named-ops, canonicalize, cse
    """
    target_ = lookup_target(target)  # step 2
    options = options if options is not None else target_.default_options
    target_.check_options(options)
    stop_after = check_stage_name(stop_after)
    if target_.final_stage is not None and stop_after != target_.final_stage:
        raise CompileError(
            f"target {target!r} compiles the {target_.final_stage!r} stage to native code; "
            f"stop_after={stop_after!r} leaves ops that have no LLVM emitter "
            f"(use stop_after={target_.final_stage!r})"
        )
    for stage in options.extra_passes:
        check_stage_name(stage, "extra_passes key")
    module = _input_module(fn_or_module, examples, entry)  # step 1
    result_shapes, input_count = _signature(module, entry)
    program = CompiledProgram(
        module, entry, target, result_shapes=result_shapes, input_count=input_count
    )
    for stage in STAGES[: STAGE_NAMES.index(stop_after) + 1]:  # step 3
        groups = target_.strategy_groups(stage.name, options)
        owner = {id(p): strategy.name for strategy, passes in groups for p in passes}
        passes = [
            *stage.passes(options),
            *(p for _, strategy_passes in groups for p in strategy_passes),
            *options.extra_passes.get(stage.name, ()),
        ]
        if passes:
            run = PassManager(passes).run(module)
            program.runs[stage.name] = run
            for pass_ in passes:
                report = getattr(pass_, "report", None)
                if report is not None:
                    program.reports[pass_.name] = report
                for decision in getattr(pass_, "decisions", ()):
                    program.decisions.append(decision)
                    _check_forced(decision, owner.get(id(pass_)), options)
            program.stages[stage.name] = run.final_text
        else:
            program.stages[stage.name] = print_ir(module)
        program.counts[stage.name] = count_ops(module)
    if target_.backend is not None:  # step 4
        program.native = target_.backend(module, entry, result_shapes, options)
    return program


def _check_forced(
    decision: StrategyDecision, strategy: str | None, options: CompileOptions
) -> None:
    """A forced strategy that a kernel of its kind did not get is an error, not a fallback."""
    if strategy is not None and options.forced(strategy) and not decision.chosen:
        raise CompileError(
            f"strategies={{{strategy!r}: True}} forces the {strategy} strategy, but "
            f"{decision.kernel} cannot take it: {decision.reason}; it would get "
            f"{decision.strategy!r}"
        )


def _input_module(fn_or_module: Any, examples: tuple[Any, ...], entry: str) -> Operation:
    """Step 1: trace a function, or take (a copy of) a module or MLIR text."""
    if isinstance(fn_or_module, str):
        module = parse(fn_or_module)
    elif isinstance(fn_or_module, Operation):
        fn_or_module.verify()
        module = fn_or_module.clone()
    elif callable(fn_or_module):
        if not examples:
            name = getattr(fn_or_module, "__name__", "the function")
            raise CompileError(
                f"compile({name}) needs example arguments to trace it: arrays or "
                "TensorSpec(shape, dtype), one per parameter"
            )
        return trace(fn_or_module, *examples, name=entry)
    else:
        raise CompileError(
            "compile expects a Python function, a module or MLIR text, "
            f"found {type(fn_or_module).__name__}"
        )
    if examples:
        raise CompileError("example arguments are only used to trace a function, not a module")
    return module


def _signature(
    module: Operation, entry: str
) -> tuple[tuple[tuple[tuple[int, ...], np.dtype], ...], int]:
    """Shape and dtype of each tensor result of ``@entry`` (for the out-params the
    program allocates after bufferization), and its number of arguments."""
    for op in module.walk():
        if op.name == "func.func" and symbol_name(op) == entry:
            function_type = op.attributes["function_type"].type
            results = tuple(
                (tuple(t.shape), to_numpy_dtype(t.element_type)) for t in function_type.results
            )
            return results, len(function_type.inputs)
    raise CompileError(f"the module has no function @{entry}")
