/* The rows kernel on a small frame (see mote_depthwise_conv_rows_s8.h): each channel's input copied into a
 * plane on the stack whose border is the zero point, so that every window is whole, each row of windows
 * runs without bounds tests, and the accumulators of the whole frame are requantized in one pass with the
 * channel's output stage loaded once. Included by mote_depthwise_conv_rows_common.h. */
#ifndef MOTE_DEPTHWISE_CONV_ROWS_SMALL_H
#define MOTE_DEPTHWISE_CONV_ROWS_SMALL_H

#include "mote_conv_common.h"
#include "mote_depthwise_conv_rows_s8.h"

/* The plane: rows of MOTE_DEPTHWISE_ROWS_PITCH bytes, a constant so that a window column's three bytes are
 * one pointer's offsets; a frame whose windows need more rows or columns takes the rows path. */
#define MOTE_DEPTHWISE_ROWS_PITCH 16
#define MOTE_DEPTHWISE_ROWS_PLANE 256

/* The nine weights k[3 * fy + fx] and the folded bias of a channel. */
typedef struct {
  int32_t k0, k1, k2, k3, k4, k5, k6, k7, k8, bias;
} plane_filter;

/* A row of windows at stride 1 over the plane rows from t: window ox covers columns ox .. ox + 2. */
static inline void plane_row_s1(const plane_filter *f, const int8_t *t, int32_t out_w, int32_t *acc) {
  const int32_t k0 = f->k0, k1 = f->k1, k2 = f->k2, k3 = f->k3, k4 = f->k4, k5 = f->k5, k6 = f->k6, k7 = f->k7;
  const int32_t k8 = f->k8, bias = f->bias;
  enum { M = MOTE_DEPTHWISE_ROWS_PITCH, B = 2 * MOTE_DEPTHWISE_ROWS_PITCH };
  int32_t next = bias + t[0] * k0 + t[M] * k3 + t[B] * k6 + t[1] * k1 + t[M + 1] * k4 + t[B + 1] * k7;
  int32_t after = bias + t[1] * k0 + t[M + 1] * k3 + t[B + 1] * k6;
  t += 2;
  for (int32_t *end = acc + out_w; acc < end; ++acc, ++t) {
    const int32_t x0 = t[0], x1 = t[M], x2 = t[B];
    *acc = next + x0 * k2 + x1 * k5 + x2 * k8;
    next = after + x0 * k1 + x1 * k4 + x2 * k7;
    after = bias + x0 * k0 + x1 * k3 + x2 * k6;
  }
}

/* Two rows of windows at stride 1, over the plane rows from t and from t + PITCH: each column's four bytes
 * loaded once for both, into acc[ox] and acc[out_w + ox]. */
static inline void plane_rows2_s1(const plane_filter *f, const int8_t *t, int32_t out_w, int32_t *acc) {
  const int32_t k0 = f->k0, k1 = f->k1, k2 = f->k2, k3 = f->k3, k4 = f->k4, k5 = f->k5, k6 = f->k6, k7 = f->k7;
  const int32_t k8 = f->k8, bias = f->bias;
  enum { M = MOTE_DEPTHWISE_ROWS_PITCH, B = 2 * MOTE_DEPTHWISE_ROWS_PITCH, D = 3 * MOTE_DEPTHWISE_ROWS_PITCH };
  int32_t next0 = bias + t[0] * k0 + t[M] * k3 + t[B] * k6 + t[1] * k1 + t[M + 1] * k4 + t[B + 1] * k7;
  int32_t after0 = bias + t[1] * k0 + t[M + 1] * k3 + t[B + 1] * k6;
  int32_t next1 = bias + t[M] * k0 + t[B] * k3 + t[D] * k6 + t[M + 1] * k1 + t[B + 1] * k4 + t[D + 1] * k7;
  int32_t after1 = bias + t[M + 1] * k0 + t[B + 1] * k3 + t[D + 1] * k6;
  t += 2;
  int32_t *acc1 = acc + out_w;
  for (int32_t *end = acc + out_w; acc < end; ++acc, ++acc1, ++t) {
    const int32_t x0 = t[0], x1 = t[M], x2 = t[B], x3 = t[D];
    *acc = next0 + x0 * k2 + x1 * k5 + x2 * k8;
    next0 = after0 + x0 * k1 + x1 * k4 + x2 * k7;
    after0 = bias + x0 * k0 + x1 * k3 + x2 * k6;
    *acc1 = next1 + x1 * k2 + x2 * k5 + x3 * k8;
    next1 = after1 + x1 * k1 + x2 * k4 + x3 * k7;
    after1 = bias + x1 * k0 + x2 * k3 + x3 * k6;
  }
}

