#ifndef MOTE_SQRTF_H
#define MOTE_SQRTF_H

/* The square root of a float32, correctly rounded (as IEEE sqrt and TFLite Micro's std::sqrt), without
 * libm: a double estimate, then the float nearest the true root chosen with exact double products. */
float mote_sqrtf(float x);

#endif
