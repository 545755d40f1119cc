/* memcpy for builds without a C library (MOTE_NO_LIBC, mote_libc.h). */
#include "mote_libc.h"

#ifdef MOTE_NO_LIBC
MOTE_NO_LOOP_CALLS void *mote_memcpy(void *restrict dst, const void *restrict src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n--) *d++ = *s++;
  return dst;
}
#else
typedef int mote_memcpy_unused; /* the C library's memcpy serves */
#endif
