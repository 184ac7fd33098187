/* kernels/matvec/matvec.cu compiles with NVRTC, as the CUDA backend builds it
 * at run time (-arch=sm_90 --std=c++17 -I<kernels/matvec> and the knobs'
 * -D flags), for every setting of the knobs (48, and load=stream with the
 * paired form: 60), on a machine without a GPU: NVRTC needs no device.
 * The three kernels must be in each CUBIN. Skipped where
 * libnvrtc cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "check.h"
#include "knobs.h"
#include "util.h"

/* Built with AddressSanitizer (tests/sanitize.sh runs every unit test so):
 * NVRTC compiles the first setting only. The compiles are the plain run's
 * checks, and NVRTC's code is not instrumented; every setting's knobs and
 * options are still built, and one compile, its log, CUBIN and symbol scan
 * still run, under the sanitizers (59 more compiles were 13 s there). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*size_fn)(void *, size_t *);
typedef int (*get_fn)(void *, char *);
typedef int (*destroy_fn)(void **);

static int has(const char *data, size_t len, const char *name) {
    const size_t n = strlen(name);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(data + i, name, n) == 0) return 1;
    return 0;
}

int main(void) {
    const char *const libs[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !lib; i++) lib = dlopen(libs[i], RTLD_NOW);
    const struct app *mv = app_find("matvec");
    CHECK(mv != NULL, "the matvec app is registered");
    if (!lib || !mv) {
        printf("ok - # skip: libnvrtc not found\n");
        CHECK_DONE();
    }
    create_fn create = (create_fn)dlsym(lib, "nvrtcCreateProgram");
    compile_fn compile = (compile_fn)dlsym(lib, "nvrtcCompileProgram");
    size_fn cubin_size = (size_fn)dlsym(lib, "nvrtcGetCUBINSize"),
            log_size = (size_fn)dlsym(lib, "nvrtcGetProgramLogSize");
    get_fn cubin = (get_fn)dlsym(lib, "nvrtcGetCUBIN"), log = (get_fn)dlsym(lib, "nvrtcGetProgramLog");
    destroy_fn destroy = (destroy_fn)dlsym(lib, "nvrtcDestroyProgram");
    if (!create || !compile || !cubin_size || !cubin || !log_size || !log || !destroy) {
        CHECK(0, "libnvrtc has the entry points the CUDA backend uses");
        CHECK_DONE();
    }
    /* Relative to the repository root, where the suite runs. */
    const char *dir = "kernels/matvec", *src_path = "kernels/matvec/matvec.cu";
    char err[256];
    size_t len = 0;
    char *text = file_read_all(src_path, &len, err, sizeof err);
    CHECK(text != NULL, "read %s", src_path);
    if (!text) CHECK_DONE();
    const char *forms[] = {"temp", "scalar", "collapsed", "paired"}, *updates[] = {"plain", "atomic"},
               *colours[] = {"launches", "masked", "none"};
    const char *matrices[] = {"df-fastest", "k-fastest"}, *loads[] = {"plain", "stream"};
    int compiled = 0;
    for (int f = 0; f < 4; f++)
        for (int u = 0; u < 2; u++)
            for (int c = 0; c < 3; c++)
                for (int mx = 0; mx < 2; mx++)
                    for (int ld = 0; ld < 2; ld++) {
                        /* load=stream changes only the paired form's matrix load */
                        if (ld == 1 && strcmp(forms[f], "paired") != 0) continue;
                        char setting[160];
                        snprintf(setting, sizeof setting, "form=%s,update=%s,colours=%s,matrix=%s,load=%s", forms[f],
                                 updates[u], colours[c], matrices[mx], loads[ld]);
                        struct knob_set k;
                        knobs_init(&k, mv->knobs);
                        if (knobs_apply(&k, setting, err, sizeof err)) {
                            CHECK(0, "knobs %s: %s", setting, err);
                            continue;
                        }
                        struct strbuf opts = {0};
                        sb_printf(&opts, "-arch=sm_90 --std=c++17 -I%s", dir);
                        knobs_defines(&k, &opts);
                        const char *argv[32];
                        int argc = 0;
                        for (char *save = NULL, *t = strtok_r(opts.s, " ", &save); t && argc < 32;
                             t = strtok_r(NULL, " ", &save))
                            argv[argc++] = t;
                        if (SANITIZED && compiled++) {
                            sb_free(&opts);
                            continue;
                        }
                        void *prog = NULL;
                        int rc = create(&prog, text, "matvec.cu", 0, NULL, NULL);
                        if (!rc) rc = compile(prog, argc, argv);
                        char msg[2048] = "";
                        size_t n = 0;
                        if (rc && prog && !log_size(prog, &n) && n > 0 && n < sizeof msg) log(prog, msg);
                        CHECK(rc == 0, "nvrtc matvec.cu -arch=sm_90 with %s%s%.600s", setting, rc ? ":\n# " : "", msg);
                        if (!rc && !cubin_size(prog, &n) && n > 0) {
                            char *bin = xcalloc(n, 1);
                            if (!cubin(prog, bin))
                                CHECK(has(bin, n, "matvec_colour") && has(bin, n, "matvec_masked") &&
                                          has(bin, n, "matvec_all"),
                                      "%s: the CUBIN holds matvec_colour, matvec_masked and matvec_all", setting);
                            free(bin);
                        }
                        if (prog) destroy(&prog);
                        sb_free(&opts);
                    }
    free(text);
    /* libnvrtc stays loaded: unloading it leaves its C++ runtime's exception
     * pool (72704 bytes, held by a static of the unloaded library) looking
     * leaked to LeakSanitizer (tests/sanitize.sh); mapped, it is reachable. */
    CHECK_DONE();
}
