/* The part of <string.h> that mote's generated code and kernels use, for freestanding builds (no
 * libc): implemented in mote_support.c. */
#ifndef MOTE_RV32_STRING_H
#define MOTE_RV32_STRING_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int value, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif
