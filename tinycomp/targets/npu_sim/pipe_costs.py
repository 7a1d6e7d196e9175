"""What one DMA or one vector instruction costs on a pipe, in cycles of the core clock.

These are the per-op costs the NPU simulator's timeline schedules (hardware notes,
section 6, after msKPP's model):

* **DMA** on MTE1, MTE2, MTE3 or FIX: a fixed latency, then the bytes moved over the
  path's rate. From GM the bytes are padded to whole 512-byte lines (GM is read a line
  at a time); ``sharers`` DMAs in flight on one path split its rate, and all the cores'
  GM traffic together cannot exceed the HBM bandwidth (``hbm_sharers`` cores moving at
  once share it).
* **vector** on V: a startup, then one repeat (256 bytes) a cycle for unary and
  vector-scalar ops, two for vector-vector ops; an op over more than 255 repeats is
  several instructions, each paying the startup.

>>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
>>> chip = lookup_npu_preset("910b2")
>>> dma_cycles(chip, "GM", "UB", 32 * 1024)            # 500 + 32 KB / 128 B a cycle
756.0
>>> vector_cycles(chip, 16 * 1024 * 2, "binary")       # 16 K halves: 128 repeats x 2
260
"""

from __future__ import annotations

from tinycomp.targets.npu_sim.preset import NpuPreset

__all__ = ["dma_cycles", "padded_bytes", "vector_cycles", "vector_repeats"]


def padded_bytes(preset: NpuPreset, source: str, nbytes: int) -> int:
    """The bytes a DMA from ``source`` really moves: whole GM lines when it reads GM,
    else ``nbytes`` (which must be 32-byte aligned, as on the chip).

    >>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
    >>> padded_bytes(lookup_npu_preset("910b2"), "GM", 100 * 32)
    3584
    """
    if nbytes <= 0 or nbytes % preset.alignment_bytes:
        raise ValueError(
            f"DMA from {source}: expected a length that is a positive multiple of "
            f"{preset.alignment_bytes} bytes, got {nbytes}"
        )
    if source != "GM":
        return nbytes
    line = preset.gm_line_bytes
    return -(-nbytes // line) * line


def dma_cycles(
    preset: NpuPreset,
    source: str,
    destination: str,
    nbytes: int,
    *,
    sharers: int = 1,
    hbm_sharers: int = 1,
) -> float:
    """Cycles of one DMA of ``nbytes`` from ``source`` to ``destination`` (module
    docstring), with ``sharers`` DMAs on the same path of this core and ``hbm_sharers``
    cores moving GM data at the same time.

    >>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
    >>> chip = lookup_npu_preset("910b2")
    >>> dma_cycles(chip, "GM", "UB", 32 * 1024, sharers=2)   # half the path's rate
    1012.0
    >>> round(dma_cycles(chip, "GM", "UB", 32 * 1024, hbm_sharers=48))  # 1/48 of HBM
    2269
    """
    if sharers < 1 or hbm_sharers < 1:
        raise ValueError(
            f"expected at least one DMA sharing each rate, got {sharers}, {hbm_sharers}"
        )
    rate = preset.path_bytes_per_cycle(source, destination) / sharers
    if "GM" in (source, destination):
        rate = min(rate, preset.hbm_bytes_per_cycle / hbm_sharers)
    moved = padded_bytes(preset, source, nbytes)
    return preset.dma_latency_cycles + moved / rate


def vector_repeats(preset: NpuPreset, nbytes: int) -> int:
    """Repeats of 256 bytes a vector op over ``nbytes`` takes (a partial repeat runs
    masked and counts whole).

    >>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
    >>> vector_repeats(lookup_npu_preset("small"), 1000)
    4
    """
    return -(-nbytes // preset.vector_repeat_bytes)


def vector_cycles(preset: NpuPreset, nbytes: int, kind: str = "unary") -> int:
    """Cycles of a vector op over ``nbytes`` of its widest operand; ``kind`` is
    ``"unary"`` (and vector-scalar) or ``"binary"`` (vector-vector).

    >>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
    >>> vector_cycles(lookup_npu_preset("910b2"), 256 * 300)   # 255 + 45 repeats
    308
    """
    per_repeat = preset.vector_cycles_per_repeat.get(kind)
    if per_repeat is None:
        kinds = ", ".join(sorted(preset.vector_cycles_per_repeat))
        raise ValueError(f"vector op: expected a kind among {kinds}, got {kind!r}")
    repeats = vector_repeats(preset, nbytes)
    instructions = -(-repeats // preset.max_repeats)
    return instructions * preset.vector_startup_cycles + repeats * per_repeat
