#include "mote_quantize_f32_s16.h"

#include "mote_fixedpoint.h"

/* round(x / scale) + zero_point clamped to int16, without libm. */
static int16_t quantize(float x, float scale, int32_t zero_point) {
  const float q = x / scale;
  /* Beyond +-65536 the result saturates whatever the zero point; this also keeps the cast defined. */
  if (!(q > -65536.0f)) return -32768; /* NaN too */
  if (q >= 65536.0f) return 32767;
  int32_t r = (int32_t)q;             /* truncates toward zero */
  const float frac = q - (float)r;    /* exact */
  if (frac >= 0.5f) {
    ++r;
  } else if (frac <= -0.5f) {
    --r;
  }
  return (int16_t)mote_clamp(r + zero_point, -32768, 32767);
}

mote_status mote_quantize_f32_s16(const mote_quantize_params *p, const float *input, int16_t *output,
                                  mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) output[i] = quantize(input[i], p->scale, p->zero_point);
  return MOTE_OK;
}
