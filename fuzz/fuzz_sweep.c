/* Sweep files (harness/core/sweep_file.c): the line parser, the shape
 * generators, the constraint language (parsed when read, evaluated per
 * shape and device) and the expansion of knob patterns against the LBM
 * app's knobs and its shipped variants. */
#include <math.h>

#include "core/app.h"
#include "core/sweep_file.h"
#include "fuzz.h"

static const struct app *lbm;
static struct variant_list named;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_set_root();
    char err[1024];
    lbm = app_find("lbm");
    if (!lbm || variants_load_app("lbm", lbm->knobs, &named, err, sizeof err)) {
        fprintf(stderr, "fuzz_sweep: the lbm app and variants/lbm.variants must load: %s\n", lbm ? err : "no app");
        exit(1);
    }
    return 0;
}

static struct device_info fake_device(const char *backend, size_t max_wg, size_t max_y, uint64_t local_mem) {
    struct device_info d;
    memset(&d, 0, sizeof d);
    str_copy(d.backend, sizeof d.backend, backend);
    d.max_wg = max_wg;
    d.max_item[0] = max_wg;
    d.max_item[1] = max_y;
    d.max_item[2] = 1;
    d.local_mem = local_mem;
    d.compute_units = 132;
    device_caps(&d);
    return d;
}

static void check_spec(const struct sweep_spec *s) {
    FUZZ_ASSERT(s->app[0] && s->ninputs >= 1 && s->ndevices >= 1, "app, inputs and devices");
    FUZZ_ASSERT(s->nvariants + s->npatterns >= 1, "something to run");
    FUZZ_ASSERT(s->nshapes >= 1 && s->nshapes <= SWEEP_MAX_SHAPES && s->shapes, "%d shapes", s->nshapes);
    for (int i = 0; i < s->nshapes; i++)
        FUZZ_ASSERT(s->shapes[i][0] >= 1 && s->shapes[i][0] <= SWEEP_MAX_EXTENT && s->shapes[i][1] >= 1 &&
                        s->shapes[i][1] <= SWEEP_MAX_EXTENT,
                    "shape %ux%u", s->shapes[i][0], s->shapes[i][1]);
    FUZZ_ASSERT(s->reps >= 1 && s->rounds >= 1 && s->warmup >= 0 && s->iters >= 0, "reps %d rounds %d warmup %d",
                s->reps, s->rounds, s->warmup);
    FUZZ_ASSERT(isfinite(s->timeout_s) && s->timeout_s > 0, "timeout %g", s->timeout_s);
    FUZZ_ASSERT(s->nconstraints <= SWEEP_MAX_CONSTRAINTS, "%d constraints", s->nconstraints);
}

/* Every constraint on a few shapes and two devices: evaluation must not
 * overflow or divide by zero (the language makes those errors), and a
 * rejection always says why. */
static void check_constraints(const struct sweep_spec *s) {
    const struct device_info devs[2] = {fake_device("cuda", 1024, 1024, 49152),
                                        fake_device("openmp", 1 << 20, 1 << 20, 0)};
    const size_t grids[2][2] = {{128, 128}, {1, 1ul << 40}};
    for (int i = 0; i < s->nshapes && i < 64; i++)
        for (int d = 0; d < 2; d++) {
            char why[512] = "";
            if (!sweep_constraints_ok(s, s->shapes[i], &devs[d], grids[d], why, sizeof why))
                FUZZ_ASSERT(why[0], "a rejected shape says why");
        }
}

static void check_variants(const struct sweep_spec *s) {
    struct variant_list out;
    char err[2048] = "";
    if (sweep_variants(s, lbm->knobs, &named, &out, err, sizeof err)) {
        FUZZ_ASSERT(fuzz_names_line(err, "in.sweep"), "message '%s'", err);
        FUZZ_ASSERT(!out.v && !out.n, "a failed expansion keeps nothing");
        return;
    }
    FUZZ_ASSERT(out.n >= 1 && out.n <= SWEEP_MAX_LIST * 64 + SWEEP_MAX_EXPANSIONS, "%d variants", out.n);
    for (int i = 0; i < out.n; i++) {
        FUZZ_ASSERT(out.v[i].name[0] && memchr(out.v[i].name, 0, sizeof out.v[i].name), "variant %d's name", i);
        FUZZ_ASSERT(out.v[i].knobs.defs == lbm->knobs, "variant %s's knobs", out.v[i].name);
    }
    variants_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size), err[2048] = "";
    struct sweep_spec s;
    int rc = sweep_parse_text("in.sweep", text, &s, err, sizeof err);
    free(text);
    if (rc) {
        FUZZ_ASSERT(fuzz_names_line(err, "in.sweep"), "message '%s'", err);
        FUZZ_ASSERT(!s.shapes && !s.nshapes, "a failed parse keeps no shapes");
        return 0;
    }
    check_spec(&s);
    check_constraints(&s);
    check_variants(&s);
    sweep_free(&s);
    return 0;
}
