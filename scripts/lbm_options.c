/* The LBM kernels' compiler options for a named variant, as the harness's
 * build passes them (lbm_build_options, kernels/lbm/schedule.c), for
 * scripts that compile the kernels outside the harness (kernel_code.sh).
 *
 *     build/tools/lbm_options BACKEND VARIANT WxH [KNOBS]
 *
 * BACKEND: a backend's name (its fast-math and fma options); VARIANT: a
 * name from variants/lbm.variants (read from the current folder), or `-`
 * for the knobs' defaults; WxH: the
 * work-group shape (geometry=compiled compiles it in); KNOBS: settings on
 * top of the variant's ("k=v,k=v"). Prints one line: the -D flags and
 * options, without the -I of the kernels' folder. Exit 2 on bad input. */
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "base/util.h"
#include "core/app.h"
#include "core/knobs.h"
#include "core/runner.h"
#include "core/variants.h"
#include "lbm.h"

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s BACKEND VARIANT WxH [KNOBS]\n", argv[0]);
        return 2;
    }
    const struct backend_ops *ops = backend_by_name(argv[1]);
    const struct app *lbm = app_find("lbm");
    unsigned wg[2];
    if (!ops || !lbm || wg_parse(argv[3], wg) != 0) {
        fprintf(stderr, "%s: unknown backend '%s' or work-group shape '%s'\n", argv[0], argv[1], argv[3]);
        return 2;
    }
    struct knob_set k;
    char err[256];
    knobs_init(&k, lbm->knobs);
    if (strcmp(argv[2], "-") != 0) {
        struct variant_list vars = {0};
        if (variants_load("variants/lbm.variants", lbm->knobs, &vars, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", argv[0], err);
            return 2;
        }
        const struct variant *v = variant_find(&vars, argv[2]);
        if (v) k = v->knobs;
        variants_free(&vars);
        if (!v) {
            fprintf(stderr, "%s: no variant '%s' in variants/lbm.variants\n", argv[0], argv[2]);
            return 2;
        }
    }
    if (argc == 5 && knobs_apply(&k, argv[4], err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 2;
    }
    const size_t local[2] = {wg[0], wg[1]};
    struct strbuf opts = {0};
    lbm_build_options(&k, ops, local, &opts);
    printf("%s\n", opts.s ? opts.s + (opts.s[0] == ' ') : "");
    sb_free(&opts);
    return 0;
}
