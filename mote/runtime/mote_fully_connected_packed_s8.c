#include "mote_fully_connected_packed_s8.h"

#include "mote_output_stage.h"
#include "mote_packed_dot_s8.h"

mote_status mote_fully_connected_packed_s8(const mote_fully_connected_packed_params *p, const int8_t *input,
                                           int8_t *output, mote_scratch scratch) {
  if (p->bits != 4 && p->bits != 2) return MOTE_ERROR;
  const int32_t n = p->accum_depth, half = 1 << (p->bits - 1), per_word = 32 / p->bits;
  const int32_t words = p->row_words * (per_word / 2);
  if ((p->bits == 4 && p->row_words % 2) || p->row_words * per_word < n ||
      scratch.size < (size_t)words * sizeof(uint32_t)) {
    return MOTE_ERROR;
  }
  uint32_t *xs = (uint32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    const int32_t sum = mote_packed_input_words(x, n, per_word / 2, words, xs);
    /* |acc| <= |bias| + n * 128 * (|filter_offset| + half) + n * 128 * (2 * half - 1): within the bound above. */
    const int32_t base = (p->filter_offset - half) * sum;
    int8_t *out = output + b * p->out_depth;
    int32_t o = 0;
    for (; o + 4 <= p->out_depth; o += 4) {
      int32_t dot[4];
      mote_packed_dot4(p->weights + o * p->row_words, p->row_words, p->bits, xs, dot);
      for (int32_t r = 0; r < 4; ++r) out[o + r] = mote_conv_output(&s, p->bias[o + r] + base + dot[r], o + r);
    }
    for (; o < p->out_depth; ++o) {
      const int32_t dot = mote_packed_dot1(p->weights + o * p->row_words, p->row_words, p->bits, xs);
      out[o] = mote_conv_output(&s, p->bias[o] + base + dot, o);
    }
  }
  return MOTE_OK;
}
