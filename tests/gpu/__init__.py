"""End-to-end tests of ``tinycomp.gpu``: DSL kernels launched on the simulator."""
