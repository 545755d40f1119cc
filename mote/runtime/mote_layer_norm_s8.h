#ifndef MOTE_LAYER_NORM_S8_H
#define MOTE_LAYER_NORM_S8_H

#include "mote_types.h"

/* LayerNorm or RMSNorm over rows of `depth` int8 values in integers only (mote/ops/layer_norm_int.py states the
 * arithmetic and its error): per row the sums S1, S2 of the centered values, an integer square root and one
 * division; per value two 32 x 32 -> 64-bit products, each rounded by a shift. */
typedef struct {
  int32_t rows, depth; /* 1 <= depth <= 32768 */
  int32_t rms;         /* 1: RMSNorm (no mean subtracted) */
  int32_t input_zero_point, output_zero_point;
  uint32_t eps_hi, eps_lo;  /* round(depth^2 * eps / s_x^2 * 2^16), >= 1, as two words */
  const int32_t *g_mul;     /* [depth]: gamma / s_y * 2^-7 as g_mul / 2^g_shift */
  const int32_t *g_shift;   /* [depth], 0..62 */
  const int64_t *bias;      /* [depth]: round(beta / s_y * 2^16) */
} mote_layer_norm_s8_params;

/* Needs no scratch. */
mote_status mote_layer_norm_s8(const mote_layer_norm_s8_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch);

#endif
