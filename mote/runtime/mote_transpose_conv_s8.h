#ifndef MOTE_TRANSPOSE_CONV_S8_H
#define MOTE_TRANSPOSE_CONV_S8_H

#include "mote_transpose_conv_int.h"

/* Bit-exact with TFLite Micro's int8 TransposeConv. Scratch: an int32 per output element. */
mote_status mote_transpose_conv_s8(const mote_transpose_conv_int_params *p, const int8_t *input, int8_t *output,
                                   mote_scratch scratch);

#endif
