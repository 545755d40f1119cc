#ifndef MOTE_PAD_S8_H
#define MOTE_PAD_S8_H

#include "mote_types.h"

#define MOTE_PAD_DIMS 5

/* Constant padding of an int8 tensor, both shapes given as MOTE_PAD_DIMS dimensions (leading 1s).
 * Input element (i0..i4) lands at output (i0 + before[0], ..., i4 + before[4]); every other output
 * element is pad_value. Bytes are copied unchanged. */
typedef struct {
  const int32_t *in_shape;  /* [MOTE_PAD_DIMS] */
  const int32_t *out_shape; /* [MOTE_PAD_DIMS], out_shape[d] >= in_shape[d] + before[d] */
  const int32_t *before;    /* [MOTE_PAD_DIMS], >= 0 */
  int32_t pad_value;        /* the output zero point */
} mote_pad_params;

/* Bit-exact with TFLite Micro's int8 PAD. Needs no scratch. */
mote_status mote_pad_s8(const mote_pad_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif
