#include "mote_depthwise_conv_plane_s8.h"

#include <string.h>

#include "mote_output_stage.h"

/* Input channel c of one image into the plane at (pad_top, pad_left); the border keeps the zero point. */
static void fill_plane(const mote_depthwise_conv_plane_params *p, const int8_t *image, int32_t c, int8_t *plane) {
  const int32_t ch = p->in_ch;
  for (int32_t iy = 0; iy < p->in_h; ++iy) {
    const int8_t *src = image + iy * p->in_w * ch + c;
    int8_t *dst = plane + (iy + p->pad_top) * p->plane_w + p->pad_left;
    for (int32_t ix = 0; ix < p->in_w; ++ix, src += ch) dst[ix] = *src;
  }
}

/* Four windows at stride 1, dilation 1 across, one lane: a filter row meets the input bytes x[0 .. fw + 2],
 * each loaded once and kept in one of four registers that rotate through the unrolled steps. */
static inline void slide4(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step,
                          int32_t *acc) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step) {
    const int8_t *xi = x;
    int32_t x0 = xi[0], x1 = xi[1], x2 = xi[2], x3, k;
    int32_t fx = 0;
    for (; fx + 4 <= fw; fx += 4, xi += 4, w += 4) {
      x3 = xi[3], k = w[0];
      a0 += k * x0, a1 += k * x1, a2 += k * x2, a3 += k * x3;
      x0 = xi[4], k = w[1];
      a0 += k * x1, a1 += k * x2, a2 += k * x3, a3 += k * x0;
      x1 = xi[5], k = w[2];
      a0 += k * x2, a1 += k * x3, a2 += k * x0, a3 += k * x1;
      x2 = xi[6], k = w[3];
      a0 += k * x3, a1 += k * x0, a2 += k * x1, a3 += k * x2;
    }
    for (; fx < fw; ++fx, ++xi, ++w) {
      x3 = xi[3], k = *w;
      a0 += k * x0, a1 += k * x1, a2 += k * x2, a3 += k * x3;
      x0 = x1, x1 = x2, x2 = x3;
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* Four windows `stride` bytes apart, one lane; taps `dx` bytes apart across, rows `row_step` apart. */
static inline void block4x1(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step, int32_t dx,
                            int32_t stride, int32_t *acc) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step) {
    const int8_t *xi = x, *end = w + fw;
    for (; w < end; ++w, xi += dx) {
      const int32_t k = *w;
      a0 += k * xi[0], a1 += k * xi[stride], a2 += k * xi[2 * stride], a3 += k * xi[3 * stride];
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* Four windows `stride` bytes apart by two lanes (output channels of one input channel): each input
 * byte is loaded once for both. acc[2 * pixel + lane]. */
static inline void block4x2(const int8_t *x, const int8_t *w, int32_t fh, int32_t fw, int32_t row_step, int32_t dx,
                            int32_t stride, int32_t *acc) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
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

/* The accumulators of the block of four pixels whose first window starts at x: strides 1 and 2 as
 * constants, so that the loads take fixed offsets. */
static void block(const mote_depthwise_conv_plane_params *p, const int8_t *x, const int8_t *w, int32_t *acc) {
  const int32_t fh = p->filter_h, fw = p->filter_w, row_step = p->dilation_h * p->plane_w, dx = p->dilation_w;
  const int32_t stride = p->stride_w;
  if (p->lanes == 2) {
    if (stride == 1) {
      block4x2(x, w, fh, fw, row_step, dx, 1, acc);
    } else if (stride == 2) {
      block4x2(x, w, fh, fw, row_step, dx, 2, acc);
    } else {
      block4x2(x, w, fh, fw, row_step, dx, stride, acc);
    }
  } else if (stride == 1 && dx == 1) {
    slide4(x, w, fh, fw, row_step, acc);
  } else if (stride == 1) {
    block4x1(x, w, fh, fw, row_step, dx, 1, acc);
  } else if (stride == 2) {
    block4x1(x, w, fh, fw, row_step, dx, 2, acc);
  } else {
    block4x1(x, w, fh, fw, row_step, dx, stride, acc);
  }
}

/* Output channels o0 .. o0 + lanes - 1 (of input channel c) over the plane. */
static void channel_group(const mote_depthwise_conv_plane_params *p, const int8_t *plane, const int8_t *w,
                          int32_t o0, int8_t *out_image) {
  const int32_t lanes = p->lanes, oc = p->in_ch * p->depth_multiplier;
  const mote_output_channel s0 = mote_output_channel_at(p->output_stage, o0, p->output_offset, p->act_min,
                                                        p->act_max);
  const mote_output_channel s1 = mote_output_channel_at(p->output_stage, o0 + lanes - 1, p->output_offset,
                                                        p->act_min, p->act_max);
  const int32_t b0 = p->folded_bias[o0], b1 = p->folded_bias[o0 + lanes - 1];
  for (int32_t oy = 0; oy < p->out_h; ++oy) {
    const int8_t *row = plane + oy * p->stride_h * p->plane_w;
    int8_t *out_row = out_image + oy * p->out_w * oc + o0;
    for (int32_t ox = 0; ox < p->out_w; ox += 4) {
      int32_t acc[8] = {b0, b1, b0, b1, b0, b1, b0, b1};
      if (lanes == 1) acc[1] = acc[2] = acc[3] = b0;
      block(p, row + ox * p->stride_w, w, acc);
      const int32_t n = p->out_w - ox < 4 ? p->out_w - ox : 4;
      int8_t *out = out_row + ox * oc;
      for (int32_t i = 0; i < n; ++i, out += oc) {
        out[0] = mote_output_of(acc[i * lanes], &s0);
        if (lanes == 2) out[1] = mote_output_of(acc[2 * i + 1], &s1);
      }
    }
  }
}

mote_status mote_depthwise_conv_plane_s8(const mote_depthwise_conv_plane_params *p, const int8_t *input,
                                         int8_t *output, mote_scratch scratch) {
  const int32_t m = p->depth_multiplier, lanes = p->lanes, ch = p->in_ch, taps = p->filter_h * p->filter_w;
  const size_t plane_bytes = (size_t)p->plane_h * (size_t)p->plane_w;
  if (scratch.size < plane_bytes || (lanes != 1 && lanes != 2) || m % lanes != 0) return MOTE_ERROR;
  int8_t *plane = scratch.buf;
  memset(plane, p->zero_point, plane_bytes); /* the border; the channels overwrite the rest */
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * ch;
    int8_t *out_image = output + b * p->out_h * p->out_w * ch * m;
    for (int32_t c = 0; c < ch; ++c) {
      fill_plane(p, image, c, plane);
      for (int32_t g = 0; g < m; g += lanes) {
        channel_group(p, plane, p->weights + (c * m + g) * taps, c * m + g, out_image);
      }
    }
  }
  return MOTE_OK;
}
