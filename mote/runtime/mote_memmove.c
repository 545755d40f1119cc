/* memmove for builds without a C library (MOTE_NO_LIBC, mote_libc.h). */
#include "mote_libc.h"

#ifdef MOTE_NO_LIBC
MOTE_NO_LOOP_CALLS void *mote_memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s) {
    while (n--) *d++ = *s++;
  } else {
    while (n--) d[n] = s[n];
  }
  return dst;
}
#else
typedef int mote_memmove_unused; /* the C library's memmove serves */
#endif
