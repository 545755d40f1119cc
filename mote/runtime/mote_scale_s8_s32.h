#ifndef MOTE_SCALE_S8_S32_H
#define MOTE_SCALE_S8_S32_H

#include "mote_types.h"

typedef struct {
  int32_t size;
  int32_t input_offset; /* -input zero point */
  int32_t factor;       /* 256 * |factor| fits int32 */
} mote_scale_s8_s32_params;

/* out = (x + input_offset) * factor, int8 in, int32 out (integer-dialect TrueIntegerDiv). Needs no scratch. */
mote_status mote_scale_s8_s32(const mote_scale_s8_s32_params *p, const int8_t *input, int32_t *output,
                              mote_scratch scratch);

#endif
