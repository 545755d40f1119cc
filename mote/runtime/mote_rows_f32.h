/* The parameters of the float32 kernels that work row by row over the last axis. */
#ifndef MOTE_ROWS_F32_H
#define MOTE_ROWS_F32_H

#include "mote_types.h"

typedef struct {
  int32_t rows;  /* the product of every axis but the last */
  int32_t depth; /* the last axis */
} mote_rows_f32_params;

#endif
