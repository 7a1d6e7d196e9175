// Module-level buffers: constant tables, uninitialized storage, declarations, get_global.
module {
  memref.global "private" constant @table : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 4.000000e+00, 8.000000e+00]> {alignment = 64 : i64}
  memref.global "private" constant @ones : memref<2x2xi32> = dense<1>
  memref.global @scratch : memref<16xf32> = uninitialized
  memref.global "private" @external : memref<8xi64>
  memref.global "private" @scalar : memref<f32> = dense<5.000000e-01>
  memref.global "private" @in_space : memref<2xbf16, 3> = dense<[1.000000e+00, 3.140630e+00]>
  func.func @lookup(%i: index) -> f32 {
    %t = memref.get_global @table : memref<4xf32>
    %x = memref.load %t[%i] : memref<4xf32>
    %s = memref.get_global @scratch : memref<16xf32>
    memref.store %x, %s[%i] : memref<16xf32>
    %o = memref.get_global @ones : memref<2x2xi32>
    %h = memref.get_global @scalar : memref<f32>
    %half = memref.load %h[] : memref<f32>
    %r = arith.mulf %x, %half : f32
    return %r : f32
  }
}
