"""NPU presets: the figures of one Ascend-style chip that the NPU simulator and its
timing read.

A preset is a frozen table of numbers from the kit's hardware notes (Ascend C and CANN
documentation, the msKPP cost tables, catlass's architecture header):

* **cores**: AI cores, each one cube core (AIC) and two vector cores (AIV) on
  910B-class chips; the clock;
* **buffers** per core, in bytes: L1, L0A, L0B, L0C, BT and FB beside the cube, the
  unified buffer UB in each AIV; every address and DMA length 32-byte aligned;
* **data paths**: bytes per cycle of each DMA path of one core (``PATHS``), a latency
  a DMA pays before its first byte, and the HBM bandwidth that all cores share;
* **units**: the cube multiplies 16x16x16 fp16 fractals (4096 MACs a cycle); a vector
  instruction runs ``repeats`` of 256 bytes each (at most 255), after a startup;
* **sync**: 8 event ids between the pipes of a core; cross-core flags 0-10, at most 16
  pending sets.

Two come with the kit:

=========  ====================================================================
``910b2``  Ascend 910B2: 24 AIC : 48 AIV at 1.8 GHz, 192 KB UB, 512 KB L1, 1.6 TB/s
``small``  a toy of 2 AIC : 4 AIV at 1 GHz with small buffers, to reason about by hand
=========  ====================================================================

The DMA latency (500 cycles) and the HBM figure of the 910B2 are rules of thumb (third
parties disagree on the bandwidth); the on-chip copy latency, the cube's setup and the
scalar unit's one cycle an op are assumptions with no public figure behind them. The
chapter says where the model is wrong.

>>> chip = lookup_npu_preset("910b2")
>>> round(chip.cube_peak_tflops, 1), round(chip.vector_peak_tflops, 1)
(353.9, 22.1)
>>> chip.path_bytes_per_cycle("GM", "UB"), chip.buffer_bytes("UB")
(128, 196608)
>>> lookup_npu_preset("910c")
Traceback (most recent call last):
...
KeyError: "no NPU preset named '910c'; the presets are 910b2, small"
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tinycomp.dialects.npu.spaces import DMA_PATHS

__all__ = ["BUFFERS", "NPU_PRESETS", "NpuPreset", "PATHS", "lookup_npu_preset"]

KB = 1024

BUFFERS = ("L1", "L0A", "L0B", "L0C", "BT", "FB", "UB")
"""The on-chip buffers: beside the cube (L1 ... FB) and in each vector core (UB)."""

PATHS = DMA_PATHS
"""Every DMA path, (source, destination) -> the pipe that runs it (the npu dialect's
table: a copy's pipe is its path's)."""


@dataclass(frozen=True)
class NpuPreset:
    """One NPU's figures (per core unless the name says otherwise)."""

    name: str
    description: str
    aic_count: int
    """Cube cores, one per AI core."""
    aiv_per_aic: int
    """Vector cores per AI core (2 on 910B: a MIX kernel runs 1:1 or 1:2)."""
    clock_ghz: float
    buffers: dict[str, int] = field(hash=False)
    """Bytes of each buffer in ``BUFFERS`` (UB: per vector core)."""
    path_bytes: dict[tuple[str, str], int] = field(hash=False)
    """Bytes per cycle of each path in ``PATHS``, for one core."""
    hbm_bytes_per_second: float
    """Shared by every core's DMAs to and from GM."""
    dma_latency_cycles: int
    """Cycles before a DMA's first byte arrives (a rule of thumb)."""
    gm_line_bytes: int
    """GM is read in lines of this many bytes: a DMA is costed in whole lines."""
    alignment_bytes: int
    """Buffer addresses and DMA lengths must be multiples of this."""
    cube_macs_per_cycle: int
    """fp16 multiply-adds a cycle of one cube core: one 16x16x16 fractal."""
    fractal: int
    """The side of the cube's fractal (16 for fp16)."""
    vector_repeat_bytes: int
    """The bytes one repeat of a vector instruction covers (8 blocks of 32 bytes)."""
    max_repeats: int
    vector_startup_cycles: int
    vector_cycles_per_repeat: dict[str, int] = field(hash=False)
    """Cycles a repeat takes: ``"unary"`` (and vector-scalar) or ``"binary"``."""
    event_ids: int
    """Event ids for set_flag / wait_flag between two pipes of one core."""
    cross_core_flags: int
    max_pending_cross_core_sets: int
    l2_bytes: int = 192 * 1024 * 1024
    """The L2 in front of the HBM (192 MB is the 910B3's figure; the 910B2's is taken
    to be the same)."""
    l2_bytes_per_second: float = 8e12
    """The L2's bandwidth: five times the HBM's, from the L2:HBM ratio of 5:1."""
    onchip_dma_latency_cycles: int = 30
    """Cycles before an on-chip copy's first byte (L1 to L0, L0C out): assumed, a
    figure of the size of a GPU's shared-memory latency; no public source gives one."""
    cube_startup_cycles: int = 8
    """Cycles an ``mmad`` pays before its first fractal: assumed (no public figure)."""
    scalar_cycles_per_op: int = 1
    """Cycles of the scalar unit per scalar op and per instruction it dispatches."""

    @property
    def aiv_count(self) -> int:
        """Vector cores on the chip."""
        return self.aic_count * self.aiv_per_aic

    @property
    def cube_peak_tflops(self) -> float:
        """fp16 cube peak of the chip: two FLOPs a MAC."""
        return self.aic_count * self.cube_macs_per_cycle * 2 * self.clock_ghz / 1e3

    @property
    def vector_peak_tflops(self) -> float:
        """fp16 vector peak of the chip: a repeat of 128 halves a cycle, a multiply-add
        two FLOPs each."""
        lanes = self.vector_repeat_bytes // 2
        return self.aiv_count * lanes * 2 * self.clock_ghz / 1e3

    @property
    def hbm_bytes_per_cycle(self) -> float:
        """The shared HBM bandwidth in bytes per cycle of the clock."""
        return self.hbm_bytes_per_second / (self.clock_ghz * 1e9)

    @property
    def l2_bytes_per_cycle(self) -> float:
        """The L2's bandwidth in bytes per cycle of the core clock."""
        return self.l2_bytes_per_second / (self.clock_ghz * 1e9)

    def buffer_bytes(self, buffer: str) -> int:
        """The capacity of ``buffer`` (one of ``BUFFERS``); a clear error otherwise.

        >>> lookup_npu_preset("small").buffer_bytes("L0C")
        32768
        """
        if buffer not in self.buffers:
            raise KeyError(
                f"no buffer named {buffer!r} on {self.name}; the buffers are "
                f"{', '.join(BUFFERS)} (and GM)"
            )
        return self.buffers[buffer]

    def path_bytes_per_cycle(self, source: str, destination: str) -> int:
        """Bytes per cycle of the DMA path ``source -> destination`` of one core.

        >>> lookup_npu_preset("910b2").path_bytes_per_cycle("L1", "L0A")
        256
        >>> lookup_npu_preset("910b2").path_bytes_per_cycle("UB", "L1")
        Traceback (most recent call last):
        ...
        KeyError: 'no DMA path UB -> L1 on 910b2; the paths are GM -> L1, GM -> L0A, GM -> L0B, GM -> UB, L1 -> L0A, L1 -> L0B, UB -> GM, L0C -> GM, L0C -> L1'
        """  # noqa: E501
        key = (source, destination)
        if key not in self.path_bytes:
            paths = ", ".join(f"{a} -> {b}" for a, b in PATHS)
            raise KeyError(
                f"no DMA path {source} -> {destination} on {self.name}; the paths are {paths}"
            )
        return self.path_bytes[key]

    def with_changes(self, **changes: object) -> NpuPreset:
        """A copy with some figures changed (for "what if" questions).

        >>> lookup_npu_preset("910b2").with_changes(aic_count=20).aiv_count
        40
        """
        return replace(self, **changes)  # type: ignore[arg-type]


