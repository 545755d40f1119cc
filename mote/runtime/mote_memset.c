/* memset for builds without a C library (MOTE_NO_LIBC, mote_libc.h). */
#include "mote_libc.h"

#ifdef MOTE_NO_LIBC
MOTE_NO_LOOP_CALLS void *mote_memset(void *dst, int value, size_t n) {
  unsigned char *d = dst;
  while (n--) *d++ = (unsigned char)value;
  return dst;
}
#else
typedef int mote_memset_unused; /* the C library's memset serves */
#endif
