#include "mote_matmul_s32.h"

/* The low 32 bits of a value, as int32, without implementation-defined casts. */
static int32_t low32(uint32_t u) {
  return u <= 0x7fffffffu ? (int32_t)u : -(int32_t)(0xffffffffu - u) - 1;
}

/* int8 x int8: products of offset values fit 17 bits; the sum wraps modulo 2^32 in uint32 (no overflow UB). */
static uint32_t dot_s8(const int8_t *a, const int8_t *b, int32_t k, int32_t n, int32_t a_offset, int32_t b_offset) {
  uint32_t acc = 0;
  int32_t t;
  for (t = 0; t < k; ++t) {
    acc += (uint32_t)(((int32_t)a[t] + a_offset) * ((int32_t)b[t * n] + b_offset));
  }
  return acc;
}

static int64_t load(const void *base, int32_t bytes, int32_t index) {
  return bytes == 1 ? (int64_t)((const int8_t *)base)[index] : (int64_t)((const int32_t *)base)[index];
}

/* Any operand widths: 64-bit products, summed modulo 2^64 (the low 32 bits are the int32 result's). */
static uint32_t dot_any(const mote_matmul_s32_params *p, const void *a, int32_t a_at, const void *b, int32_t b_at) {
  uint64_t acc = 0;
  int32_t t;
  for (t = 0; t < p->k; ++t) {
    const int64_t va = load(a, p->a_bytes, a_at + t) + p->a_offset;
    const int64_t vb = load(b, p->b_bytes, b_at + t * p->n) + p->b_offset;
    acc += (uint64_t)va * (uint64_t)vb;
  }
  return (uint32_t)(acc & 0xffffffffu);
}

mote_status mote_matmul_s32(const mote_matmul_s32_params *p, const void *a, const void *b, int32_t *output,
                            mote_scratch scratch) {
  const int32_t narrow = p->a_bytes == 1 && p->b_bytes == 1;
  int32_t batch, i, j;
  (void)scratch;
  for (batch = 0; batch < p->batches; ++batch) {
    const int32_t a_base = batch * p->a_batch_step, b_base = batch * p->b_batch_step;
    int32_t *out = output + batch * p->m * p->n;
    for (i = 0; i < p->m; ++i) {
      for (j = 0; j < p->n; ++j) {
        const int32_t a_at = a_base + i * p->k, b_at = b_base + j;
        uint32_t acc = narrow ? dot_s8((const int8_t *)a + a_at, (const int8_t *)b + b_at, p->k, p->n, p->a_offset,
                                       p->b_offset)
                              : dot_any(p, a, a_at, b, b_at);
        acc *= (uint32_t)p->alpha;
        if (p->bias != NULL) {
          acc += (uint32_t)p->bias[i * p->n + j];
        }
        out[i * p->n + j] = low32(acc);
      }
    }
  }
  return MOTE_OK;
}
