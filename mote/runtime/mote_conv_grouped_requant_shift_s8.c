#include "mote_conv_grouped_requant_shift_s8.h"

#include "mote_output_requant_shift_s8.h"

/* The sum of output (oy, ox) of channel oc with every tap tested against the input's bounds. */
static int32_t window_sum(const mote_conv_grouped_requant_shift_params *p, const int8_t *image, const int8_t *w,
                          int32_t first, int32_t bias, int32_t oy, int32_t ox) {
  int32_t acc = bias;
  for (int32_t fy = 0; fy < p->filter_h; ++fy) {
    const int32_t y = oy * p->stride_h - p->pad_top + fy * p->dilation_h;
    if (y < 0 || y >= p->in_h) continue;
    for (int32_t fx = 0; fx < p->filter_w; ++fx) {
      const int32_t x = ox * p->stride_w - p->pad_left + fx * p->dilation_w;
      if (x < 0 || x >= p->in_w) continue;
      const int8_t *in = image + (y * p->in_w + x) * p->in_ch + first;
      const int8_t *wt = w + (fy * p->filter_w + fx) * p->filter_in_ch;
      for (int32_t ic = 0; ic < p->filter_in_ch; ++ic) acc += wt[ic] * (in[ic] + p->input_offset);
    }
  }
  return acc;
}

/* A channel's RequantShift row, read once: in line for the 32-bit shift kind (mote_output_stage.h), else through
 * mote_output_of_requant_shift. */
typedef struct {
  mote_output_channel s;
  int32_t shift32; /* 1: the 32-bit kind with a shift */
  uint32_t mul, k, sh;
} rqs_row;

static inline rqs_row rqs_row_at(const mote_conv_grouped_requant_shift_params *p, int32_t oc) {
  rqs_row r;
  r.s = mote_output_channel_at(p->output_stage, oc, p->output_offset, p->act_min, p->act_max);
  r.shift32 = r.s.row[1] == MOTE_OUTPUT_REQUANT_SHIFT_32 && r.s.fast_after == INT32_MAX;
  r.mul = (uint32_t)r.s.row[0], r.k = (uint32_t)r.s.row[5], r.sh = (uint32_t)r.s.row[6] & 31u;
  return r;
}

static inline int8_t rqs_out(int32_t acc, const rqs_row *r) {
  if (MOTE_LIKELY(r->shift32)) {
    if (acc < r->s.min_below) return (int8_t)r->s.lo;
    if (acc > r->s.max_above) return (int8_t)r->s.hi;
    return (int8_t)((int32_t)((acc * r->mul + r->k) >> r->sh) - 128);
  }
  return mote_output_of_requant_shift(acc, &r->s);
}

/* window_sum for a depthwise filter (one input channel, `first`), undilated: the taps inside the input found
 * once, a row and column range, then summed with no tests. */
static int32_t depthwise_sum(const mote_conv_grouped_requant_shift_params *p, const int8_t *image, const int8_t *w,
                             int32_t first, int32_t bias, int32_t oy, int32_t ox) {
  const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
  const int32_t fy_lo = y0 < 0 ? -y0 : 0, fy_hi = p->in_h - y0 < p->filter_h ? p->in_h - y0 : p->filter_h;
  const int32_t fx_lo = x0 < 0 ? -x0 : 0, fx_hi = p->in_w - x0 < p->filter_w ? p->in_w - x0 : p->filter_w;
  const int32_t row_bytes = p->in_w * p->in_ch, in_ch = p->in_ch, offset = p->input_offset;
  int32_t acc = bias;
  for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
    const int8_t *x = image + (y0 + fy) * row_bytes + (x0 + fx_lo) * in_ch + first;
    const int8_t *wt = w + fy * p->filter_w;
    for (int32_t fx = fx_lo; fx < fx_hi; ++fx, x += in_ch) acc += wt[fx] * (*x + offset);
  }
  return acc;
}

/* The largest depthwise filter whose windows inside the input take the offsets table (7x7). */
#define MOTE_GROUPED_MAX_TAPS 49

/* The sum of a depthwise window inside the input at `in`: its taps at the byte offsets `at`, no bounds tests. */
static int32_t inside_sum(const int8_t *in, const int32_t *at, const int8_t *w, int32_t taps, int32_t folded) {
  int32_t acc = folded;
  for (int32_t t = 0; t < taps; ++t) acc += in[at[t]] * w[t];
  return acc;
}

/* The first output whose window starts inside the input, and one past the last whose window ends inside it. */
static void inside(int32_t in, int32_t out, int32_t filter, int32_t stride, int32_t dilation, int32_t pad,
                   int32_t *lo, int32_t *hi) {
  int32_t a = (pad + stride - 1) / stride, b = out;
  while (b > a && (b - 1) * stride - pad + (filter - 1) * dilation >= in) --b;
  *lo = a < out ? a : out;
  *hi = b > *lo ? b : *lo;
}

