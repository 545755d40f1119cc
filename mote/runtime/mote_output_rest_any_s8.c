#include "mote_output_rest_any_s8.h"

#include "mote_output_requant_shift_s8.h"

int8_t mote_output_rest_any_s8(int32_t acc, const int32_t *row, int32_t offset, int32_t lo, int32_t hi) {
  const mote_output_channel s = mote_output_channel_at(row, 0, offset, lo, hi);
  if (row[1] >= MOTE_OUTPUT_REQUANT_SHIFT) return mote_output_requant_shift_s8(acc, &s);
  return mote_output_rest(acc, &s);
}
