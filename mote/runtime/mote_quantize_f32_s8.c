#include "mote_quantize_f32_s8.h"

#include "mote_fixedpoint.h"

/* round(x / scale) + zero_point clamped to int8, without libm. */
static int8_t quantize(float x, float scale, int32_t zero_point) {
  const float q = x / scale;
  int32_t r;
  float frac;
  /* Beyond +-256 the result saturates whatever the zero point; this also keeps the cast defined. */
  if (!(q > -256.0f)) return -128; /* NaN too */
  if (q >= 256.0f) return 127;
  r = (int32_t)q; /* truncates toward zero */
  frac = q - (float)r; /* exact */
  if (frac >= 0.5f) {
    ++r;
  } else if (frac <= -0.5f) {
    --r;
  }
  return (int8_t)mote_clamp(r + zero_point, -128, 127);
}

mote_status mote_quantize_f32_s8(const mote_quantize_params *p, const float *input, int8_t *output,
                                 mote_scratch scratch) {
  int32_t i;
  (void)scratch;
  for (i = 0; i < p->size; ++i) output[i] = quantize(input[i], p->scale, p->zero_point);
  return MOTE_OK;
}
