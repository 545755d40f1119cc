#include "mote_conv_blocked_f32.h"

#include "mote_float.h"

/* The window of output pixel (oy, ox) to dst[4 * tap] (one pixel of the interleaved block). */
static void gather(const mote_conv_geometry *g, const float *image, int32_t oy, int32_t ox, float *dst) {
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left, c = g->in_ch;
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    for (int32_t fx = 0; fx < g->filter_w; ++fx, dst += 4 * c) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w) {
        for (int32_t k = 0; k < c; ++k) dst[4 * k] = 0.0f;
      } else {
        const float *src = image + (iy * g->in_w + ix) * c;
        for (int32_t k = 0; k < c; ++k) dst[4 * k] = src[k];
      }
    }
  }
}

/* Kept out of line where the compiler allows, so that its sixteen accumulators, four inputs and three
 * pointers have the core's registers to themselves. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

/* acc[4i + j] = sum over taps of window i's tap times filter j's: x [tap][4], w [tap][4]. */
static OUT_OF_LINE void dot_4x4(const float *x, const float *w, int32_t taps, float acc[16]) {
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
  float a8 = 0.0f, a9 = 0.0f, a10 = 0.0f, a11 = 0.0f, a12 = 0.0f, a13 = 0.0f, a14 = 0.0f, a15 = 0.0f;
  for (const float *end = x + 4 * taps; x < end; x += 4, w += 4) {
    const float u0 = x[0], u1 = x[1], u2 = x[2], u3 = x[3];
    float v = w[0];
    a0 += u0 * v, a4 += u1 * v, a8 += u2 * v, a12 += u3 * v;
    v = w[1];
    a1 += u0 * v, a5 += u1 * v, a9 += u2 * v, a13 += u3 * v;
    v = w[2];
    a2 += u0 * v, a6 += u1 * v, a10 += u2 * v, a14 += u3 * v;
    v = w[3];
    a3 += u0 * v, a7 += u1 * v, a11 += u2 * v, a15 += u3 * v;
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
  acc[8] = a8, acc[9] = a9, acc[10] = a10, acc[11] = a11, acc[12] = a12, acc[13] = a13, acc[14] = a14;
  acc[15] = a15;
}

mote_status mote_conv_blocked_f32(const mote_conv_blocked_f32_params *p, const float *input, float *output,
                                  mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  if (scratch.size < (size_t)p->taps * 4 * sizeof(float)) return MOTE_ERROR;
  float *windows = (float *)(void *)scratch.buf;
  const int32_t pixels = g->out_h * g->out_w;
  for (int32_t b = 0; b < g->batches; ++b) {
    const float *image = input + b * g->in_h * g->in_w * g->in_ch;
    float *out_image = output + b * pixels * g->out_ch;
    for (int32_t p0 = 0; p0 < pixels; p0 += 4) {
      const int32_t count = pixels - p0 < 4 ? pixels - p0 : 4;
      for (int32_t i = 0; i < 4; ++i) {  /* a block's missing pixels repeat its last one */
        const int32_t at = p0 + (i < count ? i : count - 1);
        gather(g, image, at / g->out_w, at % g->out_w, windows + i);
      }
      for (int32_t oc = 0; oc < g->out_ch; oc += 4) {
        float acc[16];
        dot_4x4(windows, p->weights + oc * p->taps, p->taps, acc);
        const int32_t channels = g->out_ch - oc < 4 ? g->out_ch - oc : 4;
        for (int32_t j = 0; j < channels; ++j) {
          const float bias = p->bias[oc + j];
          float *out = out_image + p0 * g->out_ch + oc + j;
          for (int32_t i = 0; i < count; ++i) out[i * g->out_ch] = mote_clamp_f32(acc[4 * i + j] + bias, p->act_min,
                                                                                   p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}
