#include "mote_output_stage.h"

int8_t mote_output_rest_s8(int32_t acc, const int32_t *row, int32_t offset, int32_t lo, int32_t hi) {
  const mote_output_channel s = mote_output_channel_at(row, 0, offset, lo, hi);
  return mote_output_rest(acc, &s);
}
