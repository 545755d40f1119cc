/* The int8 batch matmul of two activations for cores with the DSP extension (mote_batch_matmul_dsp_s8.h),
 * written once for its two output stages: the file that includes this header defines MOTE_BMM_OUTPUT
 * (mote_output_of for TFLite's requantization, mote_output_of_requant_shift for a RequantShift row) and
 * MOTE_BMM_FUNCTION (the name of the static function it then calls). */
#ifndef MOTE_BATCH_MATMUL_DSP_BODY_H
#define MOTE_BATCH_MATMUL_DSP_BODY_H

#include "mote_batch_matmul_dsp_s8.h"
#include "mote_dsp.h"
#include "mote_output_stage.h"

/* Four operand values less the zero point as the two words of mote_dsp.h's layout: (v0, v2), (v1, v3). */
static inline void dsp_pair_words(int32_t v0, int32_t v1, int32_t v2, int32_t v3, uint32_t *dst) {
  dst[0] = ((uint32_t)v0 & 0xFFFFu) | ((uint32_t)v2 << 16);
  dst[1] = ((uint32_t)v1 & 0xFFFFu) | ((uint32_t)v3 << 16);
}

/* `n` (1 or 2 ... any) vectors of `depth` int8 values, vector i's value k at src[i * step + k * depth_step],
 * less `zero_point`, widened into int16 pair words two vectors interleaved: [ceil(n / 2)][groups][2][2]
 * (mote_dsp_dot_2x2's operands). The values past `depth` and the vector past an odd n are zeros. Each value
 * less an int8 zero point lies in [-255, 255]: an int16. */
static void dsp_widen_vectors(const int8_t *src, int32_t n, int32_t step, int32_t depth_step, int32_t depth,
                              int32_t groups, int32_t zero_point, uint32_t *dst) {
  const int32_t full = depth / 4, rest = depth - 4 * full;
  const uint32_t zz = ((uint32_t)zero_point & 0xFFFFu) * 0x10001u; /* the zero point in both halves */
  for (int32_t i = 0; i < ((n + 1) & ~1); ++i) {
    uint32_t *w = dst + (i / 2) * 4 * groups + 2 * (i % 2);
    if (i >= n) {
      for (int32_t g = 0; g < groups; ++g) w[4 * g] = w[4 * g + 1] = 0;
      continue;
    }
    const int8_t *x = src + i * step;
    int32_t g = 0;
    if (depth_step == 1) {
      for (; g < full; ++g, x += 4, w += 4) {
        const uint32_t word = mote_load4(x);
        w[0] = mote_sub16(mote_widen_even(word), zz);
        w[1] = mote_sub16(mote_widen_odd(word), zz);
      }
    } else {
      const int32_t s = depth_step;
      for (; g < full; ++g, x += 4 * s, w += 4) {
        dsp_pair_words(x[0] - zero_point, x[s] - zero_point, x[2 * s] - zero_point, x[3 * s] - zero_point, w);
      }
    }
    if (rest) {
      int32_t v[4] = {0, 0, 0, 0};
      for (int32_t k = 0; k < rest; ++k) v[k] = x[k * depth_step] - zero_point;
      dsp_pair_words(v[0], v[1], v[2], v[3], w);
    }
  }
}

static mote_status MOTE_BMM_FUNCTION(const mote_batch_matmul_blocked_params *p, const int8_t *a, const int8_t *b,
                                     int8_t *output, mote_scratch scratch) {
  const int32_t rows = p->rows, cols = p->cols, depth = p->depth, groups = (depth + 3) / 4;
  const int32_t rows2 = (rows + 1) & ~1;
  if (rows <= 0 || cols <= 0 || depth <= 0 ||
      scratch.size < (size_t)MOTE_BATCH_MATMUL_DSP_SCRATCH(rows, depth)) {
    return MOTE_ERROR;
  }
  uint32_t *a_words = (uint32_t *)(void *)(((uintptr_t)scratch.buf + 7u) & ~(uintptr_t)7u); /* [rows2 / 2][groups][2][2] */
  uint32_t *b_words = a_words + 2 * groups * rows2;                                        /* [groups][2][2] */
  const mote_output_channel s = mote_output_channel_at(p->output_stage, 0, p->output_offset, p->act_min,
                                                       p->act_max);
  for (int32_t batch = 0; batch < p->batches; ++batch, output += rows * cols) {
    dsp_widen_vectors(a + p->a_offsets[batch], rows, p->a_row_step, p->a_depth_step, depth, groups,
                      p->a_zero_point, a_words);
    const int8_t *bb = b + p->b_offsets[batch];
    for (int32_t c = 0; c < cols; c += 2) {
      const int32_t two = cols - c >= 2;
      dsp_widen_vectors(bb + c * p->b_col_step, two ? 2 : 1, p->b_col_step, p->b_depth_step, depth, groups,
                        p->b_zero_point, b_words);
      const uint32_t *x = a_words;
      int8_t *out = output + c;
      for (int32_t r = 0; r < rows; r += 2, x += 4 * groups, out += 2 * cols) {
        int32_t acc[4] = {0, 0, 0, 0}; /* (r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1) */
        mote_dsp_dot_2x2(x, b_words, groups, acc);
        out[0] = MOTE_BMM_OUTPUT(acc[0], &s);
        if (two) out[1] = MOTE_BMM_OUTPUT(acc[1], &s);
        if (r + 1 < rows) {
          out[cols] = MOTE_BMM_OUTPUT(acc[2], &s);
          if (two) out[cols + 1] = MOTE_BMM_OUTPUT(acc[3], &s);
        }
      }
    }
  }
  return MOTE_OK;
}

#endif
