"""Tests of tinycomp.interp, the numpy reference interpreter."""
