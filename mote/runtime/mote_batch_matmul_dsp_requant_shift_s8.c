#include "mote_batch_matmul_dsp_requant_shift_s8.h"

#include "mote_output_requant_shift_s8.h"

#define MOTE_BMM_STAGE mote_output_channel
#define MOTE_BMM_STAGE_OF(p) mote_output_channel_at((p)->output_stage, 0, (p)->output_offset, (p)->act_min, (p)->act_max)
#define MOTE_BMM_OUTPUT(acc, s, full) ((void)(full), mote_output_of_requant_shift((acc), (s)))
#define MOTE_BMM_FULL(p) 0
#define MOTE_BMM_FUNCTION batch_matmul_dsp_requant_shift
#include "mote_batch_matmul_dsp_body.h"

mote_status mote_batch_matmul_dsp_requant_shift_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                                   const int8_t *b, int8_t *output, mote_scratch scratch) {
  return batch_matmul_dsp_requant_shift(p, a, b, output, scratch);
}
