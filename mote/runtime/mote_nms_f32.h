#ifndef MOTE_NMS_F32_H
#define MOTE_NMS_F32_H

#include "mote_types.h"

/* Single-class non-max suppression as TFLite Micro's detection post-processing runs it: the boxes whose
 * score (scores[i * stride]) is >= score_threshold, sorted by decreasing score (stable: equal scores keep box
 * order), then greedily the next box still active is selected and every later one whose IoU with it is above
 * iou_threshold is dropped, until `limit` are selected. Writes the selected box indices, in order, to
 * `selected` and returns their count. Works in `order` and `merge` (num_boxes words each) and `active`
 * (num_boxes bytes). boxes: [num_boxes][4] (ymin, xmin, ymax, xmax). */
int32_t mote_nms_f32(const float *boxes, int32_t num_boxes, const float *scores, int32_t stride, float score_threshold,
                     float iou_threshold, int32_t limit, int32_t *selected, int32_t *order, int32_t *merge,
                     uint8_t *active);

#endif
