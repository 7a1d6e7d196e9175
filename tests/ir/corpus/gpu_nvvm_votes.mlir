// nvvm.redux.sync, nvvm.vote.sync (ballot, any, all, uni), nvvm.elect.sync in a kernel.
module {
  gpu.module @warp_votes {
    gpu.func @votes(%arg0: memref<32xi32>, %arg1: memref<32xf32>, %arg2: memref<32xi32>) kernel {
      %c-1_i32 = arith.constant -1 : i32
      %c0_i32 = arith.constant 0 : i32
      %thread_id_x = gpu.thread_id  x
      %0 = memref.load %arg0[%thread_id_x] : memref<32xi32>
      %1 = memref.load %arg1[%thread_id_x] : memref<32xf32>
      %2 = arith.cmpi sgt, %0, %c0_i32 : i32
      %3 = nvvm.redux.sync  add %0, %c-1_i32 : i32 -> i32
      %4 = nvvm.redux.sync  umax %0, %c-1_i32 : i32 -> i32
      %5 = nvvm.redux.sync  min %0, %c-1_i32 : i32 -> i32
      %6 = nvvm.redux.sync  fmax %1, %c-1_i32 {abs = true, nan = true} : f32 -> f32
      %7 = nvvm.vote.sync  ballot %c-1_i32, %2 -> i32
      %8 = nvvm.vote.sync  any %c-1_i32, %2 -> i1
      %9 = nvvm.vote.sync  all %c-1_i32, %2 -> i1
      %10 = nvvm.vote.sync  uni %c-1_i32, %2 -> i1
      %11 = nvvm.elect.sync -> i1
      %12 = nvvm.elect.sync %c-1_i32 -> i1
      scf.if %11 {
        memref.store %7, %arg2[%thread_id_x] : memref<32xi32>
      }
      gpu.barrier
      gpu.return
    }
  }
}
