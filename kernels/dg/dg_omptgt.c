/* The DG solver for the OpenMP target backend: dg_directive.h with OpenMP target spellings. */
#define DG_OMP 1
#include "dg_directive.h"
