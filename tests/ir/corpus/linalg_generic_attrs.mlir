// A generic with two outputs (the max and its position, an argmax), a doc string,
// a library call name, and a discardable attribute printed after "attrs =".
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @argmax(%x: tensor<4x16xf32>, %max0: tensor<4xf32>, %pos0: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %max, %pos = linalg.generic {doc = "row-wise argmax", indexing_maps = [#id, #row, #row],
                               iterator_types = ["parallel", "reduction"],
                               library_call = "argmax_f32"}
      ins(%x : tensor<4x16xf32>) outs(%max0, %pos0 : tensor<4xf32>, tensor<4xi32>)
      attrs = {tinycomp.note = "two outputs"} {
  ^bb0(%v: f32, %m: f32, %p: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %greater = arith.cmpf ogt, %v, %m : f32
    %nm = arith.select %greater, %v, %m : f32
    %np = arith.select %greater, %ji, %p : i32
    linalg.yield %nm, %np : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  return %max, %pos : tensor<4xf32>, tensor<4xi32>
}
func.func @scalar_input(%x: memref<8xf32>, %alpha: f32) {
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%alpha : f32) outs(%x : memref<8xf32>) {
  ^bb0(%a: f32, %v: f32):
    %s = arith.mulf %a, %v : f32
    linalg.yield %s : f32
  }
  return
}
