#include "mote_inonorm_s8.h"

mote_status mote_inonorm_s8(const mote_inonorm_params *p, const int8_t *input, int8_t *output,
                            mote_scratch scratch) {
  const int8_t *weight = p->weight;
  const int32_t *bias = p->bias;
  const int32_t mul = p->mul, shift = p->log2d;
  int32_t i = 0;
  (void)scratch;
  while (i < p->size) {
    /* one period of the shorter constant at a time: no index wraps inside the loop */
    const int32_t w0 = i % p->weight_period, b0 = i % p->bias_period;
    int32_t n = p->weight_period - w0, j;
    if (p->bias_period - b0 < n) n = p->bias_period - b0;
    if (p->size - i < n) n = p->size - i;
    for (j = 0; j < n; ++j) {
      const int32_t v = (input[i + j] * weight[w0 + j] + bias[b0 + j]) * mul;
      /* floor(v / 2^shift) without shifting a negative value; the int8 cast keeps the low byte */
      output[i + j] = (int8_t)(uint8_t)(uint32_t)(v < 0 ? ~(~v >> shift) : v >> shift);
    }
    i += n;
  }
  return MOTE_OK;
}
