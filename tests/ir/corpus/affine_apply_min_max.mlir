// affine.apply, affine.min and affine.max: index arithmetic as maps, as tiling produces it.
#map = affine_map<(d0)[s0] -> (d0 * 4 + s0)>
#map1 = affine_map<(d0)[s0] -> (32, -d0 + s0)>
#map2 = affine_map<(d0) -> (0, d0 - 3)>
#map3 = affine_map<(d0) -> (d0 floordiv 16)>
#map4 = affine_map<()[s0, s1] -> (s0 * s1)>
module {
  func.func @tile_sizes(%n: index, %m: index) -> (index, index, index, index) {
    %c5 = arith.constant 5 : index
    %row = affine.apply #map(%c5)[%n]
    %size = affine.min #map1(%row)[%n]
    %low = affine.max #map2(%size)
    %tile = affine.apply #map3(%low) {tinycomp.kind = "tile index"}
    %area = affine.apply #map4()[%n, %m]
    return %size, %low, %tile, %area : index, index, index, index
  }
}
