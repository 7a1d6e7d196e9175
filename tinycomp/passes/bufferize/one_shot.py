"""``one-shot-bufferize``: tensors become memrefs, written in place wherever it is safe.

Tensors are values: ``%r = linalg.generic ... outs(%x)`` leaves ``%x`` alone and
returns a new tensor. Memory is not: to run, every tensor needs a buffer, and the cheap
buffer for ``%r`` is the one ``%x`` already has. MLIR's One-Shot Bufferize decides, for
the whole function at once ("one shot"), which results may take their operand's buffer
and which need a new one, then rewrites the IR. This pass is that, for the ops tinycomp
traces and tiles. The algorithm, per ``func.func`` with tensors:

0. **One empty per use** (``empty_tensors.py``): a ``tensor.empty`` that CSE made
   the destination of several kernels is cloned for each, so unrelated kernels do not
   share an alias set (the analysis would otherwise grow with the square of the program).
1. **Analyze** (``inplace_analysis.py``): for every operand an op would write (linalg
   ``outs``, ``insert_slice`` dest, ``scf.for`` inits), decide in place or copy by
   looking for read-after-write conflicts; keep each reason.
2. **Rewrite** (``bufferizer.py`` + ``rewrite.py``): arguments become identity-layout
   memrefs; ``tensor.empty`` becomes ``memref.alloc``; ``extract_slice`` a strided
   ``memref.subview``; ``insert_slice`` a subview + ``memref.copy`` (none when the
   value was computed in that subview); linalg ops run on the chosen buffers; ``scf.for``
   loses its tensor iter_args and works on the buffers directly.
3. **Function boundary** (``function_boundary.py``): memref results become trailing
   out-params ``{bufferize.result}``, as ``-buffer-results-to-out-params``; a result
   allocated in the function is replaced by its out-param (no copy).
4. **Report** (``report.py``): the decisions, every allocation with its bytes and
   reason, the liveness of each buffer and the peak memory.

Function arguments are read-only by default, as in MLIR's One-Shot Bufferize without
function-boundary bufferization: writing into one needs a copy. (MLIR's
``bufferize-function-boundaries`` mode treats them as writable unless an argument is
marked ``bufferization.writable = false``; ``writable_arguments=True`` is that mode.)

Where tinycomp is simpler than MLIR: MLIR inserts the copies while still on tensors
(``TensorCopyInsertion``) and then bufferizes op by op through each op's
``BufferizableOpInterface``; here one rewrite does both, from a table of rules. MLIR
keeps memref ``iter_args`` on loops and leaves a copy of a tile onto itself after an
``insert_slice`` for canonicalization to fold; tinycomp drops tensor ``iter_args``
altogether and never emits that copy. MLIR refuses a loop whose yielded tensor is not
its iter_arg's buffer; tinycomp copies it into the iter buffer. The tests in
``tests/passes/bufferize/test_mlir.py`` compare the allocations and copies with
``mlir-opt``'s, case by case.

>>> from tinycomp.ir import parse
>>> m = parse('''
... #id = affine_map<(i) -> (i)>
... func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
...   %e = tensor.empty() : tensor<4xf32>
...   %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
...       ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
...   ^bb0(%in: f32, %out: f32):
...     %0 = arith.addf %in, %in : f32
...     linalg.yield %0 : f32
...   } -> tensor<4xf32>
...   return %r : tensor<4xf32>
... }''')
>>> bufferize = OneShotBufferizePass()
>>> bufferize.run(m)
>>> print(m)
#map = affine_map<(d0) -> (d0)>
module {
  func.func @double(%x: memref<4xf32>, %arg0: memref<4xf32> {bufferize.result}) {
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%arg0 : memref<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %in : f32
      linalg.yield %0 : f32
    }
    return
  }
}
>>> [d.reason for d in bufferize.report.decisions]
['in place: no later read of %e']
"""  # noqa: E501

from __future__ import annotations

from tinycomp.dialects.func import FuncOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import RankedTensorType
from tinycomp.passes.bufferize.bufferizer import Bufferizer
from tinycomp.passes.bufferize.empty_tensors import split_shared_empty_tensors
from tinycomp.passes.bufferize.function_boundary import buffer_results_to_out_params
from tinycomp.passes.bufferize.inplace_analysis import analyze_in_place
from tinycomp.passes.bufferize.report import BufferizationReport, Decision
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass

__all__ = ["OneShotBufferizePass"]


class OneShotBufferizePass(Pass):
    """Bufferize every function with tensors (see the module docstring).

    ``report`` is a ``BufferizationReport``; pass one in to share it with the
    ``buffer-reuse`` and ``buffer-deallocation`` passes that follow (as
    ``bufferization_passes()`` does)."""

    name = "one-shot-bufferize"
    summary = "tensors to memrefs, in place where no read-after-write conflict forbids it"

    def __init__(
        self,
        writable_arguments: bool = False,
        out_params: bool = True,
        report: BufferizationReport | None = None,
    ) -> None:
        super().__init__()
        self.writable_arguments = writable_arguments
        """Allow writing into function arguments in place (MLIR's function-boundary mode)."""
        self.out_params = out_params
        """Turn memref results into out-params (step 3)."""
        self.report = report if report is not None else BufferizationReport()
        """What the pass decided and allocated."""

    def run(self, op: Operation) -> None:
        self.report.clear()
        functions = [f for f in op.walk() if isinstance(f, FuncOp) and _has_tensors(f)]
        for function in functions:
            if split := split_shared_empty_tensors(function):
                self.statistics["empty tensors split"] += split
            analysis = analyze_in_place(function, self.writable_arguments)  # step 1
            for decision in analysis.decisions:
                self.report.decisions.append(Decision.from_analysis(decision, analysis))
                self.statistics["in place" if decision.in_place else "copies"] += 1
            bufferizer = Bufferizer(function, analysis)  # step 2
            bufferizer.run()
            self.report.allocation_reasons.update(bufferizer.allocations)
            if self.out_params:  # step 3
                out_params = buffer_results_to_out_params(function)
                if out_params:
                    self.statistics["out-params"] += len(out_params)
        self.report.measure(op, self.name)  # step 4
        if self.report.allocations:
            self.statistics["allocations"] += len(self.report.allocations)


def _has_tensors(function: FuncOp) -> bool:
    if function.is_declaration:
        return False
    types = [*function.function_type.inputs, *function.function_type.results]
    types += [v.type for nested in function.walk() for v in nested.results]
    return any(isinstance(t, RankedTensorType) for t in types)


register_pass(OneShotBufferizePass)
