/* The mat-vec for the OpenMP target backend: matvec_directive.h with OpenMP target spellings. */
#define MV_OMP 1
#include "matvec_directive.h"
