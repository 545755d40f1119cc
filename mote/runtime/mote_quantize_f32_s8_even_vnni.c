#include "mote_quantize_f32_s8_even_vnni.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("avx512f"))) mote_status mote_quantize_f32_s8_even_vnni(const mote_quantize_params *p,
                                                                                const float *input, int8_t *output,
                                                                                mote_scratch scratch) {
  const __m512 scale = _mm512_set1_ps(p->scale);
  const __m512 low_limit = _mm512_set1_ps(-256.0f), high_limit = _mm512_set1_ps(256.0f);
  const __m512i zero_point = _mm512_set1_epi32(p->zero_point);
  int32_t i = 0;
  for (; i + 16 <= p->size; i += 16) {
    const __m512 q = _mm512_div_ps(_mm512_loadu_ps(input + i), scale);
    /* As the scalar kernel: NaN and q <= -256 give -128, q >= 256 gives 127 whatever the zero point;
     * those lanes convert 0 instead, so that the conversion stays defined. */
    const __mmask16 low = _mm512_cmp_ps_mask(q, low_limit, _CMP_NGT_UQ);
    const __mmask16 high = _mm512_cmp_ps_mask(q, high_limit, _CMP_GE_OQ);
    const __m512 inside = _mm512_mask_mov_ps(q, low | high, _mm512_setzero_ps());
    __m512i r = _mm512_cvt_roundps_epi32(inside, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); /* ties to even */
    r = _mm512_add_epi32(r, zero_point);
    r = _mm512_mask_mov_epi32(r, low, _mm512_set1_epi32(-128));
    r = _mm512_mask_mov_epi32(r, high, _mm512_set1_epi32(127));
    _mm_storeu_si128((__m128i *)(void *)(output + i), _mm512_cvtsepi32_epi8(r)); /* saturated to int8 */
  }
  const mote_quantize_params rest = {p->size - i, p->scale, p->zero_point};
  return mote_quantize_f32_s8_even(&rest, input + i, output + i, scratch);
}

#else

mote_status mote_quantize_f32_s8_even_vnni(const mote_quantize_params *p, const float *input, int8_t *output,
                                           mote_scratch scratch) {
  (void)p, (void)input, (void)output, (void)scratch;
  return MOTE_ERROR; /* mote selects this kernel only for x86-64 hosts with AVX-512 VNNI */
}

#endif
