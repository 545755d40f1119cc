#include "mote_transpose.h"

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
  /* Rows of the output's last axis, element by element at the input's stride for that axis. */
  for (int32_t a = 0; a < od0; ++a) {
    for (int32_t b = 0; b < od1; ++b) {
      for (int32_t c = 0; c < od2; ++c) {
        const int32_t first = a * s0 + b * s1 + c * s2, row = (a * od1 + b) * od2 + c;
        if (p->elem_bytes == 1) {
          const int8_t *in = (const int8_t *)input + first;
          int8_t *out = (int8_t *)output + row * od3;
          for (int32_t d = 0; d < od3; ++d) out[d] = in[d * s3];
        } else {
          const int32_t *in = (const int32_t *)input + first;
          int32_t *out = (int32_t *)output + row * od3;
          for (int32_t d = 0; d < od3; ++d) out[d] = in[d * s3];
        }
      }
    }
  }
  return MOTE_OK;
}
