// How MLIR writes float constants: 6 digits when exact, more digits when needed, hex
// bit patterns for special values and for integers that need more digits than 6.
module {
  func.func @floats() -> (f32, f64, f16, bf16) {
    %cst = arith.constant 1.000000e-01 : f32
    %cst_0 = arith.constant 1.23456788 : f32
    %cst_1 = arith.constant 0.30000000000000004 : f64
    %cst_2 = arith.constant 0x419D6F3454000000 : f64
    %cst_3 = arith.constant 1.0000000000000002E-10 : f64
    %cst_4 = arith.constant 0x7F800000 : f32
    %cst_5 = arith.constant 0xFF800000 : f32
    %cst_6 = arith.constant 0x7FC00000 : f32
    %cst_7 = arith.constant -0.000000e+00 : f32
    %cst_8 = arith.constant 6.550400e+04 : f16
    %cst_9 = arith.constant 9.765620e-04 : f16
    %cst_10 = arith.constant 3.140630e+00 : bf16
    %cst_11 = arith.constant 9.999880e-321 : f64
    %cst_12 = arith.constant 3.40282347E+38 : f32
    %cst_13 = arith.constant 0x7E00 : f16
    return %cst, %cst_1, %cst_8, %cst_10 : f32, f64, f16, bf16
  }
}
