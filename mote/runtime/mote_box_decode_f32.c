#include "mote_box_decode_f32.h"

#include "mote_exp_double.h"

/* The infinities by their bits: no <math.h> (a freestanding target may have none). */
static double mote_infinity(void) {
  const union { uint64_t bits; double value; } inf = {0x7FF0000000000000u};
  return inf.value;
}

static float mote_infinityf(void) {
  const union { uint32_t bits; float value; } inf = {0x7F800000u};
  return inf.value;
}

/* e^x for any double x, as far as the decode can tell: mote_exp_double within +-700; beyond, e^+-700 gives
 * the same float result once scaled by a float anchor (an infinity, or a zero of the anchor's sign), and
 * past the C library's overflow and underflow points the exact infinity and zero. */
static double mote_exp_wide(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return mote_infinity();
  if (x < -745.1332191019412) return 0.0;
  return mote_exp_double(x > 700.0 ? 700.0 : (x < -700.0 ? -700.0 : x));
}

/* A double rounded to float, to nearest even, with the overflow to an infinity that C leaves undefined. */
static float mote_narrow(double x) {
  if (x >= 0x1.ffffffp127) return mote_infinityf();
  if (x <= -0x1.ffffffp127) return -mote_infinityf();
  return (float)x;
}

void mote_box_decode_f32(const float *encodings, int32_t stride, const float *anchors, int32_t num_boxes,
                         const float scales[4], float *decoded) {
  const double y_scale = scales[0], x_scale = scales[1], h_scale = scales[2], w_scale = scales[3];
  for (int32_t i = 0; i < num_boxes; ++i) {
    const float *e = encodings + (size_t)i * (size_t)stride;
    const float *a = anchors + (size_t)i * 4;
    const float ycenter = mote_narrow((double)e[0] / y_scale * (double)a[2] + (double)a[0]);
    const float xcenter = mote_narrow((double)e[1] / x_scale * (double)a[3] + (double)a[1]);
    const float half_h = mote_narrow(0.5 * mote_exp_wide((double)e[2] / h_scale) * (double)a[2]);
    const float half_w = mote_narrow(0.5 * mote_exp_wide((double)e[3] / w_scale) * (double)a[3]);
    float *box = decoded + (size_t)i * 4;
    box[0] = ycenter - half_h;
    box[1] = xcenter - half_w;
    box[2] = ycenter + half_h;
    box[3] = xcenter + half_w;
  }
}