mote_status mote_conv_grouped_requant_shift_s8(const mote_conv_grouped_requant_shift_params *p, const int8_t *input,
                                               int8_t *output, mote_scratch scratch) {
  (void)scratch;
  const int32_t groups = p->in_ch / p->filter_in_ch, per_group = p->out_ch / groups;
  const int32_t taps = p->filter_h * p->filter_w * p->filter_in_ch;
  const int32_t depthwise = p->filter_in_ch == 1 && taps <= MOTE_GROUPED_MAX_TAPS;
  const int32_t fast = depthwise && p->filter_h == 3 && p->filter_w == 3;
  int32_t at[MOTE_GROUPED_MAX_TAPS]; /* a depthwise window's taps as byte offsets from its first */
  for (int32_t fy = 0; depthwise && fy < p->filter_h; ++fy) {
    for (int32_t fx = 0; fx < p->filter_w; ++fx) {
      at[fy * p->filter_w + fx] = (fy * p->dilation_h * p->in_w + fx * p->dilation_w) * p->in_ch;
    }
  }
  int32_t y_lo, y_hi, x_lo, x_hi;
  inside(p->in_h, p->out_h, p->filter_h, p->stride_h, p->dilation_h, p->pad_top, &y_lo, &y_hi);
  inside(p->in_w, p->out_w, p->filter_w, p->stride_w, p->dilation_w, p->pad_left, &x_lo, &x_hi);
  const int32_t rs = p->in_w * p->in_ch * p->dilation_h, cs = p->in_ch * p->dilation_w;
  const int32_t step = p->in_ch * p->stride_w;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * p->in_ch;
    int8_t *out_image = output + b * p->out_h * p->out_w * p->out_ch;
    for (int32_t oc = 0; oc < p->out_ch; ++oc) {
      const int32_t first = (oc / per_group) * p->filter_in_ch;
      const int8_t *w = p->weights + oc * taps;
      const int32_t bias = p->bias != NULL ? p->bias[oc] : 0;
      const rqs_row s = rqs_row_at(p, oc);
      const int32_t w0 = fast ? w[0] : 0, w1 = fast ? w[1] : 0, w2 = fast ? w[2] : 0, w3 = fast ? w[3] : 0;
      const int32_t w4 = fast ? w[4] : 0;
      const int32_t w5 = fast ? w[5] : 0, w6 = fast ? w[6] : 0, w7 = fast ? w[7] : 0, w8 = fast ? w[8] : 0;
      int32_t folded = bias;
      for (int32_t t = 0; depthwise && t < taps; ++t) folded += p->input_offset * w[t];
      for (int32_t oy = 0; oy < p->out_h; ++oy) {
        int8_t *out = out_image + oy * p->out_w * p->out_ch + oc;
        const int32_t row_inside = depthwise && oy >= y_lo && oy < y_hi;
        for (int32_t ox = 0; ox < p->out_w; ++ox, out += p->out_ch) {
          if (row_inside && ox == x_lo && x_hi > x_lo) {
            /* the windows inside the input: no bounds tests; a 3x3 filter's nine taps at fixed strides */
            const int8_t *r0 = image + ((oy * p->stride_h - p->pad_top) * p->in_w + (ox * p->stride_w - p->pad_left))
                                           * p->in_ch + first;
            if (fast && p->stride_w == 1) {
              /* two outputs a step: the middle two of their four columns read once for both */
              for (; ox + 2 <= x_hi; ox += 2, out += 2 * p->out_ch, r0 += 2 * step) {
                const int8_t *r1 = r0 + rs, *r2 = r1 + rs;
                const int32_t a0 = r0[0], a1 = r0[cs], a2 = r0[2 * cs], a3 = r0[3 * cs];
                const int32_t b0 = r1[0], b1 = r1[cs], b2 = r1[2 * cs], b3 = r1[3 * cs];
                const int32_t c0 = r2[0], c1 = r2[cs], c2 = r2[2 * cs], c3 = r2[3 * cs];
                const int32_t left = folded + a0 * w0 + a1 * w1 + a2 * w2 + b0 * w3 + b1 * w4 + b2 * w5 + c0 * w6 +
                                     c1 * w7 + c2 * w8;
                const int32_t right = folded + a1 * w0 + a2 * w1 + a3 * w2 + b1 * w3 + b2 * w4 + b3 * w5 + c1 * w6 +
                                      c2 * w7 + c3 * w8;
                out[0] = rqs_out(left, &s), out[p->out_ch] = rqs_out(right, &s);
              }
            }
            for (; ox < x_hi; ++ox, out += p->out_ch, r0 += step) {
              int32_t acc;
              if (fast) {
                const int8_t *r1 = r0 + rs, *r2 = r1 + rs;
                acc = folded;
                acc += r0[0] * w0 + r0[cs] * w1 + r0[2 * cs] * w2;
                acc += r1[0] * w3 + r1[cs] * w4 + r1[2 * cs] * w5;
                acc += r2[0] * w6 + r2[cs] * w7 + r2[2 * cs] * w8;
              } else {
                acc = inside_sum(r0, at, w, taps, folded);
              }
              *out = rqs_out(acc, &s);
            }
            if (ox >= p->out_w) break;
          }
          const int32_t acc = p->filter_in_ch == 1 && p->dilation_h == 1 && p->dilation_w == 1
                                  ? depthwise_sum(p, image, w, first, bias, oy, ox)
                                  : window_sum(p, image, w, first, bias, oy, ox);
          *out = rqs_out(acc, &s);
        }
      }
    }
  }
  return MOTE_OK;
}
