#ifndef MOTE_DEPTHWISE_CONV_CHANNELS_S8_H
#define MOTE_DEPTHWISE_CONV_CHANNELS_S8_H

#include "mote_depthwise_conv_s8.h"

/* mote_depthwise_conv_s8 for depth_multiplier 1, channels innermost: a pixel's taps run over its
 * contiguous channels, into int32 accumulators in scratch (in_ch * 4 bytes). Bit-exact with it. */
mote_status mote_depthwise_conv_channels_s8(const mote_depthwise_conv_params *p, const int8_t *input,
                                            int8_t *output, mote_scratch scratch);

#endif
