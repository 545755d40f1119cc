#ifndef MOTE_CONV_ROW_PAIRS_S8_H
#define MOTE_CONV_ROW_PAIRS_S8_H

#include "mote_fully_connected_row_pairs_s8.h"

/* A 1x1 convolution of one output pixel (a fully connected layer written as a convolution: a legacy uint8
 * model's logits) as mote_fully_connected_row_pairs_s8 runs a fully connected layer (batches = 1,
 * accum_depth = in_ch, out_depth = out_ch), where the convolution kernels' per-call and per-pixel costs would
 * dominate. Same params. Needs no scratch. */
mote_status mote_conv_row_pairs_s8(const mote_fully_connected_row_pairs_params *p, const int8_t *input,
                                   int8_t *output, mote_scratch scratch);

#endif
