#ifndef MOTE_CONV_POINTWISE_BLOCKS_S8_H
#define MOTE_CONV_POINTWISE_BLOCKS_S8_H

#include "mote_conv_common.h"
#include "mote_conv_pointwise_s8.h"
#include "mote_types.h"

/* n sets of four output channels from set q on, for `blocks` blocks of four pixels packed in tap pairs
 * (`words`) whose sums of taps are `sums` (read only with terms), their outputs as `how` says. */
typedef void (*mote_pointwise_sets)(const mote_conv_pointwise_params *p, const int32_t *words, const int32_t *sums,
                                    int32_t q, int32_t n, const mote_block_out *how, int32_t blocks);

/* mote_conv_pointwise_s8's walk over the blocks of pixels, its inner loop `sets`: a file of its own so that
 * projects without a layer with terms do not carry that inner loop. The scratch and checks of
 * mote_conv_pointwise_s8. */
mote_status mote_conv_pointwise_blocks_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                          mote_scratch scratch, mote_pointwise_sets sets);

#endif
