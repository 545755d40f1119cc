#include "mote_depthwise_conv_plane_s8.h"

#include "mote_libc.h"

#include "mote_depthwise_conv_plane_fill.h"
#include "mote_output_stage.h"

/* The block and row bodies below are instantiated with constants by each row function: they must be
 * inlined there, whatever a compiler's size heuristics say. */
#if defined(__GNUC__)
#define MOTE_PLANE_INLINE static inline __attribute__((always_inline))
#define MOTE_PLANE_OUTLINE static __attribute__((noinline))
#else
#define MOTE_PLANE_INLINE static inline
#define MOTE_PLANE_OUTLINE static
#endif

/* Eight windows at stride 1, dilation 1 across, one lane, for a constant filter width (2 to 8): each
 * input byte of a filter row is loaded once for the eight, and the unrolled steps rename the window's
 * registers instead of moving them. */
MOTE_PLANE_INLINE void slide8(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step,
                              const int32_t *bias, int32_t *acc) {
  const int32_t b = bias[0];
  int32_t a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b;
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step) {
    int32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6];
    for (int32_t fx = 0; fx < fw; ++fx, ++w) {
      const int32_t x7 = x[fx + 7], k = *w;
      a0 += k * x0, a1 += k * x1, a2 += k * x2, a3 += k * x3;
      a4 += k * x4, a5 += k * x5, a6 += k * x6, a7 += k * x7;
      x0 = x1, x1 = x2, x2 = x3, x3 = x4, x4 = x5, x5 = x6, x6 = x7;
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* Four windows `stride` bytes apart, one lane; taps `dx` bytes apart across, rows `row_step` apart. */
MOTE_PLANE_INLINE void block4x1(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step, int32_t dx,
                                int32_t stride, const int32_t *bias, int32_t *acc) {
  int32_t a0 = bias[0], a1 = bias[0], a2 = bias[0], a3 = bias[0];
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step) {
    const int8_t *xi = x, *end = w + fw;
    for (; w < end; ++w, xi += dx) {
      const int32_t k = *w;
      a0 += k * xi[0], a1 += k * xi[stride], a2 += k * xi[2 * stride], a3 += k * xi[3 * stride];
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* Eight windows `stride` bytes apart, one lane; taps `dx` bytes apart across, rows `row_step` apart. */
MOTE_PLANE_INLINE void block8x1(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step,
                                int32_t dx, int32_t stride, const int32_t *bias, int32_t *acc) {
  const int32_t b = bias[0];
  int32_t a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b;
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step) {
    const int8_t *xi = x, *end = w + fw;
    for (; w < end; ++w, xi += dx) {
      const int32_t k = *w;
      a0 += k * xi[0], a1 += k * xi[stride], a2 += k * xi[2 * stride], a3 += k * xi[3 * stride];
      a4 += k * xi[4 * stride], a5 += k * xi[5 * stride], a6 += k * xi[6 * stride], a7 += k * xi[7 * stride];
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* Four windows `stride` bytes apart by two lanes (output channels of one input channel): each input
 * byte is loaded once for both. acc[2 * pixel + lane]. */
MOTE_PLANE_INLINE void block4x2(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step, int32_t dx,
                                int32_t stride, const int32_t *bias, int32_t *acc) {
  const int32_t b0 = bias[0], b1 = bias[1];
  int32_t a0 = b0, a1 = b1, a2 = b0, a3 = b1, a4 = b0, a5 = b1, a6 = b0, a7 = b1;
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step) {
    const int8_t *xi = x, *end = w + 2 * fw;
    for (; w < end; w += 2, xi += dx) {
      const int32_t k0 = w[0], k1 = w[1];
      const int32_t v0 = xi[0], v1 = xi[stride], v2 = xi[2 * stride], v3 = xi[3 * stride];
      a0 += k0 * v0, a1 += k1 * v0, a2 += k0 * v1, a3 += k1 * v1;
      a4 += k0 * v2, a5 += k1 * v2, a6 += k0 * v3, a7 += k1 * v3;
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* Four windows `stride` bytes apart by four lanes: each input byte is loaded once for the four, each
 * weight once for the four pixels. acc[4 * pixel + lane]. */
MOTE_PLANE_INLINE void block4x4(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step, int32_t dx,
                                int32_t stride, const int32_t *bias, int32_t *acc) {
  const int32_t b0 = bias[0], b1 = bias[1], b2 = bias[2], b3 = bias[3];
  int32_t a0 = b0, a1 = b1, a2 = b2, a3 = b3, a4 = b0, a5 = b1, a6 = b2, a7 = b3;
  int32_t a8 = b0, a9 = b1, a10 = b2, a11 = b3, a12 = b0, a13 = b1, a14 = b2, a15 = b3;
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step) {
    const int8_t *xi = x, *end = w + 4 * fw;
    for (; w < end; w += 4, xi += dx) {
      const int32_t v0 = xi[0], v1 = xi[stride], v2 = xi[2 * stride], v3 = xi[3 * stride];
      int32_t k = w[0];
      a0 += k * v0, a4 += k * v1, a8 += k * v2, a12 += k * v3;
      k = w[1];
      a1 += k * v0, a5 += k * v1, a9 += k * v2, a13 += k * v3;
      k = w[2];
      a2 += k * v0, a6 += k * v1, a10 += k * v2, a14 += k * v3;
      k = w[3];
      a3 += k * v0, a7 += k * v1, a11 += k * v2, a15 += k * v3;
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
  acc[8] = a8, acc[9] = a9, acc[10] = a10, acc[11] = a11, acc[12] = a12, acc[13] = a13, acc[14] = a14;
  acc[15] = a15;
}

/* A block's outputs, n pixels `step` bytes apart by `lanes` lanes, from acc[lanes * pixel + lane], the stage
 * of a lane in registers for its pixels. */
MOTE_PLANE_INLINE void store_n(const mote_plane_walk *k, const int32_t *acc, int32_t n, int32_t lanes, int8_t *out) {
  const int32_t step = k->out_step;
  for (int32_t j = 0; j < lanes; ++j) {
    const mote_output_channel stage = k->stage[j];
    const int32_t *a = acc + j;
    int8_t *o = out + j;
    for (int32_t i = 0; i < n; ++i, a += lanes, o += step) *o = mote_output_of(*a, &stage);
  }
}

/* The stores out of line: inlined into every row function, the output stage would multiply the code by
 * their number. The whole blocks of the two shapes the widest layers take (four pixels by four lanes,
 * eight pixels by one) unrolled, any other block's pixels unrolled. */
MOTE_PLANE_OUTLINE void store_4x4(const mote_plane_walk *k, const int32_t *acc, int8_t *out) {
  store_n(k, acc, 4, 4, out);
}
MOTE_PLANE_OUTLINE void store_8x1(const mote_plane_walk *k, const int32_t *acc, int8_t *out) {
  store_n(k, acc, 8, 1, out);
}
MOTE_PLANE_OUTLINE void store_4(const mote_plane_walk *k, const int32_t *acc, int8_t *out) {
  store_n(k, acc, 4, k->lanes, out);
}
MOTE_PLANE_OUTLINE void store_part(const mote_plane_walk *k, const int32_t *acc, int32_t n, int8_t *out) {
  store_n(k, acc, n, k->lanes, out);
}

/* A row of outputs in blocks of `pixels` pixels, the block's shape given as constants by the callers
 * below (slide8 where `slide`, else block<pixels>x<lanes>), so that each caller's inner loops take fixed
 * offsets. */
MOTE_PLANE_INLINE void row_blocks(const mote_plane_walk *k, const int8_t *x, const int8_t *w, int8_t *out,
                                  int32_t lanes, int32_t stride, int32_t fw, int32_t slide, int32_t pixels) {
  const int32_t fh = k->fh, row_step = k->row_step, dx = k->dx, out_w = k->out_w, step = k->out_step;
  for (int32_t ox = 0; ox < out_w; ox += pixels, x += pixels * stride, out += pixels * step) {
    int32_t acc[16];
    if (pixels == 8 && slide) {
      slide8(x, w, fh, fw, row_step, k->bias, acc);
    } else if (pixels == 8) {
      block8x1(x, w, fh, fw, row_step, dx, stride, k->bias, acc);
    } else if (lanes == 4) {
      block4x4(x, w, fh, fw, row_step, dx, stride, k->bias, acc);
    } else if (lanes == 2) {
      block4x2(x, w, fh, fw, row_step, dx, stride, k->bias, acc);
    } else {
      block4x1(x, w, fh, fw, row_step, dx, stride, k->bias, acc);
    }
    if (out_w - ox < pixels) {
      store_part(k, acc, out_w - ox, out);
    } else if (pixels == 8) {
      store_8x1(k, acc, out);
    } else if (lanes == 4) {
      store_4x4(k, acc, out);
    } else {
      store_4(k, acc, out);
    }
  }
}

/* The row functions: lanes, stride, pixels and, where they slide, the filter width fixed. */
#define MOTE_PLANE_ROW(NAME, LANES, STRIDE, FW, SLIDE, PIXELS)                                  \
  static void NAME(const mote_plane_walk *k, const int8_t *x, const int8_t *w, int8_t *out) { \
    row_blocks(k, x, w, out, LANES, STRIDE, FW, SLIDE, PIXELS);                               \
  }
MOTE_PLANE_ROW(row4_s1, 4, 1, k->fw, 0, 4)
MOTE_PLANE_ROW(row4_s2, 4, 2, k->fw, 0, 4)
MOTE_PLANE_ROW(row2_s1, 2, 1, k->fw, 0, 4)
MOTE_PLANE_ROW(row2_s2, 2, 2, k->fw, 0, 4)
MOTE_PLANE_ROW(row8_s1, 1, 1, k->fw, 0, 8)
MOTE_PLANE_ROW(row8_s2, 1, 2, k->fw, 0, 8)
MOTE_PLANE_ROW(slide8_w2, 1, 1, 2, 1, 8)
MOTE_PLANE_ROW(slide8_w3, 1, 1, 3, 1, 8)
MOTE_PLANE_ROW(slide8_w4, 1, 1, 4, 1, 8)
MOTE_PLANE_ROW(slide8_w5, 1, 1, 5, 1, 8)
MOTE_PLANE_ROW(slide8_w6, 1, 1, 6, 1, 8)
MOTE_PLANE_ROW(slide8_w7, 1, 1, 7, 1, 8)
MOTE_PLANE_ROW(slide8_w8, 1, 1, 8, 1, 8)
MOTE_PLANE_ROW(row_any, k->lanes, k->stride, k->fw, 0, k->pixels) /* the rare shapes: nothing fixed */
#undef MOTE_PLANE_ROW

/* The row function for the walk of a filter that is not fixed (those name theirs in the params): strides 1
 * and 2 fixed, and for one lane sliding at stride 1 (no dilation across) the filter width too; row_any for
 * the others. NULL: none (blocks of eight with more than one lane, a plane of four channels). */
static mote_plane_row choose_row(const mote_plane_walk *k) {
  static const mote_plane_row slides8[7] = {slide8_w2, slide8_w3, slide8_w4, slide8_w5,
                                            slide8_w6, slide8_w7, slide8_w8};
  static const mote_plane_row by_lanes[3][2] = {{row8_s1, row8_s2}, {row2_s1, row2_s2}, {row4_s1, row4_s2}};
  if (k->group != 1) return NULL;
  if (k->pixels == 8 && k->lanes != 1) return NULL;
  if (k->pixels == 8 && k->stride == 1 && k->dx == 1 && k->fw >= 2 && k->fw <= 8) return slides8[k->fw - 2];
  if ((k->pixels == 8) != (k->lanes == 1) || k->stride > 2) return row_any;
  return by_lanes[k->lanes / 2][k->stride - 1];
}

/* Output channels o0 .. o0 + lanes - 1 (of one input channel) over the plane. */
static void channel_group(const mote_depthwise_conv_plane_params *p, const int8_t *plane, const int8_t *w,
                          int32_t o0, int8_t *out_image) {
  const int32_t group = p->plane_group, plane_w = group * p->plane_w;
  mote_plane_walk k; /* field by field: an initializer would clear all four stages, a memset per channel */
  k.fh = p->filter_h, k.fw = p->filter_w, k.row_step = p->dilation_h * plane_w, k.dx = group * p->dilation_w;
  k.stride = p->stride_w, k.lanes = p->lanes, k.pixels = p->pixels, k.group = group, k.out_w = p->out_w;
  k.out_step = p->in_ch * p->depth_multiplier;
  for (int32_t j = 0; j < k.lanes; ++j) {
    k.stage[j] = mote_output_channel_at(p->output_stage, o0 + j, p->output_offset, p->act_min, p->act_max);
    k.bias[j] = p->folded_bias[o0 + j];
  }
  const mote_plane_row row = p->fixed_row != NULL ? p->fixed_row : choose_row(&k); /* not NULL: checked */
  const int32_t in_row = p->stride_h * plane_w, out_row = p->out_w * k.out_step;
  int8_t *out = out_image + o0;
  for (int32_t oy = 0; oy < p->out_h; ++oy, plane += in_row, out += out_row) row(&k, plane, w, out);
}

mote_status mote_depthwise_conv_plane_s8(const mote_depthwise_conv_plane_params *p, const int8_t *input,
                                         int8_t *output, mote_scratch scratch) {
  const int32_t m = p->depth_multiplier, lanes = p->lanes, ch = p->in_ch, taps = p->filter_h * p->filter_w;
  const int32_t group = p->plane_group;
  const size_t plane_bytes = (size_t)p->plane_h * (size_t)p->plane_w * (size_t)group;
  if (scratch.size < plane_bytes || (lanes != 1 && lanes != 2 && lanes != 4) || m % lanes != 0) return MOTE_ERROR;
  const mote_plane_walk shape = {p->filter_h, p->filter_w, 0, group * p->dilation_w, p->stride_w, lanes, p->pixels,
                                 group, p->out_w, 0, {0, 0, 0, 0}, {{0}}};
  if (p->fixed_row != NULL ? p->pixels != 8 || p->out_w < 8 || (group != 1 && group != 4)
                           : (p->pixels != 4 && p->pixels != 8) || choose_row(&shape) == NULL) {
    return MOTE_ERROR;
  }
  int8_t *plane = scratch.buf;
  if (group == 1) {
    memset(plane, p->zero_point, plane_bytes); /* the border; the channels overwrite the rest */
  } else {
    fill_border(p, plane, group); /* rows four times as long: the border alone */
  }
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * ch;
    int8_t *out_image = output + b * p->out_h * p->out_w * ch * m;
    for (int32_t c0 = 0; c0 < ch; c0 += group) {
      const int32_t n = ch - c0 < group ? ch - c0 : group;
      if (group == 1) {
        fill_plane(p, image, c0, plane);
      } else {
        fill_plane4(p, image, c0, n, plane);
      }
      for (int32_t c = c0; c < c0 + n; ++c) {
        for (int32_t g = 0; g < m; g += lanes) {
          channel_group(p, plane + (c - c0), p->weights + (c * m + g) * taps, c * m + g, out_image);
        }
      }
    }
  }
  return MOTE_OK;
}
