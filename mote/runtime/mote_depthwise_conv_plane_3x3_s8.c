#include "mote_depthwise_conv_plane_3x3_s8.h"

#include "mote_depthwise_conv_plane_fixed.h"

void mote_depthwise_conv_plane_3x3_s8(const mote_plane_walk *k, const int8_t *x, const int8_t *w, int8_t *out) {
  mote_plane_fixed_row(k, x, w, out, 3, 3, 1, 2, 4);
}
