#include "mote_fully_connected_s8.h"

#include "mote_fixedpoint.h"

static int8_t finish(const mote_fully_connected_params *p, int32_t acc, int32_t o) {
  acc = mote_requantize(acc, p->multiplier[o], p->shift[o]) + p->output_offset;
  return (int8_t)mote_clamp(acc, p->act_min, p->act_max);
}

/* filter_offset * sum(x): the asymmetric-weights term, zero for symmetric weights. */
static int32_t filter_offset_term(const mote_fully_connected_params *p, const int8_t *x) {
  if (p->filter_offset == 0) return 0;
  int32_t sum = 0; /* |sum| <= accum_depth * 128 */
  for (int32_t d = 0; d < p->accum_depth; ++d) sum += x[d];
  return sum * p->filter_offset;
}

mote_status mote_fully_connected_s8(const mote_fully_connected_params *p, const int8_t *input, int8_t *output,
                                    mote_scratch scratch) {
  (void)scratch;
  const int32_t depth = p->accum_depth;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * depth;
    int8_t *out = output + b * p->out_depth;
    const int32_t base = filter_offset_term(p, x);
    int32_t o = 0;
    /* Four output rows at a time: each input byte is loaded once for four products. */
    for (; o + 3 < p->out_depth; o += 4) {
      const int8_t *w0 = p->weights + o * depth;
      const int8_t *w1 = w0 + depth;
      const int8_t *w2 = w1 + depth;
      const int8_t *w3 = w2 + depth;
      /* Each |acc| <= |bias| + depth * 128 * (128 + |filter_offset|) < 2^31 (checked at compile time). */
      int32_t a0 = p->bias[o] + base, a1 = p->bias[o + 1] + base;
      int32_t a2 = p->bias[o + 2] + base, a3 = p->bias[o + 3] + base;
      for (int32_t d = 0; d < depth; ++d) {
        const int32_t v = x[d];
        a0 += v * w0[d];
        a1 += v * w1[d];
        a2 += v * w2[d];
        a3 += v * w3[d];
      }
      out[o] = finish(p, a0, o);
      out[o + 1] = finish(p, a1, o + 1);
      out[o + 2] = finish(p, a2, o + 2);
      out[o + 3] = finish(p, a3, o + 3);
    }
    for (; o < p->out_depth; ++o) {
      const int8_t *w = p->weights + o * depth;
      int32_t acc = p->bias[o] + base; /* bounded as above */
      for (int32_t d = 0; d < depth; ++d) acc += (int32_t)x[d] * w[d];
      out[o] = finish(p, acc, o);
    }
  }
  return MOTE_OK;
}
