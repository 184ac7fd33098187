/* The host half of the report's starting program (kernels=partial,
 * t01-given): rebound, collision and av_velocity run on the host in single
 * precision, with the same cell physics as the device kernels. */
#include <math.h>

#include "lbm.h"

#define LBM_FN static inline
#define LBM_SQRT sqrtf
#include "lbm_physics.h"

void lbm_host_rebound_collision(const struct app_input *in, const float *tmp, float *cells) {
    const long n = (long)in->nx * in->ny;
    for (long i = 0; i < n; i++) {
        float s[9];
        for (int k = 0; k < 9; k++) s[k] = tmp[9 * i + k];
        if (in->obstacles[i]) lbm_rebound(s);
        else lbm_collide(s, (float)in->omega);
        for (int k = 0; k < 9; k++) cells[9 * i + k] = s[k];
    }
}

double lbm_host_av_velocity(const struct app_input *in, const float *cells) {
    const long n = (long)in->nx * in->ny;
    float tot_u = 0.0f; /* float, as the given program sums */
    long tot_cells = 0;
    for (long i = 0; i < n; i++) {
        if (in->obstacles[i]) continue;
        tot_u += lbm_speed(cells + 9 * i);
        tot_cells++;
    }
    return tot_cells ? (double)tot_u / (double)tot_cells : 0.0;
}