/* A row of windows at stride 2: window ox covers columns 2ox .. 2ox + 2; its last is the next one's first. */
static inline void plane_row_s2(const plane_filter *f, const int8_t *t, int32_t out_w, int32_t *acc) {
  const int32_t k0 = f->k0, k1 = f->k1, k2 = f->k2, k3 = f->k3, k4 = f->k4, k5 = f->k5, k6 = f->k6, k7 = f->k7;
  const int32_t k8 = f->k8, bias = f->bias;
  enum { M = MOTE_DEPTHWISE_ROWS_PITCH, B = 2 * MOTE_DEPTHWISE_ROWS_PITCH };
  int32_t carry = bias + t[0] * k0 + t[M] * k3 + t[B] * k6;
  for (int32_t *end = acc + out_w; acc < end; ++acc, t += 2) {
    const int32_t x0 = t[1], x1 = t[M + 1], x2 = t[B + 1], y0 = t[2], y1 = t[M + 2], y2 = t[B + 2];
    *acc = carry + x0 * k1 + x1 * k4 + x2 * k7 + y0 * k2 + y1 * k5 + y2 * k8;
    carry = bias + y0 * k0 + y1 * k3 + y2 * k6;
  }
}

/* Whether the frame takes the plane path: strides 1 or 2 across, every window's taps within
 * MOTE_DEPTHWISE_ROWS_PLANE bytes, the frame's accumulators within MOTE_DEPTHWISE_ROWS_RUN. */
static inline int32_t mote_depthwise_rows_small(const mote_depthwise_conv_rows_params *p) {
  const int32_t ph = (p->out_h - 1) * p->stride_h + 3, pw = (p->out_w - 1) * p->stride_w + 3;
  return p->stride_w <= 2 && pw <= MOTE_DEPTHWISE_ROWS_PITCH &&
         ph * MOTE_DEPTHWISE_ROWS_PITCH <= MOTE_DEPTHWISE_ROWS_PLANE && p->out_h * p->out_w <= MOTE_DEPTHWISE_ROWS_RUN;
}

/* The kernel on a frame that mote_depthwise_rows_small accepts; weights as mote_depthwise_rows takes them. */
static inline void mote_depthwise_rows_plane(const mote_depthwise_conv_rows_params *p, const int16_t *wide,
                                             const int8_t *input, int8_t *output) {
  int8_t plane[MOTE_DEPTHWISE_ROWS_PLANE];
  int32_t acc[MOTE_DEPTHWISE_ROWS_RUN];
  const int32_t n = p->in_ch, out_h = p->out_h, out_w = p->out_w;
  const int32_t ph = (out_h - 1) * p->stride_h + 3, pw = (out_w - 1) * p->stride_w + 3;
  enum { PW = MOTE_DEPTHWISE_ROWS_PITCH };
  /* The steps in locals: the stores of outputs could alias *p, which would have them loaded again. */
  const int32_t in_row_step = p->in_row_step, in_col_step = p->in_col_step;
  const int32_t out_row_step = p->out_row_step, out_col_step = p->out_col_step;
  /* The input's rows and columns in the plane: the same for every channel, so the border stays. */
  const int32_t rows = p->in_h < ph - p->pad_top ? p->in_h : ph - p->pad_top;
  const int32_t cols = p->in_w < pw - p->pad_left ? p->in_w : pw - p->pad_left;
  for (int32_t i = 0; i < ph * PW; ++i) plane[i] = (int8_t)(-p->input_offset);
  int8_t *corner = plane + p->pad_top * PW + p->pad_left;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * n;
    int8_t *out_image = output + b * out_h * out_w * n;
    for (int32_t c = 0; c < n; ++c) {
      for (int32_t y = 0; y < rows; ++y) {
        const int8_t *src = image + y * in_row_step + c;
        int8_t *dst = corner + y * PW;
        for (int32_t x = 0; x < cols; ++x, src += in_col_step) dst[x] = *src;
      }
      const int16_t *kw = wide ? wide + 9 * c : NULL;
      const int8_t *kn = p->weights + 9 * c;
      const plane_filter f = {kw ? kw[0] : kn[0], kw ? kw[1] : kn[1], kw ? kw[2] : kn[2],
                              kw ? kw[3] : kn[3], kw ? kw[4] : kn[4], kw ? kw[5] : kn[5],
                              kw ? kw[6] : kn[6], kw ? kw[7] : kn[7], kw ? kw[8] : kn[8], p->folded_bias[c]};
      const int32_t row_step = p->stride_h * PW;
      if (p->stride_w == 1 && p->stride_h == 1) {
        int32_t oy = 0;
        for (; oy + 2 <= out_h; oy += 2) plane_rows2_s1(&f, plane + oy * PW, out_w, acc + oy * out_w);
        if (oy < out_h) plane_row_s1(&f, plane + oy * PW, out_w, acc + oy * out_w);
      } else if (p->stride_w == 1) {
        for (int32_t oy = 0; oy < out_h; ++oy) plane_row_s1(&f, plane + oy * row_step, out_w, acc + oy * out_w);
      } else {
        for (int32_t oy = 0; oy < out_h; ++oy) plane_row_s2(&f, plane + oy * row_step, out_w, acc + oy * out_w);
      }
      const mote_output_channel s = mote_output_channel_at(p->output_stage, c, p->output_offset, p->act_min,
                                                           p->act_max);
      const int32_t *a = acc;
      int8_t *row_out = out_image + c;
      for (int32_t oy = 0; oy < out_h; ++oy, row_out += out_row_step) {
        int8_t *out = row_out;
        for (int32_t ox = 0; ox < out_w; ++ox, out += out_col_step) *out = mote_output_of(*a++, &s);
      }
    }
  }
}

#endif
