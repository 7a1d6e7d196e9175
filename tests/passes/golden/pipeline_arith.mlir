// RUN: canonicalize,cse,dce
// The three passes together on a small kernel body: identities, folding, duplicates.
// Phase ordering shows: cse turns k^2 - n^2 into k2 - k2 only after canonicalize ran,
// so the subtraction stays; a second canonicalize would fold it to 0.
func.func @f(%x: f32, %y: f32, %n: i32) -> (f32, i32) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %six = arith.mulf %two, %three : f32
  %a = arith.mulf %x, %one : f32
  %b = arith.mulf %a, %six : f32
  %c = arith.mulf %x, %six : f32
  %d = arith.addf %b, %c : f32
  %unused = arith.divf %d, %y : f32
  %c0 = arith.constant 0 : i32
  %k = arith.addi %c0, %n : i32
  %k2 = arith.muli %k, %k : i32
  %k3 = arith.muli %n, %n : i32
  %k4 = arith.subi %k2, %k3 : i32
  return %d, %k4 : f32, i32
}
