/* The body of mote_depthwise_conv_rows_s8 (see mote_depthwise_conv_rows_s8.h), shared with
 * mote_depthwise_conv_offset_rows_s8, whose weights are wider than int8. */
#ifndef MOTE_DEPTHWISE_CONV_ROWS_COMMON_H
#define MOTE_DEPTHWISE_CONV_ROWS_COMMON_H

#include "mote_conv_common.h"
#include "mote_depthwise_conv_rows_s8.h"
#include "mote_depthwise_conv_rows_small.h"

/* The three rows of a row of windows and the filter they meet: a filter row outside the input has
 * zero weights (its zero-point taps are in the bias) and reads a row that exists. */
typedef struct {
  const int8_t *top, *mid, *bottom;
  int32_t k0, k1, k2, k3, k4, k5, k6, k7, k8; /* k[3 * fy + fx] */
  int32_t bias;
} window_rows;

/* The rows of a window whose frame rows y0 .. y0 + 2 are not all inside the input (image: the
 * channel's first byte): a row outside gets zero weights, its taps' zero point in the bias, and the
 * image's first row to read. */
static inline void clip_rows(window_rows *w, const int8_t *image, int32_t y0, int32_t in_h, int32_t row_step,
                      int32_t zero_point) {
  int32_t *k[3][3] = {{&w->k0, &w->k1, &w->k2}, {&w->k3, &w->k4, &w->k5}, {&w->k6, &w->k7, &w->k8}};
  const int8_t **row[3] = {&w->top, &w->mid, &w->bottom};
  for (int32_t fy = 0; fy < 3; ++fy) {
    const int32_t iy = y0 + fy;
    if (iy >= 0 && iy < in_h) {
      *row[fy] = image + iy * row_step;
      continue;
    }
    *row[fy] = image;
    w->bias += zero_point * (*k[fy][0] + *k[fy][1] + *k[fy][2]);
    *k[fy][0] = *k[fy][1] = *k[fy][2] = 0;
  }
}

/* Frame column q of the rows times filter column (ka, kb, kc); outside the input, the zero point. */
static inline int32_t column(const window_rows *w, int32_t q, int32_t in_w, int32_t step, int32_t zero_point,
                             int32_t ka, int32_t kb, int32_t kc) {
  if (q < 0 || q >= in_w) return zero_point * (ka + kb + kc);
  const int32_t at = q * step;
  return w->top[at] * ka + w->mid[at] * kb + w->bottom[at] * kc;
}

/* A row of accumulators at stride 1: window ox covers columns q0 + ox .. q0 + ox + 2. Reading column
 * q0 + ox + 2 completes window ox and adds to windows ox + 1 and ox + 2; inside the input it is three
 * loads and nine products, no test. */
static inline void row_stride1(const window_rows *w, int32_t q0, int32_t in_w, int32_t step, int32_t zero_point,
                               int32_t out_w, int32_t *acc) {
  const int32_t k0 = w->k0, k1 = w->k1, k2 = w->k2, k3 = w->k3, k4 = w->k4, k5 = w->k5, k6 = w->k6, k7 = w->k7;
  const int32_t k8 = w->k8, bias = w->bias;
  int32_t next = bias + column(w, q0, in_w, step, zero_point, k0, k3, k6) +
                 column(w, q0 + 1, in_w, step, zero_point, k1, k4, k7);
  int32_t after = bias + column(w, q0 + 1, in_w, step, zero_point, k0, k3, k6);
  int32_t ox = 0;
  for (; ox < out_w && q0 + ox + 2 < 0; ++ox) { /* left padding wider than the filter */
    acc[ox] = next + zero_point * (k2 + k5 + k8);
    next = after + zero_point * (k1 + k4 + k7), after = bias + zero_point * (k0 + k3 + k6);
  }
  const int32_t inside = in_w - q0 - 2 < out_w ? in_w - q0 - 2 : out_w;
  const int32_t at = (q0 + ox + 2) * step;
  const int8_t *top = w->top + at, *mid = w->mid + at, *bottom = w->bottom + at;
  for (; ox < inside; ++ox, top += step, mid += step, bottom += step) {
    const int32_t x0 = *top, x1 = *mid, x2 = *bottom;
    acc[ox] = next + x0 * k2 + x1 * k5 + x2 * k8;
    next = after + x0 * k1 + x1 * k4 + x2 * k7;
    after = bias + x0 * k0 + x1 * k3 + x2 * k6;
  }
  for (; ox < out_w; ++ox) { /* right padding */
    acc[ox] = next + zero_point * (k2 + k5 + k8);
    next = after + zero_point * (k1 + k4 + k7), after = bias + zero_point * (k0 + k3 + k6);
  }
}

/* A row of accumulators at stride 2: window ox covers columns q0 + 2ox .. q0 + 2ox + 2; its last
 * column is the next window's first. */
