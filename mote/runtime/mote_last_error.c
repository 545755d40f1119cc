#include <stddef.h>

#include "mote_last_error.h"

const char *mote_last_error = NULL;
