// RUN: dce
// A private function nobody calls is dead; a public one, or one that is called, stays.
func.func private @unused(%x: i32) -> i32 {
  return %x : i32
}
func.func private @helper(%x: i32) -> i32 {
  %y = arith.addi %x, %x : i32
  return %y : i32
}
func.func @main(%x: i32) -> i32 {
  %r = func.call @helper(%x) : (i32) -> i32
  return %r : i32
}
func.func @also_public() {
  return
}
