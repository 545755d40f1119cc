#include "mote_compare.h"

/* The relation `operation` between u and v, with C's comparisons (so a NaN compares as in TFLite Micro). */
#define MOTE_RELATE(operation, u, v)                                                             \
  ((operation) == MOTE_EQUAL ? (u) == (v) : (operation) == MOTE_NOT_EQUAL ? (u) != (v)            \
   : (operation) == MOTE_GREATER ? (u) > (v) : (operation) == MOTE_GREATER_EQUAL ? (u) >= (v)     \
   : (operation) == MOTE_LESS ? (u) < (v) : (u) <= (v))

mote_status mote_compare(const mote_element_binary_params *p, const void *a, const void *b, bool *output,
                         mote_scratch scratch) {
  (void)scratch;
  switch (p->type) {
    case MOTE_ELEMENT_F32: {
      const float *x = (const float *)a, *y = (const float *)b;
      MOTE_ELEMENT_WALK(p, output[io] = MOTE_RELATE(p->operation, x[ia], y[ib]));
      break;
    }
    case MOTE_ELEMENT_S8: {
      const int8_t *x = (const int8_t *)a, *y = (const int8_t *)b;
      MOTE_ELEMENT_WALK(p, output[io] = MOTE_RELATE(p->operation, x[ia], y[ib]));
      break;
    }
    case MOTE_ELEMENT_S16: {
      const int16_t *x = (const int16_t *)a, *y = (const int16_t *)b;
      MOTE_ELEMENT_WALK(p, output[io] = MOTE_RELATE(p->operation, x[ia], y[ib]));
      break;
    }
    case MOTE_ELEMENT_S32: {
      const int32_t *x = (const int32_t *)a, *y = (const int32_t *)b;
      MOTE_ELEMENT_WALK(p, output[io] = MOTE_RELATE(p->operation, x[ia], y[ib]));
      break;
    }
    case MOTE_ELEMENT_S64: {
      const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
      MOTE_ELEMENT_WALK(p, output[io] = MOTE_RELATE(p->operation, x[ia], y[ib]));
      break;
    }
    case MOTE_ELEMENT_BOOL: {
      const bool *x = (const bool *)a, *y = (const bool *)b;
      MOTE_ELEMENT_WALK(p, output[io] = MOTE_RELATE(p->operation, x[ia], y[ib]));
      break;
    }
    default:
      return MOTE_ERROR;
  }
  return MOTE_OK;
}
