#include "mote_conv_1x1_s8.h"

#include "mote_fixedpoint.h"

static int8_t finish(const mote_conv_1x1_params *p, int32_t acc, int32_t oc) {
  acc = mote_requantize(acc, p->multiplier[oc], p->shift[oc]) + p->output_offset;
  return (int8_t)mote_clamp(acc, p->act_min, p->act_max);
}

/* Two pixels by two output channels: each loaded input byte feeds two products, each weight two. */
static void block_2x2(const mote_conv_1x1_params *p, const int8_t *in0, const int8_t *in1, int32_t oc,
                      int8_t *out0, int8_t *out1) {
  const int8_t *w0 = p->weights + oc * p->in_ch;
  const int8_t *w1 = w0 + p->in_ch;
  /* Each |acc| <= |bias| + in_ch * 128 * 128 < 2^31 (checked when the bias was folded). */
  int32_t a00 = p->bias[oc], a01 = p->bias[oc + 1];
  int32_t a10 = a00, a11 = a01;
  for (int32_t ic = 0; ic < p->in_ch; ++ic) {
    const int32_t x0 = in0[ic], x1 = in1[ic];
    const int32_t k0 = w0[ic], k1 = w1[ic];
    a00 += x0 * k0;
    a01 += x0 * k1;
    a10 += x1 * k0;
    a11 += x1 * k1;
  }
  out0[oc] = finish(p, a00, oc);
  out0[oc + 1] = finish(p, a01, oc + 1);
  out1[oc] = finish(p, a10, oc);
  out1[oc + 1] = finish(p, a11, oc + 1);
}

/* One pixel by one output channel: the remainders. */
static void block_1x1(const mote_conv_1x1_params *p, const int8_t *in, int32_t oc, int8_t *out) {
  const int8_t *w = p->weights + oc * p->in_ch;
  int32_t acc = p->bias[oc]; /* |acc| <= |bias| + in_ch * 128 * 128 < 2^31 */
  for (int32_t ic = 0; ic < p->in_ch; ++ic) acc += (int32_t)in[ic] * w[ic];
  out[oc] = finish(p, acc, oc);
}

mote_status mote_conv_1x1_s8(const mote_conv_1x1_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch) {
  (void)scratch;
  const int32_t even_ch = p->out_ch & ~1;
  int32_t px = 0;
  for (; px + 1 < p->pixels; px += 2) {
    const int8_t *in0 = input + px * p->in_ch;
    int8_t *out0 = output + px * p->out_ch;
    for (int32_t oc = 0; oc < even_ch; oc += 2) block_2x2(p, in0, in0 + p->in_ch, oc, out0, out0 + p->out_ch);
    if (even_ch < p->out_ch) {
      block_1x1(p, in0, even_ch, out0);
      block_1x1(p, in0 + p->in_ch, even_ch, out0 + p->out_ch);
    }
  }
  if (px < p->pixels) {
    for (int32_t oc = 0; oc < p->out_ch; ++oc) block_1x1(p, input + px * p->in_ch, oc, output + px * p->out_ch);
  }
  return MOTE_OK;
}
