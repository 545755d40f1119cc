#ifndef MOTE_INONORM_S8_H
#define MOTE_INONORM_S8_H

#include "mote_types.h"

typedef struct {
  int32_t size;
  int32_t mul;
  int32_t log2d;         /* 0..31 */
  int32_t weight_period; /* element i uses weight[i % weight_period] */
  int32_t bias_period;   /* and bias[i % bias_period] */
  const int8_t *weight;
  const int32_t *bias;
} mote_inonorm_params;

/* Integer "no norm" (integer-dialect iNoNorm): out = int8(((x * weight + bias) * mul) >> log2d) in int32, the
 * cast wrapping; the compiler checks that nothing leaves int32. May run in place. Needs no scratch. */
mote_status mote_inonorm_s8(const mote_inonorm_params *p, const int8_t *input, int8_t *output,
                            mote_scratch scratch);

#endif
