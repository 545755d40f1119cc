#include "mote_depthwise_conv_packed_band_s8.h"

mote_status mote_depthwise_conv_packed_band_s8(const mote_depthwise_conv_packed_band_params *p, const int8_t *input,
                                               int8_t *output, mote_scratch scratch) {
  const int32_t count = 9 * p->band.channels;
  if ((p->bits != 4 && p->bits != 2) || count <= 0 || scratch.size < (size_t)count) return MOTE_ERROR;
  int8_t *weights = scratch.buf;
  const int32_t shift = 8 - p->bits, per_byte = 8 / p->bits;
  for (int32_t k = 0; k < count; k += per_byte) { /* a byte's fields, each sign-extended from its top bit */
    const uint32_t byte = p->weights[k / per_byte];
    for (int32_t f = 0; f < per_byte && k + f < count; ++f) {
      weights[k + f] = (int8_t)((int32_t)(byte << (24 + shift - f * p->bits)) >> (32 - p->bits));
    }
  }
  mote_depthwise_conv_band_params band = p->band;
  band.weights = weights;
  return p->run(&band, input, output, scratch);
}
