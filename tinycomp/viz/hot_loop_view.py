"""The hot loop of a program's machine code, for one named x86 CPU, counted and drawn.

Chapter 08's explorer asks one question many times: *what does LLVM make of this loop
nest at this optimization level and vector width, on this CPU?* ``compile_variant``
answers it with the real passes, and ``hot_loop_picture`` shows the answer:

1. Parse a fresh copy of the program; with a ``vector_width`` run tinycomp's
   ``vectorize-loops`` at that width with ``contract=True`` (``a * b + c`` becomes one
   ``vector.fma``). Width 0 leaves the loops scalar: LLVM's own loop vectorizer then
   decides at ``-O2`` and ``-O3``, with its own width and without fusing (the IR has no
   ``contract`` flag).
2. Emit LLVM IR for a target machine of the *named* CPU on x86-64 (``haswell``,
   ``skylake-avx512``, ``znver4``: not the host, so every machine prints the same
   listing), optimize at ``opt_level`` and print the entry function's assembly.
3. Find the hot loop: a loop is a label and a later jump back to it; the hot one does the
   most floating-point work per iteration (instructions weighted by their lanes: 16 for a
   ``zmm`` ``...ps``, 1 for a scalar ``...ss``), the shorter loop on a tie.
4. Count it with the rules of ``tinycomp.codegen.cpu.assembly_stats.hot_loop`` (FMAs, loads,
   stores, spills through the stack pointer) and annotate each instruction with what it
   was counted as.

Every result is cached per argument tuple, so moving a slider back is instant.

>>> text = '''func.func @scale(%x: memref<?xf32>, %a: f32) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %n = memref.dim %x, %c0 : memref<?xf32>
...   scf.for %i = %c0 to %n step %c1 {
...     %v = memref.load %x[%i] : memref<?xf32>
...     %w = arith.mulf %v, %a : f32
...     memref.store %w, %x[%i] : memref<?xf32>
...   }
...   return
... }'''
>>> variant = compile_variant(text, "scale", "haswell", opt_level=3, vector_width=8)
>>> variant.loop.fmas, variant.loop.fma_registers, variant.loop.spills
(0, '', 0)
>>> [line.split()[0] for line in variant.loop.text.splitlines()][:2]
['vmulps', 'vmovups']
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import cache, lru_cache

import llvmlite.binding as llvm

from tinycomp.codegen.cpu.assembly import function_assembly
from tinycomp.codegen.cpu.assembly_stats import LoopStats, hot_loop
from tinycomp.codegen.cpu.optimize import optimize, parse_and_verify
from tinycomp.codegen.cpu.target import CpuHooks
from tinycomp.codegen.llvm import emit_llvm
from tinycomp.ir import parse
from tinycomp.passes.vectorize import VectorizeLoopsPass
from tinycomp.viz.picture import Picture

__all__ = ["CPUS", "Variant", "compile_variant", "hot_loop_picture", "hottest_loop"]

X86_64 = "x86_64-unknown-linux-gnu"
"""The triple every variant is compiled for, whatever the host is."""

CPUS = {
    "haswell": "AVX2 + FMA, 16 ymm registers (Intel, 2013)",
    "skylake-avx512": "AVX-512, 32 zmm registers; LLVM prefers 256-bit vectors (Intel, 2017)",
    "znver4": "AVX-512, 32 zmm registers; LLVM uses 512-bit vectors (AMD Zen 4, 2022)",
}
"""The CPUs the explorer offers by default, as LLVM names them, with what they have."""

_LABEL = re.compile(r"^(\.L[\w$.]+):")
_JUMP = re.compile(r"^j\w+\s+(\.L[\w$.]+)")
_FP_ARITHMETIC = re.compile(r"^v?(fn?m(add|sub)\w*|add|sub|mul|div|min|max|sqrt)(p|s)([sdh])$")
_REGISTER_LANES = {"xmm": 128, "ymm": 256, "zmm": 512}
_ELEMENT_BITS = {"s": 32, "d": 64, "h": 16}


@dataclass(frozen=True)
class Variant:
    """One compiled setting: the entry function's assembly and its hot loop."""

    cpu: str
    opt_level: int
    vector_width: int
    """tinycomp's ``vectorize-loops`` width; 0: none (LLVM's vectorizer decides)."""
    assembly: str
    """The entry function's assembly, ``.cfi`` directives dropped."""
    loop: LoopStats | None
    """The hot loop's counts (None when the function has no loop)."""
    llvm_vector_lanes: int
    """The widest ``<N x float>`` in the optimized LLVM IR (1: scalar code)."""

    def describe(self) -> str:
        """One line for a label: the setting and the hot loop's counts."""
        width = "LLVM's width" if self.vector_width == 0 else f"width {self.vector_width}"
        setting = f"{self.cpu}, O{self.opt_level}, {width}"
        if self.loop is None:
            return f"{setting}: no loop in the assembly"
        counts = dict(_counts(self.loop))
        return (
            f"{setting}: hot loop of {counts['instructions']} instructions, "
            f"{counts['FMAs']} FMAs, {counts['loads']} loads, {counts['stores']} stores, "
            f"{counts['spills']} spills; {counts['FMAs per load']} FMAs per load"
        )


