// affine and scf together: scf.if inside affine loops, affine index math inside scf loops
// (on values that are valid symbols there), a reduction into a stack buffer.
#map = affine_map<()[s0] -> (s0 * 2)>
module {
  func.func @mixed(%A: memref<32x32xf32>, %n: index, %flag: i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %acc = memref.alloca() : memref<f32>
    memref.store %zero, %acc[] : memref<f32>
    affine.for %i = 0 to 32 {
      affine.for %j = 0 to 32 {
        %x = affine.load %A[%i, %j] : memref<32x32xf32>
        scf.if %flag {
          %s = affine.load %acc[] : memref<f32>
          %t = arith.addf %s, %x : f32
          affine.store %t, %acc[] : memref<f32>
        }
      }
    }
    scf.for %k = %c0 to %n step %c1 {
      %twice = affine.apply #map()[%n]
      %y = memref.load %A[%k, %twice] : memref<32x32xf32>
      affine.for %l = 0 to %twice {
        affine.store %y, %A[%l, symbol(%n)] : memref<32x32xf32>
      }
    }
    %r = memref.load %acc[] : memref<f32>
    return %r : f32
  }
}
