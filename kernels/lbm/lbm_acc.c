/* LBM for the OpenACC backend: lbm_directive.h with OpenACC spellings. */
#define LBM_ACC 1
#include "lbm_directive.h"
