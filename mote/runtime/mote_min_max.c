#include "mote_min_max.h"

mote_status mote_min_max(const mote_element_binary_params *p, const void *a, const void *b, void *output,
                         mote_scratch scratch) {
  (void)scratch;
  switch (p->type) {
    case MOTE_ELEMENT_F32: {
      const float *x = (const float *)a, *y = (const float *)b;
      float *out = (float *)output;
      MOTE_ELEMENT_WALK(p, out[io] = (p->operation ? x[ia] > y[ib] : x[ia] < y[ib]) ? x[ia] : y[ib]);
      break;
    }
    case MOTE_ELEMENT_S8: {
      const int8_t *x = (const int8_t *)a, *y = (const int8_t *)b;
      int8_t *out = (int8_t *)output;
      MOTE_ELEMENT_WALK(p, out[io] = (p->operation ? x[ia] > y[ib] : x[ia] < y[ib]) ? x[ia] : y[ib]);
      break;
    }
    case MOTE_ELEMENT_S16: {
      const int16_t *x = (const int16_t *)a, *y = (const int16_t *)b;
      int16_t *out = (int16_t *)output;
      MOTE_ELEMENT_WALK(p, out[io] = (p->operation ? x[ia] > y[ib] : x[ia] < y[ib]) ? x[ia] : y[ib]);
      break;
    }
    case MOTE_ELEMENT_S32: {
      const int32_t *x = (const int32_t *)a, *y = (const int32_t *)b;
      int32_t *out = (int32_t *)output;
      MOTE_ELEMENT_WALK(p, out[io] = (p->operation ? x[ia] > y[ib] : x[ia] < y[ib]) ? x[ia] : y[ib]);
      break;
    }
    case MOTE_ELEMENT_S64: {
      const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
      int64_t *out = (int64_t *)output;
      MOTE_ELEMENT_WALK(p, out[io] = (p->operation ? x[ia] > y[ib] : x[ia] < y[ib]) ? x[ia] : y[ib]);
      break;
    }
    default:
      return MOTE_ERROR;
  }
  return MOTE_OK;
}
