// affine.for bounds: constants, symbols, maps of outer loop counters, max/min of several
// results, steps and loop-carried values.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> (d0 + 4)>
#map2 = affine_map<(d0)[s0] -> (d0, s0 + 2)>
#map3 = affine_map<(d0)[s0] -> (d0 + 32, s0)>
#map4 = affine_map<()[s0] -> (s0 floordiv 2)>
module {
  func.func @bounds(%A: memref<?x?xf32>, %n: index, %m: index) {
    affine.for %i = 0 to 128 step 32 {
      affine.for %j = #map(%i) to #map1(%i) {
        %x = affine.load %A[%i, %j] : memref<?x?xf32>
        affine.store %x, %A[%j, %i] : memref<?x?xf32>
      }
    }
    affine.for %i = %m to %n {
      affine.for %j = max #map2(%i)[%n] to min #map3(%i)[%m] step 2 {
      }
    }
    affine.for %i = -4 to #map4()[%n] {
    } {tinycomp.unroll = 4 : i64}
    return
  }
  func.func @dot(%a: memref<256xf32>, %b: memref<256xf32>) -> f32 {
    %zero = arith.constant 0.000000e+00 : f32
    %r = affine.for %i = 0 to 256 iter_args(%acc = %zero) -> (f32) {
      %x = affine.load %a[%i] : memref<256xf32>
      %y = affine.load %b[%i] : memref<256xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      affine.yield %s : f32
    }
    return %r : f32
  }
  func.func @two_carried(%a: memref<64xi32>) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %r:2 = affine.for %i = 0 to 64 step 8 iter_args(%lo = %c0_i32, %hi = %c0_i32) -> (i32, i32) {
      %x = affine.load %a[%i] : memref<64xi32>
      %l = arith.minsi %lo, %x : i32
      %h = arith.maxsi %hi, %x : i32
      affine.yield %l, %h : i32, i32
    }
    return %r#0, %r#1 : i32, i32
  }
}
