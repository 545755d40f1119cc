/* The C library functions a freestanding rv32 build needs: the compilers emit calls to memcpy,
 * memmove and memset (struct copies, the model's input and output copies) even with -nostdlib.
 * Word-at-a-time when both pointers are word aligned, byte-at-a-time otherwise: the core may trap on
 * misaligned word accesses. Also a console helper for messages from the firmware. */
#include <stdint.h>
#include <string.h>

#include "mote_vp.h"

/* A word that may alias any object, so the word loops are valid C on byte buffers. */
typedef uint32_t __attribute__((may_alias)) mote_word;

static int word_aligned(const void *a, const void *b) {
  return (((uintptr_t)a | (uintptr_t)b) & 3u) == 0;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (word_aligned(d, s)) {
    for (; n >= 4; n -= 4, d += 4, s += 4) *(mote_word *)(void *)d = *(const mote_word *)(const void *)s;
  }
  while (n--) *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d == s || n == 0) return dst;
  if ((uintptr_t)d < (uintptr_t)s || (uintptr_t)d >= (uintptr_t)s + n) return memcpy(dst, src, n);
  /* Overlapping with dst above src: copy backwards. */
  while (n--) d[n] = s[n];
  return dst;
}

void *memset(void *dst, int value, size_t n) {
  unsigned char *d = dst;
  unsigned char byte = (unsigned char)value;
  if (word_aligned(d, d)) {
    mote_word word = 0x01010101u * byte;
    for (; n >= 4; n -= 4, d += 4) *(mote_word *)(void *)d = word;
  }
  while (n--) *d++ = byte;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a;
  const unsigned char *y = b;
  for (; n; --n, ++x, ++y) {
    if (*x != *y) return *x < *y ? -1 : 1;
  }
  return 0;
}

void mote_vp_puts(const char *text) {
  while (*text) MOTE_VP_PUTC(*text++);
}