static inline void row_stride2(const window_rows *w, int32_t q0, int32_t in_w, int32_t step, int32_t zero_point,
                               int32_t out_w, int32_t *acc) {
  const int32_t k0 = w->k0, k1 = w->k1, k2 = w->k2, k3 = w->k3, k4 = w->k4, k5 = w->k5, k6 = w->k6, k7 = w->k7;
  const int32_t k8 = w->k8, bias = w->bias;
  int32_t carry = bias + column(w, q0, in_w, step, zero_point, k0, k3, k6);
  int32_t ox = 0;
  for (; ox < out_w && q0 + 2 * ox + 1 < 0; ++ox) {
    const int32_t q = q0 + 2 * ox + 1;
    acc[ox] = carry + column(w, q, in_w, step, zero_point, k1, k4, k7) +
              column(w, q + 1, in_w, step, zero_point, k2, k5, k8);
    carry = bias + column(w, q + 1, in_w, step, zero_point, k0, k3, k6);
  }
  /* Windows whose last column is inside the input: q0 + 2ox + 2 <= in_w - 1. */
  const int32_t last = in_w - 3 - q0 >= 0 ? (in_w - 3 - q0) / 2 + 1 : 0, inside = last < out_w ? last : out_w;
  const int32_t at = (q0 + 2 * ox + 1) * step;
  const int8_t *top = w->top + at, *mid = w->mid + at, *bottom = w->bottom + at;
  for (; ox < inside; ++ox, top += 2 * step, mid += 2 * step, bottom += 2 * step) {
    const int32_t x0 = top[0], x1 = mid[0], x2 = bottom[0], y0 = top[step], y1 = mid[step], y2 = bottom[step];
    acc[ox] = carry + x0 * k1 + x1 * k4 + x2 * k7 + y0 * k2 + y1 * k5 + y2 * k8;
    carry = bias + y0 * k0 + y1 * k3 + y2 * k6;
  }
  for (; ox < out_w; ++ox) {
    const int32_t q = q0 + 2 * ox + 1;
    acc[ox] = carry + column(w, q, in_w, step, zero_point, k1, k4, k7) +
              column(w, q + 1, in_w, step, zero_point, k2, k5, k8);
    carry = bias + column(w, q + 1, in_w, step, zero_point, k0, k3, k6);
  }
}

/* Any other stride: each window's three columns. */
static inline void row_strided(const window_rows *w, int32_t q0, int32_t stride, int32_t in_w, int32_t step,
                        int32_t zero_point, int32_t out_w, int32_t *acc) {
  for (int32_t ox = 0, q = q0; ox < out_w; ++ox, q += stride) {
    acc[ox] = w->bias + column(w, q, in_w, step, zero_point, w->k0, w->k3, w->k6) +
              column(w, q + 1, in_w, step, zero_point, w->k1, w->k4, w->k7) +
              column(w, q + 2, in_w, step, zero_point, w->k2, w->k5, w->k8);
  }
}

/* The kernel, its weights p->weights or, when `wide` is not NULL, wide ([in_ch][9] in frame order, any
 * int16 values: bounded as folded_bias says with 2^14 replaced by 128 * max |w|). */
static inline void mote_depthwise_rows(const mote_depthwise_conv_rows_params *p, const int16_t *wide,
                                       const int8_t *input, int8_t *output) {
  if (mote_depthwise_rows_small(p)) {
    mote_depthwise_rows_plane(p, wide, input, output);
    return;
  }
  int32_t acc[MOTE_DEPTHWISE_ROWS_RUN]; /* a row's accumulators: a few words of stack, no arena */
  const int32_t n = p->in_ch, in_h = p->in_h, in_w = p->in_w;
  const int32_t step = p->in_col_step, out_step = p->out_col_step, zero_point = -p->input_offset;
  /* A frame wider than MOTE_DEPTHWISE_ROWS_RUN outputs goes as strips of columns, each its own pass. */
  for (int32_t x0 = 0; x0 < p->out_w; x0 += MOTE_DEPTHWISE_ROWS_RUN) {
    const int32_t out_w = p->out_w - x0 < MOTE_DEPTHWISE_ROWS_RUN ? p->out_w - x0 : MOTE_DEPTHWISE_ROWS_RUN;
    const int32_t q0 = x0 * p->stride_w - p->pad_left; /* the first window's first column */
    for (int32_t b = 0; b < p->batches; ++b) {
      const int8_t *image = input + b * in_h * in_w * n; /* frame-independent */
      int8_t *out_image = output + b * p->out_h * p->out_w * n + x0 * out_step;
      for (int32_t c = 0; c < n; ++c) {
        int32_t k[9];
        for (int32_t t = 0; t < 9; ++t) k[t] = wide ? wide[9 * c + t] : p->weights[9 * c + t];
        const window_rows inside = {image + c, image + c, image + c, k[0], k[1], k[2], k[3], k[4], k[5], k[6],
                                    k[7], k[8], p->folded_bias[c]};
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
          const int32_t y0 = oy * p->stride_h - p->pad_top;
          window_rows w = inside;
          if (y0 >= 0 && y0 + 3 <= in_h) { /* the window rows inside the input, as most are */
            w.top = image + y0 * p->in_row_step + c, w.mid = w.top + p->in_row_step;
            w.bottom = w.mid + p->in_row_step;
          } else {
            clip_rows(&w, image + c, y0, in_h, p->in_row_step, zero_point);
          }
          if (p->stride_w == 1) {
            row_stride1(&w, q0, in_w, step, zero_point, out_w, acc);
          } else if (p->stride_w == 2) {
            row_stride2(&w, q0, in_w, step, zero_point, out_w, acc);
          } else {
            row_strided(&w, q0, p->stride_w, in_w, step, zero_point, out_w, acc);
          }
          /* The row's outputs in a pass of their own: the output stage and the nine weights together
           * would not fit the registers. Loaded here, it is not kept over the loop above. */
          const mote_output_channel s = mote_output_channel_at(p->output_stage, c, p->output_offset, p->act_min,
                                                               p->act_max);
          int8_t *out = out_image + oy * p->out_row_step + c;
          for (int32_t ox = 0; ox < out_w; ++ox, out += out_step) *out = mote_output_of(acc[ox], &s);
        }
      }
    }
  }
}

#endif
