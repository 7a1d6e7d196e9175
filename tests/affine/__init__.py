"""Tests of tinycomp.affine: expressions, maps, sets, footprints, the parser."""
