// A tiled matmul on buffers: scf loops over tiles, subviews for the tiles, an inner k loop.
module {
  func.func @matmul(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    scf.for %ti = %c0 to %c64 step %c16 {
      scf.for %tj = %c0 to %c64 step %c16 {
        %Ct = memref.subview %C[%ti, %tj] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
        scf.for %i = %c0 to %c16 step %c1 {
          scf.for %j = %c0 to %c16 step %c1 {
            %init = memref.load %Ct[%i, %j] : memref<16x16xf32, strided<[64, 1], offset: ?>>
            %row = arith.addi %ti, %i : index
            %col = arith.addi %tj, %j : index
            %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%sum = %init) -> (f32) {
              %a = memref.load %A[%row, %k] : memref<64x64xf32>
              %b = memref.load %B[%k, %col] : memref<64x64xf32>
              %p = arith.mulf %a, %b : f32
              %s = arith.addf %sum, %p : f32
              scf.yield %s : f32
            }
            memref.store %acc, %Ct[%i, %j] : memref<16x16xf32, strided<[64, 1], offset: ?>>
          }
        }
      }
    }
    return
  }
}
