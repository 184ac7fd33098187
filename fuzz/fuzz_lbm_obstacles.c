/* LBM obstacle files (kernels/lbm/input.c): "x y 1" lines on a grid the
 * params file gave, here a fixed 256x128 (not square, so a swapped x and y
 * shows): the shipped 128x128 file fits it, the larger ones run off it. */
#include "fuzz.h"
#include "lbm.h"

enum { NX = 256, NY = 128 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *copy, err[1024] = "";
    FILE *f = fuzz_stream(data, size, &copy);
    struct app_input in;
    memset(&in, 0, sizeof in);
    in.nx = NX;
    in.ny = NY;
    int rc = lbm_obstacles_read(f, "in.dat", &in, err, sizeof err);
    fclose(f);
    free(copy);
    if (rc) {
        FUZZ_ASSERT(fuzz_names_line(err, "in.dat"), "message '%s'", err);
        FUZZ_ASSERT(!in.obstacles, "a failed parse keeps no grid");
        return 0;
    }
    FUZZ_ASSERT(in.obstacles, "a parsed file gives a grid");
    for (long i = 0; i < (long)NX * NY; i++) FUZZ_ASSERT(in.obstacles[i] <= 1, "cell %ld is %d", i, in.obstacles[i]);
    free(in.obstacles);
    return 0;
}
