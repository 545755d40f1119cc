#ifndef MOTE_SUB_S8_H
#define MOTE_SUB_S8_H

#include "mote_add_s8.h"

/* output = a - b, bit-exact with TFLite Micro's int8 SUB; parameters as for mote_add_s8 (only the
 * multipliers differ, computed by the compiler). Needs no scratch. */
mote_status mote_sub_s8(const mote_add_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch);

#endif
