// affine.load and affine.store subscripts: sums, scaled counters, floordiv, mod, ceildiv,
// symbols, constants and rank-0 buffers.
module {
  func.func @subscripts(%A: memref<100x100xf32>, %B: memref<100xf32>, %S: memref<f32>, %n: index) {
    affine.for %i = 0 to 10 {
      affine.for %j = 0 to 20 {
        %a = affine.load %A[%i + 1, %j * 2] : memref<100x100xf32>
        %b = affine.load %A[%j floordiv 4 + %i mod 3, %i ceildiv 2] : memref<100x100xf32>
        %c = affine.load %A[%i + symbol(%n), symbol(%n) * 2 - 1] : memref<100x100xf32>
        %d = affine.load %B[%i * 10 + %j] : memref<100xf32>
        %e = affine.load %A[%j, %j + %i - 3] : memref<100x100xf32>
        %f = affine.load %A[-%i + 50, 7] : memref<100x100xf32>
        %s1 = arith.addf %a, %b : f32
        %s2 = arith.addf %c, %d : f32
        %s3 = arith.addf %e, %f : f32
        affine.store %s1, %A[%i, %j] : memref<100x100xf32>
        affine.store %s2, %B[(%i + %j) mod 100] : memref<100xf32>
        affine.store %s3, %A[%j * 3 - %i * 2 + 40, symbol(%n) floordiv 8] : memref<100x100xf32>
      }
    }
    %t = affine.load %S[] : memref<f32>
    affine.store %t, %S[] : memref<f32>
    return
  }
}
