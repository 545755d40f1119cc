#include "mote_depthwise_conv_armv6m_s8.h"

/* Input rows y0 .. y0 + used - 1 of channel c of `image` into the strip s (the header's layout). */
static void fill(const mote_depthwise_conv_armv6m_params *p, const int8_t *image, int32_t c, int32_t y0, int32_t used,
                 int32_t *s) {
  const int32_t rows = p->rows, cols = p->cols, step = p->in_ch, zero_point = -p->input_offset;
  const int32_t left = p->pad_left < cols ? p->pad_left : cols; /* columns before the input */
  const int32_t inside = p->in_w + p->pad_left < cols ? p->in_w : cols - left; /* columns on the input */
  for (int32_t r = 0; r < used; ++r) {
    const int32_t iy = y0 + r;
    int32_t *d = s + r;
    if (iy < 0 || iy >= p->in_h) {
      for (int32_t col = 0; col < cols; ++col, d += rows) *d = zero_point;
      continue;
    }
    const int8_t *from = image + iy * p->in_w * step + c;
    int32_t col = 0;
    for (; col < left; ++col, d += rows) *d = zero_point;
    for (int32_t k = 0; k < inside; ++k, d += rows, from += step) *d = *from;
    for (col += inside; col < cols; ++col, d += rows) *d = zero_point;
  }
}

/* The 3x3 undilated window at `x` (rows words per column) by the nine weights at w, plus acc. */
static inline int32_t dot_3x3(const int32_t *x, const int32_t *w, int32_t acc) {
  enum { R = MOTE_DEPTHWISE_ARMV6M_ROWS };
  acc += x[0] * w[0] + x[1] * w[1] + x[2] * w[2];
  acc += x[R] * w[3] + x[R + 1] * w[4] + x[R + 2] * w[5];
  acc += x[2 * R] * w[6] + x[2 * R + 1] * w[7] + x[2 * R + 2] * w[8];
  return acc;
}

static int32_t dot_any(const mote_depthwise_conv_armv6m_params *p, const int32_t *x, const int32_t *w, int32_t acc) {
  const int32_t col_step = p->dilation_w * p->rows;
  for (int32_t fx = 0; fx < p->filter_w; ++fx, x += col_step) {
    for (int32_t fy = 0; fy < p->filter_h; ++fy) acc += x[fy * p->dilation_h] * *w++;
  }
  return acc;
}

/* One output channel's outputs along a row: the channel's weights, bias and output stage. */
typedef struct {
  const int32_t *w, *single, *stage;
  int32_t bias;
} channel;

/* The outputs of `count` rows of the strip s: row i's windows start at s + i * stride_h, each next one
 * stride_w columns on; its outputs at out + i * (out_w * out_ch), out_ch bytes apart. */
static void rows_3x3(const mote_depthwise_conv_armv6m_params *p, const channel *ch, const int32_t *s, int8_t *out,
                     int32_t count) {
  const int32_t x_step = p->stride_w * MOTE_DEPTHWISE_ARMV6M_ROWS, out_step = p->in_ch * p->depth_multiplier;
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max, width = p->out_w * out_step;
  const int32_t *w = ch->w, *single = ch->single, bias = ch->bias;
  for (int32_t i = 0; i < count; ++i, s += p->stride_h, out += width) {
    const int32_t *x = s;
    for (int8_t *o = out, *end = out + width; o != end; o += out_step, x += x_step) {
      *o = mote_armv6m_output(dot_3x3(x, w, bias), single, ch->stage, offset, lo, hi);
    }
  }
}

static void rows_any(const mote_depthwise_conv_armv6m_params *p, const channel *ch, const int32_t *s, int8_t *out,
                     int32_t count) {
  const int32_t x_step = p->stride_w * p->rows, out_step = p->in_ch * p->depth_multiplier;
  for (int32_t i = 0; i < count; ++i, s += p->stride_h, out += p->out_w * out_step) {
    const int32_t *x = s;
    for (int32_t ox = 0; ox < p->out_w; ++ox, x += x_step) {
      out[ox * out_step] = mote_armv6m_output(dot_any(p, x, ch->w, ch->bias), ch->single, ch->stage,
                                              p->output_offset, p->act_min, p->act_max);
    }
  }
}

mote_status mote_depthwise_conv_armv6m_s8(const mote_depthwise_conv_armv6m_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch) {
  if (scratch.size < (size_t)MOTE_DEPTHWISE_CONV_ARMV6M_SCRATCH(p->rows, p->cols)) return MOTE_ERROR;
  int32_t *s = (int32_t *)(void *)(((uintptr_t)scratch.buf + 3u) & ~(uintptr_t)3u);
  const int32_t rows = p->rows, mult = p->depth_multiplier, out_ch = p->in_ch * mult;
  const int32_t taps = p->filter_h * p->filter_w, span = (p->filter_h - 1) * p->dilation_h + 1;
  const int32_t per_strip = (rows - span) / p->stride_h + 1; /* output rows a strip serves */
  const int32_t fast = p->filter_h == 3 && p->filter_w == 3 && p->dilation_h == 1 && p->dilation_w == 1 &&
                       rows == MOTE_DEPTHWISE_ARMV6M_ROWS;
  void (*const rows_of)(const mote_depthwise_conv_armv6m_params *, const channel *, const int32_t *, int8_t *,
                        int32_t) = fast ? rows_3x3 : rows_any;
  const int32_t out_step = p->out_w * out_ch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * p->in_ch;
    int8_t *out_image = output + b * p->out_h * out_step;
    for (int32_t oy0 = 0; oy0 < p->out_h; oy0 += per_strip) {
      const int32_t count = p->out_h - oy0 < per_strip ? p->out_h - oy0 : per_strip;
      for (int32_t c = 0; c < p->in_ch; ++c) {
        fill(p, image, c, oy0 * p->stride_h - p->pad_top, (count - 1) * p->stride_h + span, s);
        for (int32_t oc = c * mult; oc < (c + 1) * mult; ++oc) {
          const channel ch = {p->weights + oc * taps, p->single + oc * MOTE_ARMV6M_SINGLE,
                              p->stage + oc * MOTE_DSP_STAGE, p->bias[oc]};
          rows_of(p, &ch, s, out_image + oy0 * out_step + oc, count);
        }
      }
    }
  }
  return MOTE_OK;
}
