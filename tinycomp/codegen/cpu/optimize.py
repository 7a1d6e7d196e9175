"""LLVM IR text to an optimized LLVM module: parse, verify, run the O0-O3 pipeline.

What ``clang -O3`` does after its front end, in-process through llvmlite:

1. Parse the text into LLVM's in-memory IR. A syntax or type error is reported with
   the LLVM line and the tinycomp op that wrote it (``llvm/diagnostics.py``).
2. Verify: SSA dominance, types of every operand, terminators, phi predecessors. The
   parser checks only what it needs to read the text; the verifier checks the rest.
3. Optimize with LLVM's new pass manager and its standard pipeline for the level
   (``PassBuilder::buildPerModuleDefaultPipeline``): O0 does almost nothing (so the
   machine code mirrors the IR), O1 cleans up (SROA, instcombine, simplifycfg), O2
   and O3 add inlining, loop rotation and unrolling, the loop vectorizer and the SLP
   vectorizer (which llvmlite leaves off unless asked; clang turns both on at O2).
   The target machine (host CPU and features) tells the vectorizer how wide vectors
   are and what instructions cost.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> from tinycomp.codegen.cpu.target import CpuHooks, target_machine
>>> machine = target_machine(opt_level=2)
>>> llvm_module = emit_llvm(parse('''func.func @same(%x: f32) -> f32 {
...   %one = arith.constant 1.0 : f32
...   %y = arith.mulf %x, %one : f32
...   return %y : f32
... }'''), CpuHooks(machine))
>>> module = parse_and_verify(llvm_module.text, llvm_module)
>>> optimize(module, machine, 2)
>>> [line.strip() for line in str(module).splitlines() if line.startswith("  ")]
['ret float %x']
"""

from __future__ import annotations

import llvmlite.binding as llvm

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.diagnostics import llvm_error
from tinycomp.codegen.llvm.renderer import LLVMModule

__all__ = ["optimize", "parse_and_verify"]


def parse_and_verify(text: str, emitted: LLVMModule) -> llvm.ModuleRef:
    """Steps 1-2: LLVM's module for ``text`` (``emitted``'s text, perhaps with more
    appended); errors name the LLVM line and the tinycomp op.

    >>> from tinycomp.codegen.llvm import emit_llvm
    >>> emitted = emit_llvm("func.func @f() {\\n  return\\n}")
    >>> parse_and_verify(emitted.text, emitted).get_function("f").name
    'f'
    """
    try:
        module = llvm.parse_assembly(text)
    except RuntimeError as error:
        raise llvm_error(emitted, str(error), "parsing") from None
    try:
        module.verify()
    except RuntimeError as error:
        raise llvm_error(emitted, str(error), "verification") from None
    return module


def optimize(module: llvm.ModuleRef, machine: llvm.TargetMachine, opt_level: int) -> None:
    """Step 3: run LLVM's default pipeline for ``opt_level`` on ``module``, in place.

    >>> from tinycomp.codegen.cpu.target import target_machine
    >>> module = llvm.parse_assembly("define i32 @f() {\\n  %a = add i32 2, 3\\n  ret i32 %a\\n}")
    >>> optimize(module, target_machine(1), 1)
    >>> "ret i32 5" in str(module)
    True
    """
    if opt_level not in (0, 1, 2, 3):
        raise CodegenError(f"expected an optimization level 0, 1, 2 or 3, got {opt_level!r}")
    options = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    options.loop_vectorization = opt_level >= 2
    options.slp_vectorization = opt_level >= 2
    builder = llvm.create_pass_builder(machine, options)
    builder.getModulePassManager().run(module, builder)
