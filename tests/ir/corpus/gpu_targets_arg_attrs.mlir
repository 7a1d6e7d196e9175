// gpu.module with a target, gpu.func argument attributes and known_block_size.
module {
  gpu.module @m [#nvvm.target<chip = "sm_90">] {
    gpu.func @k(%arg0: memref<?xf32> {llvm.noalias}, %arg1: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      gpu.return
    }
  }
}
