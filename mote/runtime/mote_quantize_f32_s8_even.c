#include "mote_quantize_f32_s8_even.h"

#include "mote_fixedpoint.h"

/* round(x / scale) + zero_point clamped to int8, halves to the even neighbour, without libm. */
static int8_t quantize_even(float x, float scale, int32_t zero_point) {
  const float q = x / scale;
  int32_t r;
  float frac;
  int32_t odd;
  /* Beyond +-256 the result saturates whatever the zero point; this also keeps the cast defined. */
  if (!(q > -256.0f)) return -128; /* NaN too */
  if (q >= 256.0f) return 127;
  r = (int32_t)q; /* truncates toward zero */
  frac = q - (float)r; /* exact */
  odd = r % 2 != 0;
  if (frac > 0.5f || (frac == 0.5f && odd)) {
    ++r;
  } else if (frac < -0.5f || (frac == -0.5f && odd)) {
    --r;
  }
  return (int8_t)mote_clamp(r + zero_point, -128, 127);
}

mote_status mote_quantize_f32_s8_even(const mote_quantize_params *p, const float *input, int8_t *output,
                                      mote_scratch scratch) {
  int32_t i;
  (void)scratch;
  for (i = 0; i < p->size; ++i) output[i] = quantize_even(input[i], p->scale, p->zero_point);
  return MOTE_OK;
}
