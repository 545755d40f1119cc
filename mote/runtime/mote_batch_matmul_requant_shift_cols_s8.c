#include "mote_output_requant_shift_s8.h"

#define MOTE_BMM_OUTPUT mote_output_of_requant_shift
#define MOTE_BMM_FUNCTION batch_matmul_requant_shift_cols
#define MOTE_BMM_PER_COLUMN 1
#include "mote_batch_matmul_blocked_body.h"

#include "mote_batch_matmul_requant_shift_cols_s8.h"

mote_status mote_batch_matmul_requant_shift_cols_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                                    const int8_t *b, int8_t *output, mote_scratch scratch) {
  return batch_matmul_requant_shift_cols(p, a, b, output, scratch);
}
