// memref.atomic_rmw, memref.generic_atomic_rmw (a compare-and-swap), nvvm.shfl.sync in all kinds, nvvm.bar.warp.sync, vector.from_elements in a kernel.
module {
  gpu.module @atomics_shuffles {
    gpu.func @histogram_and_scan(%arg0: memref<?xi32>, %arg1: memref<?xf32>, %arg2: memref<?xi32>, %arg3: memref<?x?xf32>) workgroup(%arg4 : memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %c-1_i32 = arith.constant -1 : i32
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c31_i32 = arith.constant 31 : i32
      %c0 = arith.constant 0 : index
      %c3103_i32 = arith.constant 3103 : i32
      %thread_id_x = gpu.thread_id  x
      %0 = memref.load %arg0[%thread_id_x] : memref<?xi32>
      %1 = arith.index_cast %0 : i32 to index
      %2 = memref.atomic_rmw addi %c1_i32, %arg4[%1] : (i32, memref<64xi32, #gpu.address_space<workgroup>>) -> i32
      gpu.barrier
      %3 = memref.load %arg4[%thread_id_x] : memref<64xi32, #gpu.address_space<workgroup>>
      %4 = memref.atomic_rmw addi %3, %arg2[%thread_id_x] : (i32, memref<?xi32>) -> i32
      %5 = memref.atomic_rmw maxs %3, %arg2[%c0] : (i32, memref<?xi32>) -> i32
      %6 = memref.atomic_rmw minu %3, %arg2[%c0] : (i32, memref<?xi32>) -> i32
      %7 = memref.atomic_rmw assign %3, %arg2[%c0] : (i32, memref<?xi32>) -> i32
      %8 = memref.atomic_rmw ori %3, %arg2[%c0] : (i32, memref<?xi32>) -> i32
      %9 = memref.generic_atomic_rmw %arg2[%c0] : memref<?xi32> {
      ^bb0(%arg5: i32):
        %20 = arith.cmpi eq, %arg5, %c0_i32 : i32
        %21 = arith.select %20, %3, %arg5 : i32
        memref.atomic_yield %21 : i32
      }
      %10 = memref.load %arg1[%thread_id_x] : memref<?xf32>
      %11 = memref.atomic_rmw addf %10, %arg1[%c0] : (f32, memref<?xf32>) -> f32
      %12 = memref.atomic_rmw maximumf %10, %arg1[%c0] : (f32, memref<?xf32>) -> f32
      %13 = nvvm.shfl.sync  up %c-1_i32, %10, %c1_i32, %c0_i32 : f32 -> f32
      %14 = nvvm.shfl.sync  down %c-1_i32, %10, %c1_i32, %c31_i32 : f32 -> f32
      %15 = nvvm.shfl.sync  bfly %c-1_i32, %10, %c1_i32, %c3103_i32 : f32 -> f32
      %16 = nvvm.shfl.sync  idx %c-1_i32, %3, %c0_i32, %c31_i32 : i32 -> i32
      nvvm.bar.warp.sync %c-1_i32 : i32
      %17 = vector.from_elements %10, %13, %14, %15 : vector<4xf32>
      vector.store %17, %arg3[%thread_id_x, %c0] : memref<?x?xf32>, vector<4xf32>
      %18 = vector.load %arg3[%thread_id_x, %c0] : memref<?x?xf32>, vector<4xf32>
      %19 = vector.extract %18[2] : f32 from vector<4xf32>
      memref.store %19, %arg1[%thread_id_x] : memref<?xf32>
      gpu.return
    }
  }
}