def _width_words(vector_width: int) -> str:
    if vector_width == 0:
        return "LLVM's choice of width"
    return f"vectorize-loops width {vector_width}"


@cache
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def _x86_machine(cpu: str, opt_level: int) -> llvm.TargetMachine:
    _initialize()
    target = llvm.Target.from_triple(X86_64)
    return target.create_target_machine(cpu=cpu, features="", opt=opt_level)


@lru_cache(maxsize=256)
def compile_variant(
    text: str, entry: str, cpu: str, opt_level: int = 3, vector_width: int = 0
) -> Variant:
    """Steps 1-3 for the MLIR ``text`` of a loop-level module (see the module docstring).

    >>> variant = compile_variant("func.func @f(%x: f32) -> f32 {\\n  return %x : f32\\n}", "f",
    ...                           "znver4")
    >>> variant.loop is None, variant.llvm_vector_lanes, variant.describe()
    (True, 1, "znver4, O3, LLVM's width: no loop in the assembly")
    """
    module = parse(text)
    if vector_width:
        VectorizeLoopsPass(vector_width=vector_width, contract=True).run(module)
    machine = _x86_machine(cpu, opt_level)
    emitted = emit_llvm(module, CpuHooks(machine))
    llvm_module = parse_and_verify(emitted.text, emitted)
    optimize(llvm_module, machine, opt_level)
    optimized = str(llvm_module)
    lanes = [int(n) for n in re.findall(r"<(\d+) x float>", optimized)]
    assembly = function_assembly(machine.emit_assembly(llvm_module), entry)
    return Variant(
        cpu, opt_level, vector_width, assembly, hottest_loop(assembly), max(lanes or [1])
    )


def _instructions(assembly: str) -> list[str]:
    lines = []
    for raw in assembly.splitlines():
        line = " ".join(raw.split("#")[0].split())
        if line and not (line.startswith(".") and not _LABEL.match(line)):
            lines.append(line)
    return lines


def _fp_lanes(line: str) -> int:
    """Floating-point lanes an instruction computes (0 for anything else)."""
    mnemonic, _, operands = line.partition(" ")
    match = _FP_ARITHMETIC.match(mnemonic)
    if match is None:
        return 0
    if match.group(3) == "s":  # scalar: ss, sd, sh
        return 1
    registers = re.findall(r"%([xyz]mm)\d+", operands)
    bits = max((_REGISTER_LANES[r] for r in registers), default=128)
    return bits // _ELEMENT_BITS[match.group(4)]


def hottest_loop(assembly: str) -> LoopStats | None:
    """Step 3-4: the loop doing the most floating-point work per iteration, counted.

    >>> asm = '''f:
    ... .LBB0_1:
    ...   vaddss %xmm0, %xmm1, %xmm1
    ...   jne .LBB0_1
    ... .LBB0_2:
    ...   vmovups (%rdi), %ymm2
    ...   vfmadd231ps %ymm2, %ymm3, %ymm0
    ...   jne .LBB0_2'''
    >>> loop = hottest_loop(asm)
    >>> loop.label, loop.fmas, loop.loads
    ('.LBB0_2', 1, 1)
    """
    lines = _instructions(assembly)
    positions = {}
    for index, line in enumerate(lines):
        label = _LABEL.match(line)
        if label:
            positions[label.group(1)] = index
    loops = []
    for index, line in enumerate(lines):
        jump = _JUMP.match(line)
        if jump and positions.get(jump.group(1), index) < index:
            label = jump.group(1)
            body = [x for x in lines[positions[label] + 1 : index + 1] if not _LABEL.match(x)]
            work = sum(_fp_lanes(x) for x in body)
            loops.append((work, -len(body), label, body))
    if not loops:
        return None
    work, _, label, body = max(loops)
    return hot_loop("\n".join([f"{label}:", *body]))


def _kinds(line: str) -> list[str]:
    """What ``hot_loop`` counts an instruction as: FMA, stack (a spill), load, store."""
    stats = hot_loop(f".L0:\n{line}\njmp .L0")
    kinds = []
    if stats.fmas:
        kinds.append("FMA")
    if stats.spills:
        kinds.append("stack")
    if stats.loads > 0 and not line.startswith("j"):
        kinds.append("load")
    if stats.stores:
        kinds.append("store")
    return kinds


STYLE = {"FMA": "#dafbe1", "load": "#ddf4ff", "store": "#fff1e5", "stack": "#ffebe9"}
"""Row backgrounds by what the instruction was counted as: an access through the stack
pointer (a spill, or at O0 any value: O0 keeps every value in a stack slot) wins."""
_FONT, _CHAR, _ROW, _PAD = 13, 7.9, 18, 10


