module {
  func.func @f(%i: index) -> index {
    %n = arith.index_cast %i : index to i32
    %back = arith.index_cast %n : i32 to index
    return %back : index
  }
}
