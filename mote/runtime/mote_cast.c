#include "mote_cast.h"

/* One element, read as an integer (`whole`) or a float. */
typedef struct {
  int is_float;
  float real;
  int64_t whole;
} mote_value;

static mote_value mote_load(int32_t type, const void *data, int32_t i) {
  mote_value v = {0, 0.0f, 0};
  switch (type) {
    case MOTE_ELEMENT_F32: v.is_float = 1; v.real = ((const float *)data)[i]; break;
    case MOTE_ELEMENT_S8: v.whole = ((const int8_t *)data)[i]; break;
    case MOTE_ELEMENT_S16: v.whole = ((const int16_t *)data)[i]; break;
    case MOTE_ELEMENT_S32: v.whole = ((const int32_t *)data)[i]; break;
    case MOTE_ELEMENT_S64: v.whole = ((const int64_t *)data)[i]; break;
    default: v.whole = ((const bool *)data)[i]; break;
  }
  return v;
}

/* Float to an integer in [low, high], toward zero and saturated; a NaN gives 0 (no undefined behaviour). */
static int64_t mote_truncate(float x, int64_t low, int64_t high) {
  if (x != x) return 0;
  if (x <= (float)low) return low;
  if (x >= (float)high) return high;
  return (int64_t)x;
}

/* The limits of an integer type, for saturating float conversions. */
static void mote_limits(int32_t type, int64_t *low, int64_t *high) {
  switch (type) {
    case MOTE_ELEMENT_S8: *low = INT8_MIN; *high = INT8_MAX; break;
    case MOTE_ELEMENT_S16: *low = INT16_MIN; *high = INT16_MAX; break;
    case MOTE_ELEMENT_S32: *low = INT32_MIN; *high = INT32_MAX; break;
    default: *low = INT64_MIN; *high = INT64_MAX; break;
  }
}

static void mote_store(int32_t type, void *data, int32_t i, mote_value v) {
  int64_t low, high;
  mote_limits(type, &low, &high);
  const int64_t whole = v.is_float ? mote_truncate(v.real, low, high) : v.whole;
  const uint64_t bits = (uint64_t)whole; /* integers narrow by wrapping: keep the low bits */
  switch (type) {
    case MOTE_ELEMENT_F32: ((float *)data)[i] = v.is_float ? v.real : (float)v.whole; break;
    case MOTE_ELEMENT_S8: ((int8_t *)data)[i] = (int8_t)(uint8_t)bits; break;
    case MOTE_ELEMENT_S16: ((int16_t *)data)[i] = (int16_t)(uint16_t)bits; break;
    case MOTE_ELEMENT_S32: ((int32_t *)data)[i] = (int32_t)(uint32_t)bits; break;
    case MOTE_ELEMENT_S64: ((int64_t *)data)[i] = whole; break;
    default: ((bool *)data)[i] = v.is_float ? v.real != 0.0f : v.whole != 0; break;
  }
}

mote_status mote_cast(const mote_cast_params *p, const void *input, void *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) mote_store(p->to, output, i, mote_load(p->from, input, i));
  return MOTE_OK;
}
