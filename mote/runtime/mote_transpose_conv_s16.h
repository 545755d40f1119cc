#ifndef MOTE_TRANSPOSE_CONV_S16_H
#define MOTE_TRANSPOSE_CONV_S16_H

#include "mote_transpose_conv_int.h"

/* Bit-exact with TFLite Micro's 16x8 TransposeConv. Scratch: an int64 per output element. */
mote_status mote_transpose_conv_s16(const mote_transpose_conv_int_params *p, const int16_t *input, int16_t *output,
                                    mote_scratch scratch);

#endif
