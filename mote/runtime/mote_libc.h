/* The part of the C library the kernels use: memcpy, memmove and memset of <string.h>, the macros of
 * non-finite floats of <math.h> (macros only: no libm function is called).
 *
 * Defined MOTE_NO_LIBC (a toolchain without a C library, or a build with -nostdinc), the kernels use the
 * library's own mote_memcpy, mote_memmove and mote_memset and the compiler's builtins for the macros, and need
 * only the freestanding headers <stddef.h>, <stdint.h> and <stdbool.h>. */
#ifndef MOTE_LIBC_H
#define MOTE_LIBC_H

#include <stddef.h>

#ifdef MOTE_NO_LIBC
void *mote_memcpy(void *restrict dst, const void *restrict src, size_t n);
void *mote_memmove(void *dst, const void *src, size_t n);
void *mote_memset(void *dst, int value, size_t n);
#define memcpy mote_memcpy
#define memmove mote_memmove
#define memset mote_memset
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#else
#include <math.h>
#include <string.h>
#endif

/* GCC turns a byte loop into a call of memcpy or memset: not in the functions that are those. */
#if defined(__GNUC__) && !defined(__clang__)
#define MOTE_NO_LOOP_CALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define MOTE_NO_LOOP_CALLS
#endif

#endif
