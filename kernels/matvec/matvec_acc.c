/* The mat-vec for the OpenACC backend: matvec_directive.h with OpenACC spellings. */
#define MV_ACC 1
#include "matvec_directive.h"
