#include "mote_nms_f32.h"

/* TFLite Micro's IoU of box a (the one selected) with box b, in float: std::max(x, y) is (x < y ? y : x) and
 * std::min(x, y) is (y < x ? y : x), which decides where a NaN goes. */
static float mote_iou(const float *a, const float *b) {
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  if (area_a <= 0.0f || area_b <= 0.0f) return 0.0f;
  const float ymin = a[0] < b[0] ? b[0] : a[0];
  const float xmin = a[1] < b[1] ? b[1] : a[1];
  const float ymax = b[2] < a[2] ? b[2] : a[2];
  const float xmax = b[3] < a[3] ? b[3] : a[3];
  const float h = ymax - ymin, w = xmax - xmin;
  const float intersection = (h < 0.0f ? 0.0f : h) * (w < 0.0f ? 0.0f : w);
  return intersection / (area_a + area_b - intersection);
}

/* A stable sort of box indices by decreasing score: bottom-up merges of runs, taking from the right run only
 * when its score is strictly greater. The kept scores hold no NaN, so the order is the one any stable sort
 * gives (TFLite Micro's merge sort with insertion-sorted runs among them). */
static void mote_sort_by_score(int32_t *order, int32_t *merge, int32_t n, const float *scores, int32_t stride) {
  int32_t *from = order, *to = merge;
  for (int32_t width = 1; width < n; width *= 2) {
    for (int32_t start = 0; start < n; start += 2 * width) {
      const int32_t middle = start + width < n ? start + width : n;
      const int32_t end = middle + width < n ? middle + width : n;
      int32_t left = start, right = middle;
      for (int32_t k = start; k < end; ++k) {
        const int take_right = right < end && (left >= middle || scores[(size_t)from[right] * (size_t)stride] >
                                                                     scores[(size_t)from[left] * (size_t)stride]);
        to[k] = take_right ? from[right++] : from[left++];
      }
    }
    int32_t *swap = from;
    from = to;
    to = swap;
  }
  if (from != order) {
    for (int32_t k = 0; k < n; ++k) order[k] = from[k];
  }
}

int32_t mote_nms_f32(const float *boxes, int32_t num_boxes, const float *scores, int32_t stride, float score_threshold,
                     float iou_threshold, int32_t limit, int32_t *selected, int32_t *order, int32_t *merge,
                     uint8_t *active) {
  int32_t kept = 0;
  for (int32_t i = 0; i < num_boxes; ++i) {
    if (scores[(size_t)i * (size_t)stride] >= score_threshold) order[kept++] = i;
  }
  mote_sort_by_score(order, merge, kept, scores, stride);
  for (int32_t i = 0; i < kept; ++i) active[i] = 1;
  int32_t count = 0;
  for (int32_t i = 0; i < kept && count < limit; ++i) {
    if (!active[i]) continue;
    const float *box = boxes + (size_t)order[i] * 4;
    selected[count++] = order[i];
    for (int32_t j = i + 1; j < kept; ++j) {
      if (active[j] && mote_iou(box, boxes + (size_t)order[j] * 4) > iou_threshold) active[j] = 0;
    }
  }
  return count;
}