_910B_PATHS = {
    ("GM", "L1"): 256,
    ("GM", "L0A"): 128,
    ("GM", "L0B"): 128,
    ("GM", "UB"): 128,
    ("L1", "L0A"): 256,
    ("L1", "L0B"): 128,
    ("UB", "GM"): 128,  # not in the msKPP table: taken as GM -> UB's rate
    ("L0C", "GM"): 128,
    ("L0C", "L1"): 256,
}

NPU_PRESETS: dict[str, NpuPreset] = {
    "910b2": NpuPreset(
        name="910b2",
        description="Ascend 910B2: 24 AIC : 48 AIV, 1.8 GHz, 64 GB HBM",
        aic_count=24,
        aiv_per_aic=2,
        clock_ghz=1.8,
        buffers={
            "L1": 512 * KB,
            "L0A": 64 * KB,
            "L0B": 64 * KB,
            "L0C": 128 * KB,
            "BT": 1 * KB,
            "FB": 7 * KB,
            "UB": 192 * KB,
        },  # fmt: skip
        path_bytes=_910B_PATHS,
        hbm_bytes_per_second=1.6e12,
        dma_latency_cycles=500,
        gm_line_bytes=512,
        alignment_bytes=32,
        cube_macs_per_cycle=4096,
        fractal=16,
        vector_repeat_bytes=256,
        max_repeats=255,
        vector_startup_cycles=4,
        vector_cycles_per_repeat={"unary": 1, "binary": 2},
        event_ids=8,
        cross_core_flags=11,
        max_pending_cross_core_sets=16,
    ),
}
NPU_PRESETS["small"] = NPU_PRESETS["910b2"].with_changes(
    name="small",
    description="a toy of 2 AIC : 4 AIV at 1 GHz with small buffers",
    aic_count=2,
    clock_ghz=1.0,
    buffers={
        "L1": 64 * KB,
        "L0A": 16 * KB,
        "L0B": 16 * KB,
        "L0C": 32 * KB,
        "BT": 1 * KB,
        "FB": 2 * KB,
        "UB": 32 * KB,
    },  # fmt: skip
    hbm_bytes_per_second=64e9,
    l2_bytes=2 * 1024 * 1024,
    l2_bytes_per_second=320e9,
)


def lookup_npu_preset(name: str | NpuPreset) -> NpuPreset:
    """The preset named ``name`` (a preset passes through).

    >>> lookup_npu_preset("small").aiv_count
    4
    """
    if isinstance(name, NpuPreset):
        return name
    if name not in NPU_PRESETS:
        raise KeyError(
            f"no NPU preset named {name!r}; the presets are {', '.join(sorted(NPU_PRESETS))}"
        )
    return NPU_PRESETS[name]
