"""The Da Vinci NPU simulator: Ascend-style AI cores on numpy, with per-pipe timing.

An AI core of a 910B-class chip is one cube core (AIC: scalar, MTE1, MTE2, cube and
FixPipe pipes; the L1, L0A, L0B and L0C buffers) and two vector cores (AIV: scalar,
MTE2, MTE3 and vector pipes; the unified buffer UB). The files, by role:

* the chip: ``preset.py`` (``910b2`` and ``small``: cores, clock, buffers, the bytes a
  cycle of each data path, the vector and cube rates, the sync resources);
* data: ``nz_layout.py`` (the fractal layout the cube reads, to and from row-major);
* timing: ``pipe_costs.py`` (what one DMA or one vector instruction costs on its pipe).

>>> from tinycomp.targets.npu_sim.preset import lookup_npu_preset
>>> lookup_npu_preset("910b2").aic_count
24
"""
