// Loads, stores, copies and shape queries, including rank-0 buffers and cache hints.
module {
  func.func @access(%A: memref<4x?xf32>, %B: memref<4x?xf32>, %s: memref<i64>, %i: index, %j: index) -> (f32, index, index) {
    %x = memref.load %A[%i, %j] : memref<4x?xf32>
    %y = memref.load %B[%i, %j] {nontemporal = true} : memref<4x?xf32>
    %sum = arith.addf %x, %y : f32
    memref.store %sum, %A[%j, %i] : memref<4x?xf32>
    memref.store %sum, %B[%i, %i] {nontemporal = true} : memref<4x?xf32>
    %count = memref.load %s[] : memref<i64>
    %c1_i64 = arith.constant 1 : i64
    %next = arith.addi %count, %c1_i64 : i64
    memref.store %next, %s[] : memref<i64>
    memref.copy %A, %B : memref<4x?xf32> to memref<4x?xf32>
    %c1 = arith.constant 1 : index
    %cols = memref.dim %A, %c1 : memref<4x?xf32>
    %rank = memref.rank %B : memref<4x?xf32>
    return %sum, %cols, %rank : f32, index, index
  }
  func.func @copy_between_spaces(%global: memref<64xf32>, %shared: memref<64xf32, 3>) {
    memref.copy %global, %shared : memref<64xf32> to memref<64xf32, 3>
    return
  }
}
