/* LBM for the OpenMP target backend: lbm_directive.h with OpenMP target spellings. */
#define LBM_OMP 1
#include "lbm_directive.h"
