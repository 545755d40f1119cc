#ifndef MOTE_LAST_ERROR_H
#define MOTE_LAST_ERROR_H

/* Set by a kernel or driver that fails, to say why; NULL when nothing failed. */
extern const char *mote_last_error;

#endif
