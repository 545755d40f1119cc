#ifndef MOTE_OUTPUT_REST_ANY_S8_H
#define MOTE_OUTPUT_REST_ANY_S8_H

#include "mote_output_stage.h"

/* mote_output_rest_s8 for a table that may hold RequantShift rows (mote_output_stage.h): the `rest` of the
 * integer dialect's fused layers. */
int8_t mote_output_rest_any_s8(int32_t acc, const int32_t *row, int32_t offset, int32_t lo, int32_t hi);

#endif
