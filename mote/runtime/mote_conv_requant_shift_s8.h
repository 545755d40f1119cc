#ifndef MOTE_CONV_REQUANT_SHIFT_S8_H
#define MOTE_CONV_REQUANT_SHIFT_S8_H

#include "mote_conv_blocked_s8.h"
#include "mote_types.h"

/* An integer-dialect convolution and its RequantShift as one layer (mote.ops.conv2d_rqs): the
 * register-blocked convolution with an output-stage table of RequantShift rows
 * (mote_output_requant_shift in mote_output_stage.h). Params, scratch and result as mote_conv_blocked_s8. */
mote_status mote_conv_requant_shift_s8(const mote_conv_blocked_params *p, const int8_t *input, int8_t *output,
                                       mote_scratch scratch);

#endif
