#include "mote_detection_postprocess_f32.h"

#include "mote_box_decode_f32.h"
#include "mote_nms_f32.h"

/* The scratch, carved as MOTE_DETECTION_SCRATCH_BYTES counts it: words first, the active flags last. */
typedef struct {
  float *decoded;          /* [num_boxes][4] */
  float *best_score;       /* fast NMS: each anchor's best class score */
  int32_t *best_class;     /* fast NMS: and that class */
  int32_t *order, *merge;  /* the NMS's sort */
  int32_t *selected;       /* the NMS's selection */
  int32_t *det_anchor, *det_class, *new_anchor, *new_class; /* regular NMS: detections so far, merged */
  float *det_score, *new_score;
  uint8_t *active;         /* the NMS's active flags */
} mote_detection_work;

static mote_detection_work mote_detection_carve(int8_t *buf, int32_t nb, int32_t md) {
  mote_detection_work w;
  float *f = (float *)(void *)buf;
  w.decoded = f;
  w.best_score = f + 4 * nb;
  int32_t *words = (int32_t *)(void *)(f + 5 * nb);
  w.best_class = words;
  w.order = words + nb;
  w.merge = words + 2 * nb;
  w.selected = words + 3 * nb;
  w.det_anchor = words + 4 * nb;
  w.det_class = w.det_anchor + md;
  w.new_anchor = w.det_class + md;
  w.new_class = w.new_anchor + md;
  w.det_score = (float *)(void *)(w.new_class + md);
  w.new_score = w.det_score + md;
  w.active = (uint8_t *)(void *)(w.new_score + md);
  return w;
}

/* Fast NMS: each anchor's class is the first highest score of a left-to-right scan; NMS on those scores. */
static int32_t mote_fast_nms(const mote_detection_postprocess_params *p, const float *class_predictions,
                             const mote_detection_work *w) {
  const int32_t width = p->num_classes + p->label_offset;
  for (int32_t i = 0; i < p->num_boxes; ++i) {
    const float *row = class_predictions + (size_t)i * (size_t)width + p->label_offset;
    int32_t best = 0;
    for (int32_t c = 1; c < p->num_classes; ++c) {
      if (row[c] > row[best]) best = c;
    }
    w->best_score[i] = row[best];
    w->best_class[i] = best;
  }
  const int32_t n = mote_nms_f32(w->decoded, p->num_boxes, w->best_score, 1, p->score_threshold, p->iou_threshold,
                                 p->max_detections, w->selected, w->order, w->merge, w->active);
  for (int32_t k = 0; k < n; ++k) {
    const int32_t anchor = w->selected[k];
    w->det_anchor[k] = anchor;
    w->det_class[k] = w->best_class[anchor];
    w->det_score[k] = w->best_score[anchor];
  }
  return n;
}

/* Regular NMS: NMS per class; each class's detections merged into those so far by decreasing score (the earlier
 * first on ties), cut at max_detections. */
static int32_t mote_regular_nms(const mote_detection_postprocess_params *p, const float *class_predictions,
                                const mote_detection_work *w) {
  const int32_t width = p->num_classes + p->label_offset;
  int32_t count = 0;
  for (int32_t c = 0; c < p->num_classes; ++c) {
    const float *column = class_predictions + p->label_offset + c;
    const int32_t s = mote_nms_f32(w->decoded, p->num_boxes, column, width, p->score_threshold, p->iou_threshold,
                                   p->detections_per_class, w->selected, w->order, w->merge, w->active);
    const int32_t total = count + s < p->max_detections ? count + s : p->max_detections;
    int32_t left = 0, right = 0;
    for (int32_t k = 0; k < total; ++k) {
      const float score = right < s ? column[(size_t)w->selected[right] * (size_t)width] : 0.0f;
      if (right < s && (left >= count || score > w->det_score[left])) {
        w->new_anchor[k] = w->selected[right++];
        w->new_class[k] = c;
        w->new_score[k] = score;
      } else {
        w->new_anchor[k] = w->det_anchor[left];
        w->new_class[k] = w->det_class[left];
        w->new_score[k] = w->det_score[left++];
      }
    }
    for (int32_t k = 0; k < total; ++k) {
      w->det_anchor[k] = w->new_anchor[k];
      w->det_class[k] = w->new_class[k];
      w->det_score[k] = w->new_score[k];
    }
    count = total;
  }
  return count;
}

mote_status mote_detection_postprocess_f32(const mote_detection_postprocess_params *p, const float *box_encodings,
                                           const float *class_predictions, const float *anchors, float *boxes,
                                           float *classes, float *scores, float *count, mote_scratch scratch) {
  if (scratch.size < MOTE_DETECTION_SCRATCH_BYTES(p->num_boxes, p->max_detections)) return MOTE_ERROR;
  const mote_detection_work w = mote_detection_carve(scratch.buf, p->num_boxes, p->max_detections);
  const float scales[4] = {p->y_scale, p->x_scale, p->h_scale, p->w_scale};
  mote_box_decode_f32(box_encodings, p->box_stride, anchors, p->num_boxes, scales, w.decoded);
  for (int32_t i = 0; i < p->num_boxes; ++i) { /* an empty box fails the run; a NaN passes, as in TFLite Micro */
    const float *box = w.decoded + (size_t)i * 4;
    if (box[0] >= box[2] || box[1] >= box[3]) return MOTE_ERROR;
  }
  const int32_t n = p->regular_nms ? mote_regular_nms(p, class_predictions, &w) : mote_fast_nms(p, class_predictions, &w);
  for (int32_t k = 0; k < p->max_detections; ++k) {
    const float *box = w.decoded + (size_t)(k < n ? w.det_anchor[k] : 0) * 4;
    for (int32_t j = 0; j < 4; ++j) boxes[(size_t)k * 4 + (size_t)j] = k < n ? box[j] : 0.0f;
    classes[k] = k < n ? (float)w.det_class[k] : 0.0f;
    scores[k] = k < n ? w.det_score[k] : 0.0f;
  }
  count[0] = (float)n;
  return MOTE_OK;
}
