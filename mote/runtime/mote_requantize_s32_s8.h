#ifndef MOTE_REQUANTIZE_S32_S8_H
#define MOTE_REQUANTIZE_S32_S8_H

#include "mote_output_stage.h"
#include "mote_types.h"

/* Element steps between neighbours along each axis of a [rows, cols, channels] view of a tensor
 * stored in any layout (channels last, channel planes, ...). */
typedef struct {
  int32_t channel, row, col;
} mote_requantize_s32_steps;

/* Rows and columns of zero-point border around each channel of the output. */
typedef struct {
  int32_t top, bottom, left, right;
} mote_requantize_s32_border;

typedef struct {
  int32_t out_h, out_w, channels; /* the requantized positions, inside any border */
  mote_requantize_s32_steps in;   /* between kept positions: a stride-th position's steps */
  mote_requantize_s32_steps out;  /* of the output tensor, border included */
  mote_requantize_s32_border border;
  int32_t output_offset, act_min, act_max;
  const int32_t *output_stage; /* [channels][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
} mote_requantize_s32_params;

/* int32 accumulators -> int8: requantize per channel, add the output zero point, clamp. The CPU's
 * half of an op an accelerator ran up to its accumulator: it reads the accelerator's layout, keeps
 * every stride-th position (when the accelerator has no stride) and writes the layout the output's
 * readers want, with the zero-point border the next job's padding needs (the output zero point is
 * the real value 0). */
mote_status mote_requantize_s32_s8(const mote_requantize_s32_params *p, const int32_t *input, int8_t *output,
                                   mote_scratch scratch);

#endif