def hot_loop_picture(variant: Variant, previous: Variant | None = None) -> Picture:
    """The hot loop, one instruction a row, coloured by kind; counts that changed since
    ``previous`` are drawn bold in orange (the text twin does not depend on ``previous``).

    >>> text = "func.func @f() {\\n  return\\n}"
    >>> print(hot_loop_picture(compile_variant(text, "f", "haswell", 0)).text)
    @f for haswell at O0, LLVM's choice of width
      haswell: AVX2 + FMA, 16 ymm registers (Intel, 2013)
    no loop: the function is straight-line code
    """
    entry = variant.assembly.splitlines()[0].rstrip(":")
    heading = f"@{entry} for {variant.cpu} at O{variant.opt_level}, "
    heading += _width_words(variant.vector_width)
    note = f"  {variant.cpu}: {CPUS.get(variant.cpu, 'an x86-64 CPU as LLVM models it')}"
    stats = variant.loop
    if stats is None:
        return Picture.from_text(f"{heading}\n{note}\nno loop: the function is straight-line code")
    counts = _counts(stats)
    old = dict(_counts(previous.loop)) if previous is not None and previous.loop else None
    summary: list[tuple[str, str]] = [("  ", "plain")]
    for index, (name, value) in enumerate(counts):
        changed = old is not None and old.get(name) != value
        summary.append((f"{name} {value}", "changed" if changed else "plain"))
        if index < len(counts) - 1:
            summary.append((", ", "plain"))
    rows: list[tuple[list[tuple[str, str]], str]] = [
        ([(heading, "bold")], ""),
        ([(note, "dim")], ""),
        (summary, ""),
        ([(f"{stats.label}:", "plain")], ""),
    ]
    text_lines = [heading, note, "".join(part for part, _ in summary), f"{stats.label}:"]
    for line in stats.text.splitlines():
        kinds = _kinds(line)
        tag = f"  # {', '.join(kinds)}" if kinds else ""
        text_lines.append(f"  {line}{tag}")
        colour = "stack" if "stack" in kinds else (kinds[0] if kinds else "")
        rows.append(([(f"  {line}", "plain"), (tag, "dim")], colour))
    return Picture(text="\n".join(text_lines), svg=_draw(rows, heading))


def _counts(stats: LoopStats) -> list[tuple[str, str]]:
    """The numbers shown above the listing, in order."""
    arithmetic = [line for line in stats.text.splitlines() if _fp_lanes(line)]
    registers = {kind for line in arithmetic for kind in re.findall(r"%([xyz]mm)\d+", line)}
    widest = max(registers, key=lambda kind: _REGISTER_LANES[kind], default="")
    if arithmetic and all(_fp_lanes(line) == 1 for line in arithmetic):
        widest = "scalar"
    per_load = f"{stats.fmas / stats.loads:.2f}" if stats.loads else "-"
    return [
        ("instructions", str(stats.instructions)),
        ("arithmetic", f"{len(arithmetic)}" + (f" ({widest})" if arithmetic else "")),
        ("FMAs", str(stats.fmas)),
        ("loads", str(stats.loads)),
        ("stores", str(stats.stores)),
        ("spills", str(stats.spills)),
        ("FMAs per load", per_load),
    ]


TEXT_STYLES = {
    "plain": ("#24292f", ""),
    "bold": ("#24292f", ' font-weight="bold"'),
    "dim": ("#57606a", ""),
    "changed": ("#bc4c00", ' font-weight="bold" class="changed"'),
}
"""Colour and SVG attributes of each kind of text: a changed count is bold orange."""


def _draw(rows: list[tuple[list[tuple[str, str]], str]], title: str) -> str:
    """Rows of styled text pieces on optional coloured bands, as one ``<svg>``."""
    longest = max(sum(len(text) for text, _ in pieces) for pieces, _ in rows)
    width = round(2 * _PAD + longest * _CHAR)
    height = 2 * _PAD + len(rows) * _ROW
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{html.escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for number, (pieces, kind) in enumerate(rows):
        top = _PAD + number * _ROW
        if kind:
            parts.append(
                f'<rect x="{_PAD}" y="{top}" width="{width - 2 * _PAD}" height="{_ROW}" '
                f'fill="{STYLE[kind]}"/>'
            )
        column = 0
        for text, style in pieces:
            if text:
                colour, extra = TEXT_STYLES[style]
                parts.append(
                    f'<text x="{_PAD + column * _CHAR:g}" y="{top + _ROW - 5}" '
                    f'font-family="monospace" font-size="{_FONT}" fill="{colour}" '
                    f'style="white-space:pre"{extra}>{html.escape(text)}</text>'
                )
            column += len(text)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
