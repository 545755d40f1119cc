#include "mote_arg_max_min.h"

mote_status mote_arg_max_min(const mote_arg_max_min_params *p, const void *input, void *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t o = 0; o < p->outer; ++o) {
    for (int32_t i = 0; i < p->inner; ++i) {
      int32_t found = 0;
      switch (p->type) {
        case MOTE_ELEMENT_F32: {
          const float *x = (const float *)input + (size_t)o * (size_t)p->extent * (size_t)p->inner + i;
          float best = x[0];
          for (int32_t k = 1; k < p->extent; ++k) {
            const float v = x[(size_t)k * (size_t)p->inner];
            if (p->largest ? v > best : v < best) {
              best = v;
              found = k;
            }
          }
          break;
        }
        case MOTE_ELEMENT_S8: {
          const int8_t *x = (const int8_t *)input + (size_t)o * (size_t)p->extent * (size_t)p->inner + i;
          int8_t best = x[0];
          for (int32_t k = 1; k < p->extent; ++k) {
            const int8_t v = x[(size_t)k * (size_t)p->inner];
            if (p->largest ? v > best : v < best) {
              best = v;
              found = k;
            }
          }
          break;
        }
        case MOTE_ELEMENT_S16: {
          const int16_t *x = (const int16_t *)input + (size_t)o * (size_t)p->extent * (size_t)p->inner + i;
          int16_t best = x[0];
          for (int32_t k = 1; k < p->extent; ++k) {
            const int16_t v = x[(size_t)k * (size_t)p->inner];
            if (p->largest ? v > best : v < best) {
              best = v;
              found = k;
            }
          }
          break;
        }
        case MOTE_ELEMENT_S32: {
          const int32_t *x = (const int32_t *)input + (size_t)o * (size_t)p->extent * (size_t)p->inner + i;
          int32_t best = x[0];
          for (int32_t k = 1; k < p->extent; ++k) {
            const int32_t v = x[(size_t)k * (size_t)p->inner];
            if (p->largest ? v > best : v < best) {
              best = v;
              found = k;
            }
          }
          break;
        }
        default:
          return MOTE_ERROR;
      }
      const size_t at = (size_t)o * (size_t)p->inner + (size_t)i;
      if (p->output_type == MOTE_ELEMENT_S64) {
        ((int64_t *)output)[at] = found;
      } else {
        ((int32_t *)output)[at] = found;
      }
    }
  }
  return MOTE_OK;
}
