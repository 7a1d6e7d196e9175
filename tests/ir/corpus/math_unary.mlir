// Every one-operand math function, on scalars, vectors and tensors, with fast-math flags.
module {
  func.func @scalar(%x: f32) -> f32 {
    %0 = math.exp %x : f32
    %1 = math.exp2 %0 : f32
    %2 = math.expm1 %1 fastmath<nnan> : f32
    %3 = math.log %2 : f32
    %4 = math.log2 %3 : f32
    %5 = math.log10 %4 : f32
    %6 = math.log1p %5 fastmath<fast> : f32
    %7 = math.sqrt %6 : f32
    %8 = math.rsqrt %7 fastmath<afn> : f32
    %9 = math.cbrt %8 : f32
    %10 = math.sin %9 : f32
    %11 = math.cos %10 : f32
    %12 = math.tan %11 : f32
    %13 = math.atan %12 : f32
    %14 = math.sinh %13 : f32
    %15 = math.cosh %14 : f32
    %16 = math.tanh %15 fastmath<nnan,ninf> : f32
    %17 = math.erf %16 : f32
    %18 = math.erfc %17 : f32
    %19 = math.absf %18 : f32
    %20 = math.ceil %19 : f32
    %21 = math.floor %20 : f32
    %22 = math.round %21 : f32
    %23 = math.roundeven %22 : f32
    %24 = math.trunc %23 fastmath<reassoc,contract> : f32
    return %24 : f32
  }
  func.func @shaped(%v: vector<8xf16>, %t: tensor<4x?xbf16>, %d: f64) -> (vector<8xf16>, tensor<4x?xbf16>, f64) {
    %e = math.exp %v fastmath<fast> : vector<8xf16>
    %s = math.sqrt %t : tensor<4x?xbf16>
    %l = math.log %d : f64
    return %e, %s, %l : vector<8xf16>, tensor<4x?xbf16>, f64
  }
}
