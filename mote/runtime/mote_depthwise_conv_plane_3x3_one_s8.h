#ifndef MOTE_DEPTHWISE_CONV_PLANE_3X3_ONE_S8_H
#define MOTE_DEPTHWISE_CONV_PLANE_3X3_ONE_S8_H

#include "mote_depthwise_conv_plane_s8.h"

/* A row function of mote_depthwise_conv_plane_s8 (mote_plane_row): a 3x3 filter at stride 1 by two lanes, on a plane
 * of one channel (a one-channel input), in blocks of eight pixels (mote_depthwise_conv_plane_fixed.h). */
void mote_depthwise_conv_plane_3x3_one_s8(const mote_plane_walk *k, const int8_t *x, const int8_t *w, int8_t *out);

#endif
