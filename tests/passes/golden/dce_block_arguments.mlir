// RUN: dce
// Unused arguments of non-entry blocks go, with the values the branches pass to them;
// then those values may be dead too.
func.func @f(%x: i32, %c: i1) -> i32 {
  %dead = arith.muli %x, %x : i32
  cf.cond_br %c, ^bb1(%dead, %x : i32, i32), ^bb2
^bb1(%unused: i32, %used: i32):
  cf.br ^bb3(%used, %dead : i32, i32)
^bb2:
  cf.br ^bb3(%x, %x : i32, i32)
^bb3(%r: i32, %also_unused: i32):
  return %r : i32
}
