#ifndef MOTE_DETECTION_POSTPROCESS_F32_H
#define MOTE_DETECTION_POSTPROCESS_F32_H

#include "mote_types.h"

/* TFLite_Detection_PostProcess's settings (mote/ops/detection_postprocess.py). */
typedef struct {
  int32_t num_boxes;            /* anchors */
  int32_t box_stride;           /* the box encodings' last dimension, >= 4 */
  int32_t num_classes;          /* without the background class */
  int32_t label_offset;         /* 1: the class predictions start with a background class, else 0 */
  int32_t max_detections;
  int32_t detections_per_class; /* the regular NMS's limit per class */
  int32_t regular_nms;          /* 0: fast NMS (one class per anchor), 1: NMS per class */
  float score_threshold, iou_threshold;
  float y_scale, x_scale, h_scale, w_scale;
} mote_detection_postprocess_params;

/* The scratch bytes the kernel needs (mote.ops.detection_postprocess.scratch_bytes computes the same). */
#define MOTE_DETECTION_SCRATCH_BYTES(num_boxes, max_detections) \
  ((size_t)4 * (9 * (size_t)(num_boxes) + 6 * (size_t)(max_detections)) + (size_t)(num_boxes))

/* Decodes the boxes against the anchors, runs the fast or the regular non-max suppression and writes the
 * detections' boxes [max_detections][4] (ymin, xmin, ymax, xmax), classes and scores [max_detections], zeros
 * past the detections, and their count, as TFLite Micro does (mote/ops/detection_nms.py). Fails
 * (MOTE_ERROR), as TFLite Micro does, when a decoded box is empty (ymin >= ymax or xmin >= xmax), and when
 * the scratch is smaller than MOTE_DETECTION_SCRATCH_BYTES. */
mote_status mote_detection_postprocess_f32(const mote_detection_postprocess_params *p, const float *box_encodings,
                                           const float *class_predictions, const float *anchors, float *boxes,
                                           float *classes, float *scores, float *count, mote_scratch scratch);

#endif
