// Two- and three-operand float functions, and the integer functions.
module {
  func.func @floats(%x: f32, %y: f32, %z: f32, %v: vector<4xf64>) -> (f32, vector<4xf64>) {
    %p = math.powf %x, %y fastmath<afn> : f32
    %c = math.copysign %p, %y : f32
    %a = math.atan2 %c, %x : f32
    %f = math.fma %a, %y, %z fastmath<contract> : f32
    %vf = math.fma %v, %v, %v : vector<4xf64>
    %vp = math.powf %vf, %v : vector<4xf64>
    return %f, %vp : f32, vector<4xf64>
  }
  func.func @integers(%i: i32, %j: i32, %w: vector<4xi64>, %n: index) -> (i32, vector<4xi64>, index) {
    %abs = math.absi %i : i32
    %lz = math.ctlz %abs : i32
    %tz = math.cttz %lz : i32
    %pop = math.ctpop %tz : i32
    %pow = math.ipowi %pop, %j : i32
    %wa = math.absi %w : vector<4xi64>
    %wp = math.ctpop %wa : vector<4xi64>
    %na = math.absi %n : index
    return %pow, %wp, %na : i32, vector<4xi64>, index
  }
}
