// GELU and layernorm's normalization step on buffers: erf, rsqrt and fma in scf loops.
module {
  func.func @gelu(%x: memref<?xf32>, %y: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %inv_sqrt2 = arith.constant 0.707106769 : f32
    %n = memref.dim %x, %c0 : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %x[%i] : memref<?xf32>
      %s = arith.mulf %v, %inv_sqrt2 : f32
      %e = math.erf %s : f32
      %t = arith.addf %e, %one : f32
      %h = arith.mulf %v, %half : f32
      %g = arith.mulf %h, %t : f32
      memref.store %g, %y[%i] : memref<?xf32>
    }
    return
  }
  func.func @normalize(%x: memref<4x64xf32>, %mean: memref<4xf32>, %var: memref<4xf32>, %y: memref<4x64xf32>) {
    %eps = arith.constant 9.99999974E-6 : f32
    affine.for %r = 0 to 4 {
      %m = affine.load %mean[%r] : memref<4xf32>
      %v = affine.load %var[%r] : memref<4xf32>
      %ve = arith.addf %v, %eps : f32
      %inv = math.rsqrt %ve fastmath<afn> : f32
      %neg = arith.negf %m : f32
      %shift = arith.mulf %neg, %inv : f32
      affine.for %c = 0 to 64 {
        %a = affine.load %x[%r, %c] : memref<4x64xf32>
        %n = math.fma %a, %inv, %shift : f32
        affine.store %n, %y[%r, %c] : memref<4x64xf32>
      }
    }
    return
  }
}
