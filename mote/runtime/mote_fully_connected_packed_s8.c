#include "mote_fully_connected_packed_s8.h"

#include "mote_output_stage.h"

/* sum_d u[d] * x[d] over one packed row of int4 values (u = field ^ 8, in [0, 15]): two values a byte. */
static int32_t dot_int4(const uint8_t *w, const int8_t *x, int32_t n) {
  int32_t acc = 0, d = 0;
  for (; d + 2 <= n; d += 2) {
    const int32_t b = *w++ ^ 0x88;
    acc += (b & 15) * x[d] + (b >> 4) * x[d + 1];
  }
  if (d < n) acc += ((*w ^ 0x08) & 15) * x[d];
  return acc;
}

/* The same for int2 values (u = field ^ 2, in [0, 3]): four values a byte. */
static int32_t dot_int2(const uint8_t *w, const int8_t *x, int32_t n) {
  int32_t acc = 0, d = 0;
  for (; d + 4 <= n; d += 4) {
    const int32_t b = *w++ ^ 0xAA;
    acc += (b & 3) * x[d] + ((b >> 2) & 3) * x[d + 1] + ((b >> 4) & 3) * x[d + 2] + (b >> 6) * x[d + 3];
  }
  for (int32_t shift = 0; d < n; ++d, shift += 2) acc += (((*w >> shift) ^ 2) & 3) * x[d];
  return acc;
}

mote_status mote_fully_connected_packed_s8(const mote_fully_connected_packed_params *p, const int8_t *input,
                                           int8_t *output, mote_scratch scratch) {
  (void)scratch;
  if (p->bits != 4 && p->bits != 2) return MOTE_ERROR;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  const int32_t n = p->accum_depth, half = 1 << (p->bits - 1);
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    int32_t sum = 0;
    for (int32_t d = 0; d < n; ++d) sum += x[d];
    /* |acc| <= |bias| + n * 128 * (|filter_offset| + half) + n * 128 * (2 * half - 1): within the bound above. */
    const int32_t base = (p->filter_offset - half) * sum;
    for (int32_t o = 0; o < p->out_depth; ++o) {
      const uint8_t *row = p->weights + o * p->row_bytes;
      const int32_t dot = p->bits == 4 ? dot_int4(row, x, n) : dot_int2(row, x, n);
      output[b * p->out_depth + o] = mote_conv_output(&s, p->bias[o] + base + dot, o);
    }
  }
  return MOTE_OK;
}
