"""The SIMT GPU simulator: kernels run on numpy, checked, counted and timed.

``simulate`` (``simulator.py``) runs a ``gpu.func`` kernel over a grid of blocks, as a
GPU would, on the arrays passed; ``tinycomp.gpu.launch`` wraps it with the DSL, the
occupancy calculator and the cost model. The files, by role:

* the chip: ``preset.py`` (h100, a100, a6000, classroom), ``launch_config.py`` (a
  launch's shape against the preset's limits), ``arguments.py`` (the kernel's
  arguments against its signature);
* running: ``executor.py`` compiles the kernel once into closures; ``lanes.py`` holds a
  chunk of blocks as numpy arrays over its lanes and the active masks; ``control.py``
  runs ``scf.if``/``for``/``while`` under masks and reconverges at their end;
  ``arith_ops.py``, ``vector_ops.py``, ``memory_ops.py`` (+ ``memory_access.py``,
  ``memory.py``), ``atomics.py``, ``warp_ops.py`` (shuffles), ``warp_votes.py``,
  ``sync_ops.py`` (ids, barriers) run the ops; ``context.py`` is what they share;
* checking: ``sanitizer.py`` (bounds, uninitialised shared memory, races, barrier
  divergence), ``errors.py`` (the messages, compute-sanitizer's style);
* counting: ``counters.py`` (per block), ``op_classes.py`` and ``emitted_code.py``
  (which ops issue which instruction, as ptxas would emit them), ``accounting.py``
  (sectors, wavefronts, atomic conflicts), ``footprint.py`` (distinct sectors),
  ``trace.py`` + ``trace_recorder.py`` (one warp's instructions, for pictures);
* timing: ``registers.py`` (registers from liveness), ``occupancy.py``, ``waves.py``,
  ``cost_model.py`` (+ ``cost_memory.py``: the reuse model, ``cost_constants.py``,
  ``cost_estimate.py``), ``roofline_place.py``;
* ``interp_rule.py``: ``gpu.launch_func`` in the reference interpreter.

>>> from tinycomp.targets.gpu_sim.preset import lookup_preset
>>> lookup_preset("classroom").sm_count
2
"""
