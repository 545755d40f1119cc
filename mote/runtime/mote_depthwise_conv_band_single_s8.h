#ifndef MOTE_DEPTHWISE_CONV_BAND_SINGLE_S8_H
#define MOTE_DEPTHWISE_CONV_BAND_SINGLE_S8_H

#include "mote_depthwise_conv_band_s8.h"

/* mote_depthwise_conv_band_s8 with a one-multiply output stage (mote_output_single.h): output_stage holds
 * [channels][MOTE_OUTPUT_SINGLE_WORDS] rows and folded_bias each channel's constant (mote.ops.output_single),
 * proven exact for every accumulator the layer can reach; no wide_weights. An output takes two compares, one
 * multiply and a store instead of TFLite's two roundings' shortcuts. Bit-exact with mote_depthwise_conv_s8.
 * Needs no scratch. */
mote_status mote_depthwise_conv_band_single_s8(const mote_depthwise_conv_band_params *p, const int8_t *input,
                                               int8_t *output, mote_scratch scratch);

/* The kernel's body, every channel of the image (on rv32 assembly: mote/targets/rv32/micro_depthwise.py). */
void mote_depthwise_band_single_s8(const mote_depthwise_conv_band_params *p, const int8_t *input, int8_t *output);

#endif
