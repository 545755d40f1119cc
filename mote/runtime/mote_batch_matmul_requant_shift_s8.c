#include "mote_output_rest_any_s8.h"

/* The output stage of a table that may hold RequantShift rows, their path out of line. */
static inline int8_t output_of_requant_shift(int32_t acc, const mote_output_channel *s) {
  return mote_output_of_any(acc, s, mote_output_rest_any_s8);
}

#define MOTE_BMM_OUTPUT output_of_requant_shift
#define MOTE_BMM_FUNCTION batch_matmul_requant_shift
#include "mote_batch_matmul_blocked_body.h"

#include "mote_batch_matmul_requant_shift_s8.h"

mote_status mote_batch_matmul_requant_shift_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                               const int8_t *b, int8_t *output, mote_scratch scratch) {
  return batch_matmul_requant_shift(p, a, b, output, scratch);
}
