// A tiled matmul in affine form: tile loops, point loops bounded by min(tile end, n).
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0)[s0] -> (d0 + 32, s0)>
module {
  func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %n: index) {
    affine.for %ti = 0 to %n step 32 {
      affine.for %tj = 0 to %n step 32 {
        affine.for %k = 0 to %n {
          affine.for %i = #map(%ti) to min #map1(%ti)[%n] {
            %a = affine.load %A[%i, %k] : memref<?x?xf32>
            affine.for %j = #map(%tj) to min #map1(%tj)[%n] {
              %b = affine.load %B[%k, %j] : memref<?x?xf32>
              %c = affine.load %C[%i, %j] : memref<?x?xf32>
              %p = arith.mulf %a, %b : f32
              %s = arith.addf %c, %p : f32
              affine.store %s, %C[%i, %j] : memref<?x?xf32>
            }
          }
        }
      }
    }
    return
  }
}
