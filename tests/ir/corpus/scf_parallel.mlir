// scf.parallel: loop nests whose iterations may run in any order, with and without reductions.
module {
  func.func @scale(%A: memref<?x?xf32>, %m: index, %n: index, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
      %x = memref.load %A[%i, %j] : memref<?x?xf32>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %A[%i, %j] : memref<?x?xf32>
      scf.reduce 
    } {mapping = "blocks"}
    return
  }
  func.func @sum_and_max(%v: memref<?xf32>, %n: index) -> (f32, f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %lowest = arith.constant 0xFF800000 : f32
    %r:2 = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero, %lowest) -> (f32, f32) {
      %x = memref.load %v[%i] : memref<?xf32>
      scf.reduce(%x, %x : f32, f32) {
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        scf.reduce.return %s : f32
      }, {
      ^bb0(%a: f32, %b: f32):
        %m = arith.maximumf %a, %b : f32
        scf.reduce.return %m : f32
      }
    }
    return %r#0, %r#1 : f32, f32
  }
}
