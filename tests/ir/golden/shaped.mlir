// Elementwise ops on vectors and tensors; dense constants, splats and selects.
module {
  func.func @vectors(%arg0: vector<4xf32>, %arg1: vector<4xf32>) -> vector<4xf32> {
    %cst = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : vector<4xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : vector<4xf32>
    %0 = arith.mulf %arg0, %cst : vector<4xf32>
    %1 = arith.addf %0, %arg1 : vector<4xf32>
    %2 = arith.cmpf ogt, %1, %cst_0 : vector<4xf32>
    %3 = arith.select %2, %1, %cst_0 : vector<4xi1>, vector<4xf32>
    return %3 : vector<4xf32>
  }
  func.func @tensors(%arg0: tensor<2x3xi32>, %arg1: tensor<?x3xf16>) -> tensor<2x3xi1> {
    %cst = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
    %cst_0 = arith.constant dense<[[true, false, true], [false, true, false]]> : tensor<2x3xi1>
    %cst_1 = arith.constant dense<-7> : tensor<2x3xi32>
    %0 = arith.addi %arg0, %cst : tensor<2x3xi32>
    %1 = arith.cmpi eq, %0, %cst_1 : tensor<2x3xi32>
    %2 = arith.ori %1, %cst_0 : tensor<2x3xi1>
    %3 = arith.negf %arg1 : tensor<?x3xf16>
    %4 = arith.extf %3 : tensor<?x3xf16> to tensor<?x3xf32>
    %5 = arith.sitofp %0 : tensor<2x3xi32> to tensor<2x3xf32>
    %true = arith.constant true
    %6 = arith.select %true, %5, %5 : tensor<2x3xf32>
    return %2 : tensor<2x3xi1>
  }
  func.func @scalars_in_tensors() -> (tensor<f32>, tensor<0xf32>, tensor<2xindex>, tensor<2xbf16>) {
    %cst = arith.constant dense<5.000000e-01> : tensor<f32>
    %cst_0 = arith.constant dense<> : tensor<0xf32>
    %cst_1 = arith.constant dense<[0, -9223372036854775808]> : tensor<2xindex>
    %cst_2 = arith.constant dense<[1.000000e+00, 3.140630e+00]> : tensor<2xbf16>
    return %cst, %cst_0, %cst_1, %cst_2 : tensor<f32>, tensor<0xf32>, tensor<2xindex>, tensor<2xbf16>
  }
}
