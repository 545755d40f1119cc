#include "mote_softmax_s16.h"

#include "mote_fixedpoint.h"

/* TFLite's int16 table lookup: 9 bits of index, the low 7 interpolated (int16 arithmetic wraps). */
static int16_t lookup(int32_t value, const int16_t *lut) {
  const int32_t index = 256 + (value >> 7);
  const int16_t base = lut[index];
  const int16_t slope = (int16_t)(lut[index + 1] - base);
  const int32_t delta = (slope * (value & 0x7F) + 64) >> 7;
  return (int16_t)(base + delta);
}

static int32_t leading_zeros(uint32_t x) {
  int32_t n = 0;
  for (uint32_t bit = 1u << 31; bit != 0 && !(x & bit); bit >>= 1) ++n;
  return n;
}

mote_status mote_softmax_s16(const mote_softmax_s16_params *p, const int16_t *input, int16_t *output,
                             mote_scratch scratch) {
  (void)scratch;
  for (int32_t r = 0; r < p->rows; ++r) {
    const int16_t *x = input + r * p->depth;
    int16_t *out = output + r * p->depth;
    int32_t max = INT16_MIN, sum = 0;
    for (int32_t c = 0; c < p->depth; ++c) max = x[c] > max ? x[c] : max;
    for (int32_t c = 0; c < p->depth; ++c) {
      const int32_t scaled = mote_requantize(x[c] - max, p->multiplier, p->shift) + 32767;
      out[c] = lookup(mote_clamp(scaled, INT16_MIN, INT16_MAX), p->exp_lut);
      sum += out[c];
    }
    const int32_t headroom = leading_zeros((uint32_t)sum);
    const int32_t shifted = (int32_t)((((int64_t)sum << (headroom - 1)) + (1 << 13)) >> 14);
    const int32_t reciprocal =
        lookup(mote_clamp(shifted - ((1 << 15) + (1 << 16)), INT16_MIN, INT16_MAX), p->reciprocal_lut);
    const int32_t right = 31 - headroom;
    for (int32_t c = 0; c < p->depth; ++c) {
      const int64_t result = ((int64_t)out[c] * reciprocal + ((int64_t)1 << (right - 1))) >> right;
      out[c] = (int16_t)(result < 0 ? 0 : (result > INT16_MAX ? INT16_MAX : result));
    }
  }
  return MOTE_OK;
}
