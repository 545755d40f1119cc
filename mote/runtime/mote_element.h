/* Kernels that serve several element types take the type as a parameter. */
#ifndef MOTE_ELEMENT_H
#define MOTE_ELEMENT_H

#include "mote_broadcast.h"
#include "mote_types.h"

typedef enum {
  MOTE_ELEMENT_F32, MOTE_ELEMENT_S8, MOTE_ELEMENT_S16, MOTE_ELEMENT_S32, MOTE_ELEMENT_S64, MOTE_ELEMENT_BOOL
} mote_element;

/* A two-input element-wise kernel's parameters: the output walked as `rank` nested loops over `shape`
 * (mote_broadcast.h), the inputs' element type, and which of its operations the kernel performs. */
typedef struct {
  int32_t rank;                          /* 1 .. MOTE_BCAST_MAX_DIMS */
  const int32_t *shape;                  /* [rank] loop extents, outermost first */
  const int32_t *a_strides, *b_strides;  /* [rank] element steps per loop step (0: broadcast) */
  int32_t type;                          /* a mote_element */
  int32_t operation;                     /* the kernel's own code */
} mote_element_binary_params;

/* Walks the output of `p` row by row: the statement given runs for each element with `i`, the input element offsets `ia`
 * and `ib`, and the output offset `io`. */
#define MOTE_ELEMENT_WALK(p, ...)                                                               \
  do {                                                                                          \
    const int32_t inner_ = (p)->shape[(p)->rank - 1];                                           \
    const int32_t a_step_ = (p)->a_strides[(p)->rank - 1], b_step_ = (p)->b_strides[(p)->rank - 1]; \
    const int32_t rows_ = mote_bcast_rows((p)->rank, (p)->shape);                               \
    mote_bcast_cursor cursor_;                                                                  \
    mote_bcast_start(&cursor_);                                                                 \
    for (int32_t row_ = 0; row_ < rows_; ++row_) {                                              \
      for (int32_t i = 0; i < inner_; ++i) {                                                    \
        const int32_t ia = cursor_.a + i * a_step_, ib = cursor_.b + i * b_step_;              \
        const int32_t io = row_ * inner_ + i;                                                   \
        __VA_ARGS__;                                                                            \
      }                                                                                         \
      mote_bcast_next_row(&cursor_, (p)->rank, (p)->shape, (p)->a_strides, (p)->b_strides);     \
    }                                                                                           \
  } while (0)

#endif
