// affine.if: integer-set conditions on loop counters and symbols, with else and results.
#set = affine_set<(d0)[s0] : (d0 - 10 >= 0, -d0 + s0 - 1 >= 0)>
#set1 = affine_set<(d0, d1) : (d0 - d1 == 0)>
#set2 = affine_set<(d0) : (d0 mod 2 == 0)>
module {
  func.func @conditions(%A: memref<64x64xf32>, %n: index, %x: f32) -> f32 {
    %zero = arith.constant 0.000000e+00 : f32
    affine.for %i = 0 to 64 {
      affine.if #set(%i)[%n] {
        affine.store %x, %A[%i, 0] : memref<64x64xf32>
      }
      affine.for %j = 0 to 64 {
        affine.if #set1(%i, %j) {
          affine.store %x, %A[%i, %j] : memref<64x64xf32>
        } else {
          affine.store %zero, %A[%i, %j] : memref<64x64xf32>
        }
      }
    }
    %r = affine.if #set2(%n) -> f32 {
      affine.yield %x : f32
    } else {
      %neg = arith.negf %x : f32
      affine.yield %neg : f32
    } {tinycomp.parity}
    return %r : f32
  }
}
