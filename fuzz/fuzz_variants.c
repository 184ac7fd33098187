/* Variants files (harness/core/variants.c) against each app's knobs:
 * "name: [base] knob=value ...  # description" lines. What parses is a list
 * of distinct, valid names whose knob sets read back the same through
 * knobs_apply (so a variant stored by its canonical knobs is the same
 * variant when read again). */
#include "core/app.h"
#include "core/variants.h"
#include "fuzz.h"

static void check_list(const struct variant_list *l, const struct knob_def *defs) {
    for (int i = 0; i < l->n; i++) {
        const struct variant *v = &l->v[i];
        FUZZ_ASSERT(v->name[0] && memchr(v->name, 0, sizeof v->name), "variant %d's name", i);
        FUZZ_ASSERT(variant_find(l, v->name) == v, "variant %s twice", v->name);
        FUZZ_ASSERT(memchr(v->description, 0, sizeof v->description), "variant %s's description", v->name);
        char canon[4096], again[4096], err[1024] = "";
        knobs_canonical(&v->knobs, canon, sizeof canon);
        struct knob_set k;
        knobs_init(&k, defs);
        FUZZ_ASSERT(knobs_apply(&k, canon, err, sizeof err) == 0, "variant %s: '%s' does not apply: %s", v->name, canon,
                    err);
        knobs_canonical(&k, again, sizeof again);
        FUZZ_ASSERT(!strcmp(canon, again), "variant %s: '%s' reads back as '%s'", v->name, canon, again);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (int a = 0; apps[a]; a++) {
        char *copy, err[1024] = "";
        FILE *f = fuzz_stream(data, size, &copy);
        struct variant_list l;
        int rc = variants_read(f, "in.variants", apps[a]->knobs, &l, err, sizeof err);
        fclose(f);
        free(copy);
        if (rc) {
            FUZZ_ASSERT(fuzz_names_line(err, "in.variants"), "message '%s'", err);
            FUZZ_ASSERT(!l.v && !l.n, "a failed parse keeps nothing");
            continue;
        }
        check_list(&l, apps[a]->knobs);
        variants_free(&l);
    }
    return 0;
}
