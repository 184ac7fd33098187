/* LBM params files (kernels/lbm/input.c): seven numbers, one a line. A
 * file either parses into values the checks allow or fails with
 * "name:line: what". */
#include <math.h>

#include "fuzz.h"
#include "lbm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *copy, err[1024] = "";
    FILE *f = fuzz_stream(data, size, &copy);
    struct app_input in;
    memset(&in, 0, sizeof in);
    int rc = lbm_params_read(f, "in.params", &in, err, sizeof err);
    fclose(f);
    free(copy);
    if (rc) {
        FUZZ_ASSERT(fuzz_names_line(err, "in.params"), "message '%s'", err);
        return 0;
    }
    FUZZ_ASSERT(in.nx >= 1 && in.nx <= 65536 && in.ny >= 3 && in.ny <= 65536, "grid %dx%d", in.nx, in.ny);
    FUZZ_ASSERT(in.iters_full >= 1 && in.iters_full <= 1000000000L, "maxIters %ld", in.iters_full);
    FUZZ_ASSERT(isfinite(in.reynolds_dim) && isfinite(in.accel), "reynolds_dim %g accel %g", in.reynolds_dim, in.accel);
    FUZZ_ASSERT(isfinite(in.density) && in.density > 0, "density %g", in.density);
    FUZZ_ASSERT(in.omega > 0 && in.omega < 2, "omega %g", in.omega);
    return 0;
}
