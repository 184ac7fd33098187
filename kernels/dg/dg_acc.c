/* The DG solver for the OpenACC backend: dg_directive.h with OpenACC spellings. */
#define DG_ACC 1
#include "dg_directive.h"
