// gpu.module, gpu.func (kernel and device function), the id and dim ops, gpu.launch_func.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @saxpy(%arg0: f32, %arg1: memref<?xf32>, %arg2: memref<?xf32>, %arg3: index) kernel {
      %thread_id_x = gpu.thread_id  x
      %block_id_x = gpu.block_id  x
      %block_dim_x = gpu.block_dim  x
      %0 = arith.muli %block_id_x, %block_dim_x : index
      %1 = arith.addi %0, %thread_id_x : index
      %2 = arith.cmpi ult, %1, %arg3 : index
      scf.if %2 {
        %3 = memref.load %arg1[%1] : memref<?xf32>
        %4 = memref.load %arg2[%1] : memref<?xf32>
        %5 = arith.mulf %arg0, %3 : f32
        %6 = arith.addf %5, %4 : f32
        memref.store %6, %arg2[%1] : memref<?xf32>
      }
      gpu.return
    }
    gpu.func @ids(%arg0: memref<8xindex>) kernel {
      %thread_id_y = gpu.thread_id  y upper_bound 4
      %thread_id_z = gpu.thread_id  z
      %block_id_y = gpu.block_id  y
      %block_id_z = gpu.block_id  z
      %block_dim_y = gpu.block_dim  y
      %block_dim_z = gpu.block_dim  z
      %grid_dim_x = gpu.grid_dim  x
      %grid_dim_y = gpu.grid_dim  y
      %0 = gpu.lane_id
      %1 = gpu.subgroup_id : index
      gpu.return
    }
    gpu.func @helper(%arg0: f32) -> f32 {
      gpu.return %arg0 : f32
    }
  }
  func.func @main(%arg0: f32, %arg1: memref<?xf32>, %arg2: memref<?xf32>, %arg3: index) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c1024_i32 = arith.constant 1024 : i32
    gpu.launch_func  @kernels::@saxpy blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)  args(%arg0 : f32, %arg1 : memref<?xf32>, %arg2 : memref<?xf32>, %arg3 : index)
    gpu.launch_func  @kernels::@saxpy blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)  dynamic_shared_memory_size %c1024_i32 args(%arg0 : f32, %arg1 : memref<?xf32>, %arg2 : memref<?xf32>, %arg3 : index) {tag}
    return
  }
}
