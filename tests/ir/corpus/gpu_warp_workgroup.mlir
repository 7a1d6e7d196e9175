// Workgroup and private attributions, gpu.shuffle in all modes, gpu.subgroup_reduce, gpu.barrier.
module {
  gpu.module @reductions {
    gpu.func @block_sum(%arg0: memref<256xf32>, %arg1: memref<1xf32>) workgroup(%arg2 : memref<8xf32, #gpu.address_space<workgroup>>) private(%arg3 : memref<2xf32, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %c1_i32 = arith.constant 1 : i32
      %c16_i32 = arith.constant 16 : i32
      %c32_i32 = arith.constant 32 : i32
      %thread_id_x = gpu.thread_id  x
      %0 = gpu.lane_id
      %1 = gpu.subgroup_id : index
      %2 = memref.load %arg0[%thread_id_x] : memref<256xf32>
      memref.store %2, %arg3[%c0] : memref<2xf32, #gpu.address_space<private>>
      %shuffleResult, %valid = gpu.shuffle  xor %2, %c16_i32, %c32_i32 : f32
      %3 = arith.addf %2, %shuffleResult : f32
      %shuffleResult_0, %valid_1 = gpu.shuffle  down %3, %c1_i32, %c32_i32 : f32
      %shuffleResult_2, %valid_3 = gpu.shuffle  up %3, %c1_i32, %c16_i32 : f32
      %shuffleResult_4, %valid_5 = gpu.shuffle  idx %3, %c1_i32, %c32_i32 : f32
      %4 = gpu.subgroup_reduce  add %3 : (f32) -> f32
      memref.store %4, %arg2[%1] : memref<8xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %5 = memref.load %arg2[%0] : memref<8xf32, #gpu.address_space<workgroup>>
      %6 = gpu.subgroup_reduce  add %5 uniform cluster(size = 8) : (f32) -> f32
      %7 = gpu.subgroup_reduce  maxnumf %5 cluster(size = 4, stride = 2) : (f32) -> f32
      %8 = gpu.subgroup_reduce  minnumf %5 : (f32) -> f32
      %9 = arith.fptosi %5 : f32 to i32
      %10 = gpu.subgroup_reduce  and %9 : (i32) -> i32
      %11 = gpu.subgroup_reduce  or %9 : (i32) -> i32
      %12 = gpu.subgroup_reduce  xor %9 : (i32) -> i32
      %13 = gpu.subgroup_reduce  mul %9 : (i32) -> i32
      %shuffleResult_6, %valid_7 = gpu.shuffle  xor %9, %c1_i32, %c32_i32 : i32
      memref.store %6, %arg1[%c0] : memref<1xf32>
      gpu.return
    }
  }
}
