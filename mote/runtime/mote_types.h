/* Types shared by every mote kernel. */
#ifndef MOTE_TYPES_H
#define MOTE_TYPES_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum { MOTE_OK = 0, MOTE_ERROR = 1 } mote_status;

/* Scratch memory lent to a kernel for one call: a slice of the static arena. */
typedef struct {
  int8_t *buf;
  size_t size;
} mote_scratch;

#define MOTE_NO_SCRATCH ((mote_scratch){NULL, 0})

#endif
