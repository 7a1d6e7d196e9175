// Ops no other corpus file uses: the rest of arith, vector, func.call, cf.br, a cast.
func.func @callee(%x: i32) -> i32 {
  return %x : i32
}
func.func @rest(%a: i32, %b: i32, %f: f32, %g: f32, %i: index, %m: memref<16xf32>, %v: vector<4xf32>) -> i32 {
  %0 = arith.andi %a, %b : i32
  %1 = arith.ori %0, %b : i32
  %2 = arith.xori %1, %b : i32
  %3 = arith.subi %2, %b : i32
  %4 = arith.divsi %3, %b : i32
  %5 = arith.ceildivsi %4, %b : i32
  %6 = arith.ceildivui %5, %b : i32
  %7 = arith.floordivsi %6, %b : i32
  %8 = arith.remsi %7, %b : i32
  %9 = arith.shli %8, %b : i32
  %10 = arith.shrsi %9, %b : i32
  %11 = arith.shrui %10, %b : i32
  %12 = arith.maxui %11, %b : i32
  %13 = arith.minui %12, %b : i32
  %14 = arith.remf %f, %g : f32
  %15 = arith.maxnumf %14, %g : f32
  %16 = arith.minnumf %15, %g : f32
  %17 = arith.minimumf %16, %g : f32
  %18 = arith.truncf %17 : f32 to f16
  %19 = arith.fptosi %17 : f32 to i32
  %20 = arith.fptoui %17 : f32 to i32
  %21 = arith.uitofp %20 : i32 to f32
  %22 = arith.trunci %19 : i32 to i8
  %23 = arith.bitcast %21 : f32 to i32
  %24 = arith.index_castui %23 : i32 to index
  %25 = builtin.unrealized_conversion_cast %24 : index to i64
  %26 = func.call @callee(%13) : (i32) -> i32
  %l = vector.load %m[%i] : memref<16xf32>, vector<4xf32>
  %s = vector.broadcast %f : f32 to vector<4xf32>
  %p = vector.fma %l, %s, %v : vector<4xf32>
  %e = vector.extract %p[0] : f32 from vector<4xf32>
  %n = vector.insert %e, %p [1] : f32 into vector<4xf32>
  %r = vector.reduction <add>, %n : vector<4xf32> into f32
  vector.store %n, %m[%i] : memref<16xf32>, vector<4xf32>
  cf.br ^bb1
^bb1:
  return %26 : i32
}
