#include "mote_row_scale_s8.h"

mote_status mote_row_scale_s8(const mote_row_scale_s8_params *p, const int8_t *input, const int8_t *scale,
                              int8_t *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t r = 0; r < p->rows; ++r, input += p->depth, output += p->depth) {
    const uint8_t at = (uint8_t)scale[r];
    const int64_t multiplier = p->multipliers[at];
    const int32_t t = 31 - p->shifts[at]; /* 1..62 */
    const int64_t half = (int64_t)1 << (t - 1);
    for (int32_t i = 0; i < p->depth; ++i) {
      const int64_t v = (int64_t)(input[i] - p->input_zero_point) * multiplier + half; /* |v| < 2^40 + 2^61 */
      /* an arithmetic shift, written for negative values without relying on the implementation */
      const int64_t q = (v >= 0 ? v >> t : -(int64_t)((~(uint64_t)v) >> t) - 1) + p->output_zero_point;
      output[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
    }
  }
  return MOTE_OK;
}
