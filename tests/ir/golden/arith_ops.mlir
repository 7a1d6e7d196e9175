module {
  func.func @floats(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.addf %arg0, %arg1 : f32
    %1 = arith.subf %0, %arg1 : f32
    %2 = arith.mulf %1, %arg1 : f32
    %3 = arith.divf %2, %arg1 : f32
    %4 = arith.remf %3, %arg1 : f32
    %5 = arith.negf %4 : f32
    %6 = arith.maximumf %5, %arg0 : f32
    %7 = arith.minimumf %6, %arg0 : f32
    %8 = arith.maxnumf %7, %arg0 : f32
    %9 = arith.minnumf %8, %arg0 fastmath<nnan,ninf> : f32
    %10 = arith.cmpf olt, %9, %arg0 : f32
    %11 = arith.cmpf uno, %9, %arg0 fastmath<fast> : f32
    %12 = arith.andi %10, %11 : i1
    %13 = arith.select %12, %9, %arg0 : f32
    return %13 : f32
  }
  func.func @integers(%arg0: i32, %arg1: i32) -> i32 {
    %0 = arith.addi %arg0, %arg1 : i32
    %1 = arith.subi %0, %arg1 : i32
    %2 = arith.muli %1, %arg1 : i32
    %3 = arith.divsi %2, %arg1 : i32
    %4 = arith.divui %3, %arg1 : i32
    %5 = arith.remsi %4, %arg1 : i32
    %6 = arith.remui %5, %arg1 : i32
    %7 = arith.floordivsi %6, %arg1 : i32
    %8 = arith.ceildivsi %7, %arg1 : i32
    %9 = arith.ceildivui %8, %arg1 : i32
    %10 = arith.maxsi %9, %arg1 : i32
    %11 = arith.minsi %10, %arg1 : i32
    %12 = arith.maxui %11, %arg1 : i32
    %13 = arith.minui %12, %arg1 : i32
    %14 = arith.andi %13, %arg1 : i32
    %15 = arith.ori %14, %arg1 : i32
    %16 = arith.xori %15, %arg1 : i32
    %17 = arith.shli %16, %arg1 overflow<nuw> : i32
    %18 = arith.shrsi %17, %arg1 : i32
    %19 = arith.shrui %18, %arg1 : i32
    %20 = arith.cmpi sge, %19, %arg1 : i32
    %21 = arith.cmpi ult, %19, %arg1 : i32
    %22 = arith.xori %20, %21 : i1
    %23 = arith.select %22, %19, %arg0 : i32
    return %23 : i32
  }
  func.func @casts(%arg0: i32, %arg1: f16, %arg2: index) -> (i8, f64, index, i64) {
    %0 = arith.sitofp %arg0 : i32 to f32
    %1 = arith.uitofp %arg0 : i32 to bf16
    %2 = arith.fptosi %0 : f32 to i16
    %3 = arith.fptoui %1 : bf16 to i8
    %4 = arith.extf %arg1 : f16 to f64
    %5 = arith.truncf %0 : f32 to f16
    %6 = arith.extsi %2 : i16 to i64
    %7 = arith.extui %3 : i8 to i32
    %8 = arith.trunci %7 : i32 to i8
    %9 = arith.index_cast %arg0 : i32 to index
    %10 = arith.index_castui %arg2 : index to i64
    %11 = arith.bitcast %5 : f16 to i16
    %12 = arith.bitcast %arg0 : i32 to f32
    %13 = arith.addi %9, %arg2 : index
    return %8, %4, %13, %10 : i8, f64, index, i64
  }
}
