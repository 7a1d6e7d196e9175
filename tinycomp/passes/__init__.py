"""Passes and the pass manager (chapter 03): canonicalize, CSE, DCE, pipelines.

* ``pass_base``: ``Pass`` (a name and ``run(op)``) and ``PatternPass`` (patterns applied
  with the greedy driver of ``tinycomp.rewrite``);
* ``canonicalize``: the canonicalization patterns, one module per dialect, and the pass;
* ``cse``, ``dce``: common subexpression and dead code elimination;
* ``registry``: pass names for pipelines; ``pipeline``: pipeline text;
* ``manager``: ``PassManager``: verification between passes, the IR after each pass
  (``result.stages``), timing, with the cyclic garbage collector paused while it runs;
  ``pipeline_result``: what a run returns, as named records (``Stage(name, text)``).

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: f32) -> f32 {
...   %one = arith.constant 1.0 : f32
...   %a = arith.mulf %x, %one : f32
...   %b = arith.addf %a, %x : f32
...   %c = arith.addf %x, %x : f32
...   %d = arith.mulf %b, %c : f32
...   return %d : f32
... }''')
>>> result = PassManager.parse("canonicalize,cse,dce").run(m)
>>> print(m)
module {
  func.func @f(%x: f32) -> f32 {
    %b = arith.addf %x, %x : f32
    %d = arith.mulf %b, %b : f32
    return %d : f32
  }
}
>>> [stage.name for stage in result.stages]
['input', 'canonicalize', 'cse', 'dce']
"""

from tinycomp.passes.bufferize import (
    BufferDeallocationPass,
    BufferReusePass,
    OneShotBufferizePass,
    bufferization_passes,
)
from tinycomp.passes.canonicalize import CanonicalizePass, canonicalization_patterns
from tinycomp.passes.cse import CSEPass
from tinycomp.passes.dce import DCEPass
from tinycomp.passes.errors import PassError
from tinycomp.passes.fusion import FusionPass
from tinycomp.passes.generalize import GeneralizePass
from tinycomp.passes.hoist_common import HoistCommonPass
from tinycomp.passes.linalg_to_loops import LinalgToLoopsPass
from tinycomp.passes.manager import PassManager, PipelineResult, Stage
from tinycomp.passes.math_approximation import MathApproximationPass
from tinycomp.passes.pass_base import Pass, PatternPass
from tinycomp.passes.pipeline import PipelineElement, parse_pipeline
from tinycomp.passes.registry import lookup_pass, register_pass, registered_passes
from tinycomp.passes.row_strategy import RowStrategyPass
from tinycomp.passes.tiling import TileAndFusePass, TilePass
from tinycomp.passes.unroll import FullUnrollPass
from tinycomp.passes.vectorize import VectorizeLoopsPass

__all__ = [
    "Pass", "PatternPass", "PassError",
    "CanonicalizePass", "canonicalization_patterns", "CSEPass", "DCEPass",
    "FusionPass", "GeneralizePass", "LinalgToLoopsPass", "TilePass", "TileAndFusePass",
    "OneShotBufferizePass", "BufferReusePass", "BufferDeallocationPass", "bufferization_passes",
    "VectorizeLoopsPass", "MathApproximationPass", "RowStrategyPass", "HoistCommonPass",
    "FullUnrollPass",
    "PassManager", "PipelineResult", "Stage", "PipelineElement", "parse_pipeline",
    "register_pass", "lookup_pass", "registered_passes",
]  # fmt: skip
