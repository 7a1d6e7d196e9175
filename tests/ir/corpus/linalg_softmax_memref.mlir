// Softmax on buffers: the same four loop nests writing into temporaries.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: memref<4x16xf32>, %out: memref<4x16xf32>, %max: memref<4xf32>, %sum: memref<4xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%lowest : f32) outs(%max : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x16xf32>) outs(%max : memref<4xf32>) {
  ^bb0(%v: f32, %m: f32):
    %n = arith.maximumf %v, %m : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<4x16xf32>, memref<4xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%v: f32, %m: f32, %unused: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%out : memref<4x16xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%v: f32, %s: f32):
    %n = arith.addf %v, %s : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<4xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%s: f32, %v: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  }
  return
}
