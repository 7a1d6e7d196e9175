"""Bufferization (chapter 07): tensors become memory, and memory gets managed.

Tensor IR says *what* to compute; every tensor is an immutable value. To run it, each
value needs memory, and the art is to need little: write results into memory that
already exists whenever nobody still needs its old contents, and let temporaries take
turns in the same allocation. Three passes, in pipeline order:

* ``one-shot-bufferize`` (``OneShotBufferizePass``): decide in place vs copy for every
  written operand (``inplace_analysis.py``, on ``aliasing.py``'s op table and
  ``program_order.py``), rewrite to memrefs (``bufferizer.py``, ``rewrite.py``), turn
  results into out-params (``function_boundary.py``);
* ``buffer-reuse`` (``BufferReusePass``): temporaries with disjoint live ranges share
  one allocation (``reuse.py`` on ``liveness.py``);
* ``buffer-deallocation`` (``BufferDeallocationPass``): ``memref.dealloc`` after the
  last use (``dealloc.py``).

``bufferization_passes()`` builds the three with one shared ``BufferizationReport``
(``report.py``): the decisions with their reasons, the allocations, the live range of
every buffer and the peak memory after each pass. The out-param convention the pass
writes is the func dialect's (``tinycomp.dialects.func.out_params``); running the
result, with fresh out-params, is the interpreter's ``run_bufferized`` (re-exported
here, where chapter 07 imports it). The memory effects every pass can ask about live
in ``tinycomp.ir.effects``.

>>> import numpy as np
>>> from tinycomp.frontend import TensorSpec, softmax, trace
>>> from tinycomp.interp import interpret
>>> from tinycomp.passes import PassManager
>>> module = trace(softmax, TensorSpec((2, 5)))
>>> x = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
>>> expected = interpret(module, x)
>>> passes = bufferization_passes()
>>> _ = PassManager(passes).run(module)
>>> bool(np.allclose(run_bufferized(module, x), expected))
True
>>> passes[0].report.peak_bytes
{'one-shot-bufferize': 96, 'buffer-reuse': 88, 'buffer-deallocation': 88}
"""

from tinycomp.interp.bufferized import run_bufferized
from tinycomp.passes.bufferize.dealloc import BufferDeallocationPass, insert_deallocations
from tinycomp.passes.bufferize.function_boundary import buffer_results_to_out_params
from tinycomp.passes.bufferize.inplace_analysis import (
    InPlaceAnalysis,
    InPlaceDecision,
    analyze_in_place,
)
from tinycomp.passes.bufferize.one_shot import OneShotBufferizePass
from tinycomp.passes.bufferize.report import (
    Allocation,
    BufferizationReport,
    Decision,
    LiveInterval,
)
from tinycomp.passes.bufferize.reuse import BufferReusePass, reuse_buffers
from tinycomp.passes.pass_base import Pass

__all__ = [
    "Allocation",
    "BufferDeallocationPass",
    "BufferReusePass",
    "BufferizationReport",
    "Decision",
    "InPlaceAnalysis",
    "InPlaceDecision",
    "LiveInterval",
    "OneShotBufferizePass",
    "analyze_in_place",
    "buffer_results_to_out_params",
    "bufferization_passes",
    "insert_deallocations",
    "reuse_buffers",
    "run_bufferized",
]


def bufferization_passes(
    reuse: bool = True, deallocate: bool = True, writable_arguments: bool = False
) -> list[Pass]:
    """``one-shot-bufferize``, then ``buffer-reuse`` (if ``reuse``), then
    ``buffer-deallocation`` (if ``deallocate``), sharing one ``BufferizationReport``
    (each pass's ``report``).

    >>> [p.name for p in bufferization_passes(reuse=False)]
    ['one-shot-bufferize', 'buffer-deallocation']
    """
    report = BufferizationReport()
    passes: list[Pass] = [OneShotBufferizePass(writable_arguments, report=report)]
    if reuse:
        passes.append(BufferReusePass(report))
    if deallocate:
        passes.append(BufferDeallocationPass(report))
    return passes
