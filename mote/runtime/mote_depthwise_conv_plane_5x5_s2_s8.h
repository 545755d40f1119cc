#ifndef MOTE_DEPTHWISE_CONV_PLANE_5X5_S2_S8_H
#define MOTE_DEPTHWISE_CONV_PLANE_5X5_S2_S8_H

#include "mote_depthwise_conv_plane_s8.h"

/* A row function of mote_depthwise_conv_plane_s8 (mote_plane_row): a 5x5 filter at stride 2 across by one lane, on
 * a plane of four interleaved channels, in blocks of eight pixels (mote_depthwise_conv_plane_fixed.h). */
void mote_depthwise_conv_plane_5x5_s2_s8(const mote_plane_walk *k, const int8_t *x, const int8_t *w, int8_t *out);

#endif
