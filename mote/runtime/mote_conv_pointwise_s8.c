#include "mote_conv_pointwise_s8.h"

#include "mote_conv_pointwise_blocks_s8.h"
#include "mote_dot_pairs_single_4x4_s8.h"

/* The inner loop without terms: each accumulator starts from its channel's bias. */
static void sets(const mote_conv_pointwise_params *p, const int32_t *words, const int32_t *sums, int32_t q,
                 int32_t n, const mote_block_out *how, int32_t blocks) {
  (void)sums;
  mote_dot_pairs_single_4x4_s8(words, p->weights + 4 * q * p->pairs, p->pairs / 2, p->runs + p->run_start[q],
                               p->bias + 4 * q, n, how, blocks);
}

mote_status mote_conv_pointwise_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                   mote_scratch scratch) {
  return p->terms ? MOTE_ERROR : mote_conv_pointwise_blocks_s8(p, input, output, scratch, sets);
}
