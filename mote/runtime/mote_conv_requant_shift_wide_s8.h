#ifndef MOTE_CONV_REQUANT_SHIFT_WIDE_S8_H
#define MOTE_CONV_REQUANT_SHIFT_WIDE_S8_H

#include "mote_conv_blocked_wide_s8.h"
#include "mote_types.h"

/* mote_conv_requant_shift_s8 for weights that reach -128: the split-weights blocked convolution
 * (mote_conv_blocked_wide_s8) with an output-stage table of RequantShift rows. Params, scratch and result
 * as mote_conv_blocked_wide_s8. */
mote_status mote_conv_requant_shift_wide_s8(const mote_conv_offset_blocked_params *p, const int8_t *input,
                                            int8_t *output, mote_scratch scratch);

#endif
