// unrealized_conversion_cast in all its shapes, and nested modules.
module {
  %0 = "test.source"() : () -> i32
  %1 = unrealized_conversion_cast %0 : i32 to f32
  %2:2 = unrealized_conversion_cast %0, %1 : i32, f32 to i64, f64
  %3 = unrealized_conversion_cast to index
  module @inner {
    %4 = "test.x"() : () -> f32
    %5 = unrealized_conversion_cast %4 : f32 to i32 {tc.note}
  }
  func.func @in_func(%arg0: i32) -> f32 {
    %4 = builtin.unrealized_conversion_cast %arg0 : i32 to f32
    return %4 : f32
  }
}
