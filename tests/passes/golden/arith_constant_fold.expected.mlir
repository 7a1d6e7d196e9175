module {
  func.func @f() -> (i32, i8, f16, bf16, i1, f32, index, vector<2xi32>) {
    %c-2147483648_i32 = arith.constant -2147483648 : i32
    %c16_i8 = arith.constant 16 : i8
    %cst = arith.constant 1.999510e-01 : f16
    %cst_0 = arith.constant 4.277340e-01 : bf16
    %true = arith.constant true
    %cst_1 = arith.constant 2.14748365E+9 : f32
    %c1 = arith.constant 1 : index
    %cst_2 = arith.constant dense<[1, 4]> : vector<2xi32>
    return %c-2147483648_i32, %c16_i8, %cst, %cst_0, %true, %cst_1, %c1, %cst_2 : i32, i8, f16, bf16, i1, f32, index, vector<2xi32>
  }
  func.func @undefined() -> i32 {
    %c1 = arith.constant 1 : i32
    %c0 = arith.constant 0 : i32
    %div = arith.divsi %c1, %c0 : i32
    return %div : i32
  }
}
