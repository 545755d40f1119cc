#include "mote_depthwise_conv_planar_s8.h"

#include "mote_conv_common.h"

/* Channel c of one image into the padded plane. */
static void load_plane(const mote_depthwise_conv_planar_params *p, const int8_t *image, int32_t c, int8_t *plane) {
  const int8_t zero_point = (int8_t)-p->input_offset; /* reads as 0 after the offset */
  const int32_t n = p->in_ch, pw = p->plane_w;
  /* The plane columns [lo, hi) that hold input pixels. */
  const int32_t lo = p->pad_left < pw ? p->pad_left : pw;
  const int32_t hi = p->pad_left + p->in_w < pw ? p->pad_left + p->in_w : pw;
  for (int32_t r = 0; r < p->plane_h; ++r, plane += pw) {
    const int32_t iy = r - p->pad_top;
    if (iy < 0 || iy >= p->in_h) {
      for (int32_t q = 0; q < pw; ++q) plane[q] = zero_point;
      continue;
    }
    int32_t q = 0;
    for (; q < lo; ++q) plane[q] = zero_point;
    if (hi > lo) {
      const int8_t *x = image + (iy * p->in_w + (lo - p->pad_left)) * n + c;
      for (; q < hi; ++q, x += n) plane[q] = *x;
    }
    for (; q < pw; ++q) plane[q] = zero_point;
  }
}

mote_status mote_depthwise_conv_planar_s8(const mote_depthwise_conv_planar_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch) {
  const size_t row_bytes = (size_t)p->out_w * sizeof(int32_t);
  if (scratch.size < row_bytes + (size_t)p->plane_h * (size_t)p->plane_w) return MOTE_ERROR;
  int32_t *acc = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  int8_t *plane = scratch.buf + row_bytes;
  /* Locals, not p->...: stores through acc and out may alias *p as far as the compiler knows. */
  const int32_t n = p->in_ch, pw = p->plane_w, sh = p->stride_h, sw = p->stride_w;
  const int32_t out_h = p->out_h, out_w = p->out_w, lo = p->act_min, hi = p->act_max;
  const int32_t offset = p->output_offset;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * n;
    for (int32_t c = 0; c < n; ++c) {
      load_plane(p, image, c, plane);
      const int8_t *k = p->weights + 9 * c;
      const int32_t k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5], k6 = k[6], k7 = k[7];
      const int32_t k8 = k[8], bias = p->folded_bias[c];
      const mote_output_channel stage =
          mote_output_channel_at(p->multiplier, p->left_mul, p->right_mul, &p->shortcuts, offset, lo, hi, c);
      int8_t *out = output + b * out_h * out_w * n + c;
      for (int32_t oy = 0; oy < out_h; ++oy) {
        /* Each window's nine bytes are loaded afresh: keeping the columns neighbours share in
         * registers as well would take more registers than the core has beside the nine weights. */
        const int8_t *r0 = plane + oy * sh * pw, *r1 = r0 + pw, *r2 = r1 + pw;
        for (int32_t ox = 0; ox < out_w; ++ox, r0 += sw, r1 += sw, r2 += sw) {
          acc[ox] = bias + r0[0] * k0 + r0[1] * k1 + r0[2] * k2 + r1[0] * k3 + r1[1] * k4 + r1[2] * k5 +
                    r2[0] * k6 + r2[1] * k7 + r2[2] * k8;
        }
        for (int32_t ox = 0; ox < out_w; ++ox, out += n) {
          *out = mote_output_of(acc[ox], stage);
        }
      }
    }
  }
  return MOTE_OK;
}
