#include "mote_depthwise_conv_blocked_s16.h"

#include "mote_stage_s16.h"

/* Kept out of line where the compiler allows, so that its sixteen accumulators have the core's registers. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

/* A block's taps: pixel 0's first input and its steps to the next pixel, filter column and filter row (in
 * values); the block's first weight and its steps to the next filter column and row; the filter rows and
 * columns it sums. */
typedef struct {
  const int16_t *in;
  int32_t pixel_step, col_step, row_step;
  const int8_t *w;
  int32_t w_col_step, w_row_step, rows, cols;
} block_taps;

/* acc[4i + j] = pixel i's sum for channel j, filter row by filter row. */
static OUT_OF_LINE void taps_4x4(const block_taps *t, int32_t acc[16]) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  int32_t a8 = 0, a9 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0, a14 = 0, a15 = 0;
  const int16_t *in_row = t->in;
  const int8_t *w_row = t->w;
  const int32_t step = t->pixel_step;
  for (int32_t r = 0; r < t->rows; ++r, in_row += t->row_step, w_row += t->w_row_step) {
    const int16_t *x0 = in_row;
    const int8_t *w = w_row;
    for (int32_t f = 0; f < t->cols; ++f, x0 += t->col_step, w += t->w_col_step) {
      const int16_t *x1 = x0 + step, *x2 = x1 + step, *x3 = x2 + step;
      int32_t v = w[0];
      a0 += x0[0] * v, a4 += x1[0] * v, a8 += x2[0] * v, a12 += x3[0] * v;
      v = w[1];
      a1 += x0[1] * v, a5 += x1[1] * v, a9 += x2[1] * v, a13 += x3[1] * v;
      v = w[2];
      a2 += x0[2] * v, a6 += x1[2] * v, a10 += x2[2] * v, a14 += x3[2] * v;
      v = w[3];
      a3 += x0[3] * v, a7 += x1[3] * v, a11 += x2[3] * v, a15 += x3[3] * v;
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
  acc[8] = a8, acc[9] = a9, acc[10] = a10, acc[11] = a11, acc[12] = a12, acc[13] = a13, acc[14] = a14;
  acc[15] = a15;
}

/* acc[j] = one pixel's sum for channel j, filter row by filter row (the pixel steps unused). */
static void taps_1x4(const block_taps *t, int32_t acc[4]) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  const int16_t *in_row = t->in;
  const int8_t *w_row = t->w;
  for (int32_t r = 0; r < t->rows; ++r, in_row += t->row_step, w_row += t->w_row_step) {
    const int16_t *x = in_row;
    const int8_t *w = w_row;
    for (int32_t f = 0; f < t->cols; ++f, x += t->col_step, w += t->w_col_step) {
      a0 += x[0] * w[0], a1 += x[1] * w[1], a2 += x[2] * w[2], a3 += x[3] * w[3];
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* One output's sum: channel c of the window at (y0, x0), filter rows [fy0, fy1) inside the input. */
static int32_t one_sum(const mote_depthwise_conv_blocked_s16_params *p, const int16_t *image, int32_t y0,
                       int32_t x0, int32_t fy0, int32_t fy1, int32_t c) {
  const mote_conv_geometry *g = &p->geometry;
  int32_t sum = 0;
  for (int32_t fy = fy0; fy < fy1; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) continue;
      sum += image[(iy * g->in_w + ix) * g->in_ch + c] * p->weights[(fy * g->filter_w + fx) * g->out_ch + c];
    }
  }
  return sum;
}

mote_status mote_depthwise_conv_blocked_s16(const mote_depthwise_conv_blocked_s16_params *p, const int16_t *input,
                                            int16_t *output, mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t ch = g->in_ch, whole = ch & ~3, span = (g->filter_w - 1) * g->dilation_w;
  (void)scratch;
  if (g->out_ch != ch) return MOTE_ERROR;
  for (int32_t b = 0; b < g->batches; ++b) {
    const int16_t *image = input + b * g->in_h * g->in_w * ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int32_t y0 = oy * g->stride_h - g->pad_top;
      int32_t fy0 = 0, fy1 = g->filter_h;  /* the filter rows inside the input */
      while (fy0 < fy1 && y0 + fy0 * g->dilation_h < 0) ++fy0;
      while (fy1 > fy0 && y0 + (fy1 - 1) * g->dilation_h >= g->in_h) --fy1;
      int16_t *out_row = output + (b * g->out_h + oy) * g->out_w * ch;
      for (int32_t ox = 0; ox < g->out_w;) {
        const int32_t x0 = ox * g->stride_w - g->pad_left;
        /* four pixels whose windows lie inside the input across, or one pixel over its columns inside */
        const int32_t n = x0 >= 0 && ox + 3 < g->out_w && x0 + 3 * g->stride_w + span < g->in_w ? 4 : 1;
        int32_t fx0 = 0, fx1 = g->filter_w;
        while (fx0 < fx1 && x0 + fx0 * g->dilation_w < 0) ++fx0;
        while (fx1 > fx0 && x0 + (fx1 - 1) * g->dilation_w >= g->in_w) --fx1;
        block_taps t = {image + ((y0 + fy0 * g->dilation_h) * g->in_w + x0 + fx0 * g->dilation_w) * ch,
                        g->stride_w * ch, g->dilation_w * ch, g->dilation_h * g->in_w * ch,
                        p->weights + (fy0 * g->filter_w + fx0) * ch, ch, g->filter_w * ch, fy1 - fy0, fx1 - fx0};
        int16_t *out = out_row + ox * ch;
        for (int32_t c = 0; c < whole; c += 4, t.in += 4, t.w += 4) {
          int32_t acc[16];
          if (n == 4) {
            taps_4x4(&t, acc);
          } else {
            taps_1x4(&t, acc);
          }
          for (int32_t i = 0; i < n; ++i) {
            for (int32_t j = 0; j < 4; ++j) {
              const int32_t *row = p->stage + (c + j) * MOTE_STAGE_S16_ROW;
              out[i * ch + c + j] = mote_stage_s16(acc[4 * i + j], row, 0, p->act_min, p->act_max);
            }
          }
        }
        for (int32_t i = 0; i < n; ++i) {  /* channels past the last set of four */
          for (int32_t c = whole; c < ch; ++c) {
            const int32_t sum = one_sum(p, image, y0, x0 + i * g->stride_w, fy0, fy1, c);
            out[i * ch + c] = mote_stage_s16(sum, p->stage + c * MOTE_STAGE_S16_ROW, 0, p->act_min, p->act_max);
          }
        }
        ox += n;
      }
    }
  }
  return MOTE_OK;
}
