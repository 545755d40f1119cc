#ifndef MOTE_REQUANTIZE_TABLE_S8_H
#define MOTE_REQUANTIZE_TABLE_S8_H

#include "mote_lut_s8.h"

/* int8 -> int8 QUANTIZE by a table of the requantization's 256 results (mote_lut_s8): the quantize table's
 * record of its own. May run in place. Needs no scratch. */
mote_status mote_requantize_table_s8(const mote_lut_s8_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch);

#endif
