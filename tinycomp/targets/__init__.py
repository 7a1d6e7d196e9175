"""Targets: what each one runs on and how it lowers each kind of kernel.

``gpu_sim/``: the SIMT GPU simulator (functional, sanitizer, counters, occupancy, cost
model) that ``tinycomp.gpu.launch`` runs kernels on.

``cpu/``: the CPU target's machine model, the BLIS strategy for contractions and its pass
(``cpu-contraction-to-blis``), and the measured roofline.
"""
