/* Knob strings (harness/core/knobs.c), as --knobs and variants files give
 * them: "k=v,k2=v2" on top of each app's defaults. What applies reads back
 * the same from its canonical text, makes compiler defines, and goes
 * through the app's validity rules on a few devices and shapes without
 * overflowing or dividing by zero (UBSan watches that arithmetic). */
#include "core/app.h"
#include "fuzz.h"

#define NAPPS 8
static struct app_input *inputs[NAPPS];
static struct device_info devs[3];

static struct device_info fake_device(const char *backend, const char *kind, size_t max_wg, uint64_t local_mem) {
    struct device_info d;
    memset(&d, 0, sizeof d);
    str_copy(d.backend, sizeof d.backend, backend);
    str_copy(d.kind, sizeof d.kind, kind);
    str_copy(d.arch, sizeof d.arch, strcmp(backend, "cuda") ? "" : "sm_90");
    d.compute_units = 132;
    d.max_wg = max_wg;
    d.max_item[0] = d.max_item[1] = max_wg;
    d.max_item[2] = 64;
    d.global_mem = 80ull << 30;
    d.max_alloc = 20ull << 30;
    d.local_mem = local_mem;
    device_caps(&d);
    return d;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_set_root();
    /* Small inputs every app accepts, generated (no files). */
    static const char *const names[][2] = {
        {"lbm", "gen:64x32"}, {"stencil", "64x32"}, {"selftest", "gen:4096"}, {"matvec", "gen:12x8x5"}};
    for (int a = 0; apps[a] && a < NAPPS; a++) {
        struct app_opts o = {0};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcmp(apps[a]->name, names[i][0])) o.input = names[i][1];
        char err[1024];
        inputs[a] = o.input ? apps[a]->input_load(&o, err, sizeof err) : NULL;
    }
    devs[0] = fake_device("cuda", "gpu", 1024, 228 * 1024);
    devs[1] = fake_device("opencl", "gpu", 256, 64 * 1024);
    devs[2] = fake_device("openmp", "cpu", 1 << 20, 0);
    return 0;
}

/* Whether v is one of the "a|b|c" alternatives, the word "int" aside. */
static int listed(const char *values, const char *v) {
    const size_t n = strlen(v);
    for (const char *p = values; *p;) {
        const size_t len = strcspn(p, "|");
        if (len == n && !strncmp(p, v, n) && strcmp(v, "int")) return 1;
        p += len + (p[len] == '|');
    }
    return 0;
}

/* A value an "int" knob took that is not listed is a number, and the
 * compiler's define (its text) and the host's knob_int agree on it. */
static void check_numbers(const struct knob_set *k) {
    for (int i = 0; i < k->n; i++) {
        const char *v = k->value[i];
        if (listed(k->defs[i].values, v)) continue;
        char again[32];
        snprintf(again, sizeof again, "%ld", knob_int(k, k->defs[i].name));
        FUZZ_ASSERT(strstr(k->defs[i].values, "int") && knob_int(k, k->defs[i].name) >= 1 && !strcmp(again, v),
                    "knob %s=%s: not listed in %s, and knob_int reads %s", k->defs[i].name, v, k->defs[i].values,
                    again);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    static const unsigned shapes[][2] = {{32, 1}, {16, 16}, {1, 1}, {64, 2}, {1024, 1}, {8, 4}};
    for (int a = 0; apps[a] && a < NAPPS; a++) {
        struct knob_set k, again;
        char err[2048] = "", canon[4096], canon2[4096];
        knobs_init(&k, apps[a]->knobs);
        if (knobs_apply(&k, text, err, sizeof err)) {
            FUZZ_ASSERT(err[0], "a rejected knob string says why");
            continue;
        }
        knobs_canonical(&k, canon, sizeof canon);
        knobs_init(&again, apps[a]->knobs);
        FUZZ_ASSERT(!knobs_apply(&again, canon, err, sizeof err), "'%s' does not apply again: %s", canon, err);
        knobs_canonical(&again, canon2, sizeof canon2);
        FUZZ_ASSERT(!strcmp(canon, canon2), "'%s' reads back as '%s'", canon, canon2);
        check_numbers(&k);
        struct strbuf defs = {0};
        knobs_defines(&k, &defs);
        sb_free(&defs);
        if (!inputs[a]) continue;
        for (size_t d = 0; d < sizeof devs / sizeof devs[0]; d++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                char why[ERR_MAX];
                apps[a]->invalid(&k, inputs[a], &devs[d], shapes[s], why, sizeof why);
                apps[a]->bytes_per_cell(&k);
                apps[a]->flops_per_cell(&k);
            }
    }
    free(text);
    return 0;
}
