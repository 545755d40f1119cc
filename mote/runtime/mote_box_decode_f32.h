#ifndef MOTE_BOX_DECODE_F32_H
#define MOTE_BOX_DECODE_F32_H

#include "mote_types.h"

/* Center-size box encodings (y, x, h, w; `stride` floats per anchor, the first 4 read) against anchors
 * (y, x, h, w) into corner boxes (ymin, xmin, ymax, xmax), as TFLite Micro's detection post-processing
 * decodes them: the centers and half sizes in double (e^x by mote's own exp), each rounded to float once,
 * then the corners in float. mote.ops.detection_nms.decode is the same computation in numpy. */
void mote_box_decode_f32(const float *encodings, int32_t stride, const float *anchors, int32_t num_boxes,
                         const float scales[4], float *decoded);

#endif
