#include "mote_transpose.h"

#include "mote_libc.h"

/* Whether output index o of an axis lies over the input: before <= o < before + in. */
static int over_input(int32_t o, int32_t before, int32_t in) {
  return o >= before && o < before + in;
}

mote_status mote_transpose(const mote_transpose_params *p, const void *input, void *output, mote_scratch scratch) {
  (void)scratch;
  const int32_t dims[4] = {p->in_dim0, p->in_dim1, p->in_dim2, p->in_dim3};
  const int32_t perm[4] = {p->perm0, p->perm1, p->perm2, p->perm3};
  int32_t in_stride[4];
  in_stride[3] = 1;
  for (int i = 2; i >= 0; --i) in_stride[i] = in_stride[i + 1] * dims[i + 1];
  /* Walk the output in order; each output axis steps through the input by its axis's stride. */
  const int32_t od0 = dims[perm[0]], od1 = dims[perm[1]], od2 = dims[perm[2]], od3 = dims[perm[3]];
  const int32_t s0 = in_stride[perm[0]], s1 = in_stride[perm[1]], s2 = in_stride[perm[2]], s3 = in_stride[perm[3]];
  const int32_t *before = p->before, *after = p->after;
  const int32_t row = before[3] + od3 + after[3]; /* output elements per row, padding included */
  const size_t eb = (size_t)p->elem_bytes;
  unsigned char *out = output;
  /* Rows of the output's last axis, element by element at the input's stride for that axis; rows
   * and elements off the input are padding (int8 outputs only). */
  for (int32_t a = 0; a < before[0] + od0 + after[0]; ++a) {
    const int in_a = over_input(a, before[0], od0);
    for (int32_t b = 0; b < before[1] + od1 + after[1]; ++b) {
      const int in_b = in_a && over_input(b, before[1], od1);
      for (int32_t c = 0; c < before[2] + od2 + after[2]; ++c, out += (size_t)row * eb) {
        if (!(in_b && over_input(c, before[2], od2))) {
          memset(out, p->pad_value, (size_t)row * eb);
          continue;
        }
        const int32_t first = (a - before[0]) * s0 + (b - before[1]) * s1 + (c - before[2]) * s2;
        if (eb == 1) {
          const int8_t *in = (const int8_t *)input + first;
          int8_t *o = (int8_t *)out;
          for (int32_t d = 0; d < before[3]; ++d) o[d] = (int8_t)p->pad_value;
          o += before[3];
          int32_t d = 0;
          for (; d + 4 <= od3; d += 4, in += 4 * s3) { /* four per step: the loop costs as much as a copy */
            o[d] = in[0];
            o[d + 1] = in[s3];
            o[d + 2] = in[2 * s3];
            o[d + 3] = in[3 * s3];
          }
          for (; d < od3; ++d, in += s3) o[d] = in[0];
          for (; d < od3 + after[3]; ++d) o[d] = (int8_t)p->pad_value;
        } else {
          const int32_t *in = (const int32_t *)input + first;
          int32_t *o = (int32_t *)(void *)out;
          for (int32_t d = 0; d < od3; ++d) o[d] = in[d * s3];
        }
      }
    }
  }
  return MOTE_OK;
}
