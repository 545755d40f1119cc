#include "mote_types.h"

const char *mote_last_error = NULL;
