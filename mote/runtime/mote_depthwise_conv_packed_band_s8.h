#ifndef MOTE_DEPTHWISE_CONV_PACKED_BAND_S8_H
#define MOTE_DEPTHWISE_CONV_PACKED_BAND_S8_H

#include "mote_depthwise_conv_band_s8.h"
#include "mote_types.h"

/* The band kernels' depthwise convolution (3x3, depth multiplier 1, undilated, one image:
 * mote_depthwise_conv_band_s8.h) with sub-byte weights (int4 or int2 values) kept packed in flash. A depthwise
 * layer's filters are small (nine values a channel): the kernel unpacks them all once into scratch as the int8
 * weights the band kernel reads, [channels][9] in frame order, then runs `run` on them.
 *
 * Packed weights: the channels' nine values one after the other in that order, `bits` bits each in two's
 * complement, the first in a byte's lowest bits (mote.ir.subbyte's packing). */
typedef struct {
  mote_depthwise_conv_band_params band; /* its weights unused: the kernel points them at the unpacked ones */
  int32_t bits;                         /* 4 or 2 */
  const uint8_t *weights;               /* [ceil(9 * channels * bits / 8)], packed as above */
  mote_status (*run)(const mote_depthwise_conv_band_params *p, const int8_t *input, int8_t *output,
                     mote_scratch scratch); /* mote_depthwise_conv_band_s8 or mote_depthwise_conv_band_single_s8 */
} mote_depthwise_conv_packed_band_params;

/* Bit-exact with mote_depthwise_conv_s8 on the unpacked weights. Scratch: 9 * channels bytes. Returns
 * MOTE_ERROR for a bit width other than 4 or 2 or too little scratch, else what `run` returns. */
mote_status mote_depthwise_conv_packed_band_s8(const mote_depthwise_conv_packed_band_params *p, const int8_t *input,
                                               int8_t *output, mote_scratch scratch);

#endif
