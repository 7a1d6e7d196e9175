module {
  func.func @f(%x: i32, %y: f32) -> (i1, i1, i1, i1, i1) {
    %true = arith.constant true
    %false = arith.constant false
    %oeq = arith.cmpf oeq, %y, %y : f32
    return %true, %false, %true, %false, %oeq : i1, i1, i1, i1, i1
  }
}
