/* The body of mote_batch_matmul_pairs_s8 and mote_batch_matmul_pairs_single_s8 (mote_batch_matmul_pairs_s8.h):
 * the file that includes it defines MOTE_BMM_PAIRS_SINGLE (1: one-multiply rows) and MOTE_BMM_PAIRS_FUNCTION
 * (the name of the static function it then calls). */
#ifndef MOTE_BATCH_MATMUL_PAIRS_BODY_H
#define MOTE_BATCH_MATMUL_PAIRS_BODY_H

#include "mote_batch_matmul_pairs_s8.h"
#include "mote_conv_common.h"
#include "mote_dot_matmul_terms_4x4_s8.h"
#include "mote_dot_matmul_terms_single_4x4_s8.h"

/* `lines` lines of an operand (line i from src + i * line_step, its element k at k * depth_step) as pair
 * words, four lines interleaved: words[(i / 4) * 4 * pairs + 4 q + i % 4] = x[2q] * 2^16 + x[2q + 1] (A's
 * rows, `first_high`), else x[2q] + x[2q + 1] * 2^16 (B's columns); the pairs past the depth zero. sums[i]:
 * the line's sum, from the sum of its words: their low halves add up to the sum of one element of each pair
 * (at most 128 * pairs < 2^15 in magnitude), the rest is the other elements' sum times 2^16. */
static void pack_lines(const int8_t *src, int32_t lines, int32_t line_step, int32_t depth_step, int32_t depth,
                       int32_t pairs, int first_high, int32_t *words, int32_t *sums) {
  const int32_t even = depth & ~1, ds2 = 2 * depth_step;
  const int32_t s0 = first_high ? 16 : 0, s1 = first_high ? 0 : 16;
  for (int32_t i = 0; i < lines; ++i) {
    int32_t *w = words + (i >> 2) * 4 * pairs + (i & 3);
    int32_t *end = w + 4 * pairs;
    const int8_t *x = src + i * line_step;
    uint32_t total = 0;
    for (const int32_t *stop = w + 2 * even; w != stop; x += ds2, w += 4) {
      const uint32_t word = ((uint32_t)(int32_t)x[0] << s0) + ((uint32_t)(int32_t)x[depth_step] << s1);
      *w = (int32_t)word;
      total += word;
    }
    if (depth & 1) {
      const uint32_t word = (uint32_t)(int32_t)x[0] << s0;
      *w = (int32_t)word;
      total += word;
      w += 4;
    }
    for (; w != end; w += 4) *w = 0;
    const int32_t low = (int16_t)(uint16_t)(total & 0xFFFFu);
    sums[i] = low + ((int32_t)(total - (uint32_t)low) >> 16);
  }
}

static mote_status MOTE_BMM_PAIRS_FUNCTION(const mote_batch_matmul_pairs_params *p, const int8_t *a,
                                           const int8_t *b, int8_t *output, mote_scratch scratch) {
  const int32_t rows = p->rows, cols = p->cols, pairs = 2 * p->groups;
  const size_t words = (size_t)(rows + cols) * (size_t)(pairs + 1) + 2 * (size_t)cols;
  if ((rows & 3) || (cols & 3) || rows <= 0 || cols <= 0 || p->groups != (p->depth + 3) / 4 ||
      scratch.size < 4 * words) {
    return MOTE_ERROR;
  }
  int32_t *x = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  int32_t *row_sums = x + rows * pairs;
  int32_t *w = row_sums + rows;
  int32_t *col_sums = w + cols * pairs;
  int32_t *bias = col_sums + cols; /* [cols / 4][8]: four starts, four scales */
  const uint32_t za = (uint32_t)p->a_zero_point;
#if MOTE_BMM_PAIRS_SINGLE
  mote_block_out how = {output, p->output_stage, cols, p->output_offset, p->act_min, p->act_max, NULL};
#else
  mote_block_out how = {output, p->output_stage, cols, p->output_offset, p->act_min, p->act_max,
                        mote_output_rest_s8};
#endif
  for (int32_t batch = 0; batch < p->batches; ++batch, output += rows * cols) {
    pack_lines(a + p->a_offsets[batch], rows, p->a_row_step, p->a_depth_step, p->depth, pairs, 1, x, row_sums);
    pack_lines(b + p->b_offsets[batch], cols, p->b_col_step, p->b_depth_step, p->depth, pairs, 0, w, col_sums);
    for (int32_t c = 0; c < cols; ++c) {
      int32_t *set = bias + 8 * (c >> 2) + (c & 3);
      set[0] = (int32_t)((uint32_t)p->bias_constant - za * (uint32_t)col_sums[c]);
      set[4] = -p->b_zero_point;
    }
#if MOTE_BMM_PAIRS_SINGLE
    how.out = output;
    mote_dot_matmul_terms_single_4x4_s8(x, w, p->groups, p->runs, bias, cols / 4, &how, row_sums, rows / 4);
#else
    for (int32_t r = 0; r < rows; r += 4) {
      how.out = output + r * cols;
      mote_dot_matmul_terms_4x4_s8(x + r * pairs, w, p->groups, p->runs, bias, cols / 4, &how, row_sums + r);
    }
#endif
  }
  return MOTE_OK;
}

#endif
