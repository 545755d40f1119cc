#include "mote_svdf_s8_s16.h"

#include "mote_svdf_s8.h"

mote_status mote_svdf_s8_s16(const mote_svdf_s8_params *p, const int8_t *input, int16_t *state, int8_t *output,
                             mote_scratch scratch) {
  (void)scratch;
  mote_svdf_s8(p, input, state, output, 1);
  return MOTE_OK;
}
