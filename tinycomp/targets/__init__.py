"""Targets: what each one runs on and how it lowers each kind of kernel.

``cpu/``: the CPU target's machine model, the BLIS strategy for contractions and its pass
(``cpu-contraction-to-blis``), and the measured roofline.
"""
