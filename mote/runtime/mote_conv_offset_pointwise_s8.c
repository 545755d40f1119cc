#include "mote_conv_offset_pointwise_s8.h"

#include "mote_conv_pointwise_blocks_s8.h"
#include "mote_dot_pairs_terms_single_4x4_s8.h"

/* The inner loop with terms: each accumulator starts from its channel's bias plus the pixel's sum of taps
 * times the channel's sum scale. */
static void sets(const mote_conv_pointwise_params *p, const int32_t *words, const int32_t *sums, int32_t q,
                 int32_t n, const mote_block_out *how, int32_t blocks) {
  mote_dot_pairs_terms_single_4x4_s8(words, p->weights + 4 * q * p->pairs, p->pairs / 2, p->runs + p->run_start[q],
                                     p->bias + 8 * q, n, how, sums, blocks);
}

mote_status mote_conv_offset_pointwise_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                          mote_scratch scratch) {
  return p->terms ? mote_conv_pointwise_blocks_s8(p, input, output, scratch, sets) : MOTE_ERROR;
}
