#ifndef MOTE_EMBEDDING_LOOKUP_H
#define MOTE_EMBEDDING_LOOKUP_H

#include "mote_types.h"

/* EMBEDDING_LOOKUP: output row i is table row ids[i] (slice_size elements); an id outside the table fails
 * (MOTE_ERROR), as in TFLite Micro. With a scale (an int8 table, a float32 output) each value is
 * dequantized, (float)q * scale. */
typedef struct {
  int32_t slices, slice_size, flat_size;
  int32_t element_bytes; /* the table's */
  float scale;           /* 0: copy the bytes */
} mote_embedding_lookup_params;

/* Needs no scratch. */
mote_status mote_embedding_lookup(const mote_embedding_lookup_params *p, const int32_t *ids, const void *table,
                                  void *output, mote_scratch scratch);

#endif
