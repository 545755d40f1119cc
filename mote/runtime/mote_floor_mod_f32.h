#ifndef MOTE_FLOOR_MOD_F32_H
#define MOTE_FLOOR_MOD_F32_H

#include "mote_binary_f32.h"

/* float32 FLOOR_MOD as TFLite Micro: m = fmod(a, b); m + b where m is nonzero and its sign differs from b's,
 * else m. Broadcast. Needs no scratch. */
mote_status mote_floor_mod_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                               mote_scratch scratch);

#endif
