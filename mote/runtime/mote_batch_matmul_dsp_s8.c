#include "mote_batch_matmul_dsp_s8.h"

#include "mote_dsp.h"

/* TFLite's requantization as mote_dsp.h's 32-bit output stage: one row for the tensor. */
typedef struct {
  const int32_t *row;
  int32_t offset, lo, hi;
} dsp_stage;

#define MOTE_BMM_STAGE dsp_stage
#define MOTE_BMM_STAGE_OF(p) ((dsp_stage){(p)->output_stage, (p)->output_offset, (p)->act_min, (p)->act_max})
#define MOTE_BMM_OUTPUT(acc, s, full) mote_dsp_output((acc), (s)->row, (s)->offset, (s)->lo, (s)->hi, (full))
#define MOTE_BMM_FULL(p) ((p)->act_min == -128 && (p)->act_max == 127)
#define MOTE_BMM_FUNCTION batch_matmul_dsp
#include "mote_batch_matmul_dsp_body.h"

mote_status mote_batch_matmul_dsp_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a, const int8_t *b,
                                     int8_t *output, mote_scratch scratch) {
  return batch_matmul_dsp(p, a, b, output, scratch);
}
