/* The C compilers of the OpenMP backends: found by probing, each with the
 * folder of its OpenMP runtime (see compilers.h). */
#include "backend/compilers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

static const char *const family_names[CC_FAMILIES] = {"gcc", "clang"};

const char *cc_family_name(enum cc_family f) { return f < CC_FAMILIES ? family_names[f] : "?"; }

int cc_family_of(const char *name) {
    for (int f = 0; f < CC_FAMILIES; f++)
        if (!strcmp(name, family_names[f])) return f;
    return -1;
}

/* 1 when options hold the word `word` (blank-separated). */
static int has_word(const char *options, const char *word) {
    const size_t len = strlen(word);
    for (const char *p = options ? strstr(options, word) : NULL; p; p = strstr(p + 1, word))
        if ((p == options || p[-1] == ' ') && (p[len] == 0 || p[len] == ' ')) return 1;
    return 0;
}

void compiler_choice(const char *options, struct compiler_choice *c) {
    c->family = has_word(options, "-DK_CC_CLANG=1") ? CC_CLANG : CC_GCC;
    str_copy(c->opt, sizeof c->opt, "-O3");
    static const char *const levels[] = {"O0", "O1", "O2"};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        char word[24];
        str_fmt(word, sizeof word, "-DK_OPT_%s=1", levels[i]);
        if (has_word(options, word)) str_fmt(c->opt, sizeof c->opt, "-%s", levels[i]);
    }
}

/* Where name runs from: itself when it is a path, else the first folder of
 * PATH that holds it as an executable (into full). 1 when found. */
static int find_program(const char *name, char *full, size_t n) {
    if (strchr(name, '/')) return str_copy(full, n, name), access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        const size_t len = strcspn(p, ":");
        str_fmt(full, n, "%.*s/%s", (int)len, p, name);
        if (len && access(full, X_OK) == 0) return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

static int runnable(const char *name) {
    char full[PATH_MAX];
    return find_program(name, full, sizeof full);
}

/* The first line `compiler args...` prints ("" when it prints nothing). */
static void ask(const char *compiler, const char *arg, char *out, size_t n) {
    struct argv_list a = {0};
    argv_words(&a, compiler);
    argv_add(&a, arg);
    if (argv_first_line(&a, out, n)) out[0] = 0;
    argv_free(&a);
}

/* The folder of the file the compiler links for `lib` (its own runtime),
 * or "" when it does not know one. */
static void runtime_dir(const struct compiler *c, const char *lib, char *out, size_t n) {
    char arg[64], path[PATH_MAX], real[PATH_MAX];
    str_fmt(arg, sizeof arg, "-print-file-name=%s", lib);
    ask(c->path, arg, path, sizeof path);
    out[0] = 0;
    if (path[0] != '/' || !realpath(path, real)) return; /* it printed the bare name: not found */
    char *slash = strrchr(real, '/');
    if (slash) *slash = 0;
    str_copy(out, n, real);
}

static void probe_gcc(struct compiler *c, enum cc_role role) {
    const char *env = getenv(role == ROLE_HOST ? "HARNESS_OMP_CC" : "OFFLOAD_CC");
    if (env && *env) str_copy(c->path, sizeof c->path, env);
    else if (role == ROLE_OFFLOAD && runnable("gcc-12")) str_copy(c->path, sizeof c->path, "gcc-12");
    else str_copy(c->path, sizeof c->path, role == ROLE_HOST ? "cc" : "gcc");
    ask(c->path, "--version", c->version, sizeof c->version);
    if (!c->version[0]) {
        err_set(c->why, sizeof c->why, "cc=gcc: no compiler '%s' runs (%s)", c->path,
                role == ROLE_HOST ? "HARNESS_OMP_CC" : "OFFLOAD_CC");
        return;
    }
    /* libgomp.so, the link the compiler itself uses: its real path is the
     * runtime's folder (libgomp.so.1 may be found only through the loader). */
    runtime_dir(c, "libgomp.so", c->libdir, sizeof c->libdir);
}

/* clang's major version from its --version line ("... clang version 19.1.7 ..."). */
static int clang_major(const char *version) {
    const char *v = strstr(version, "clang version ");
    return v ? atoi(v + 14) : 0;
}

/* $HARNESS_CLANG (the kit's), $LLVM_OMP_CC (the shared kit's), then the
 * newest clang-N on PATH, then clang. */
static void probe_clang(struct compiler *c) {
    const char *env[] = {"HARNESS_CLANG", "LLVM_OMP_CC"};
    for (size_t i = 0; i < 2 && !c->path[0]; i++) {
        const char *v = getenv(env[i]);
        if (!v || !*v) continue;
        if (!runnable(v)) {
            err_set(c->why, sizeof c->why, "cc=clang: %s=%s is not an executable", env[i], v);
            return;
        }
        str_copy(c->path, sizeof c->path, v);
    }
    for (int major = 22; major >= 14 && !c->path[0]; major--) {
        char name[16];
        str_fmt(name, sizeof name, "clang-%d", major);
        if (runnable(name)) str_copy(c->path, sizeof c->path, name);
    }
    if (!c->path[0] && runnable("clang")) str_copy(c->path, sizeof c->path, "clang");
    if (!c->path[0]) {
        err_set(c->why, sizeof c->why,
                "cc=clang: no clang found (HARNESS_CLANG, clang-22 ... clang-14, clang; Debian: apt-get install "
                "clang-19 libomp-19-dev)");
        return;
    }
    ask(c->path, "--version", c->version, sizeof c->version);
    c->major = clang_major(c->version);
    if (!c->major) {
        err_set(c->why, sizeof c->why, "cc=clang: '%s --version' names no clang version", c->path);
        return;
    }
    runtime_dir(c, "libomptarget.so", c->libdir, sizeof c->libdir);
    if (!c->libdir[0]) runtime_dir(c, "libomp.so", c->libdir, sizeof c->libdir);
    if (!c->libdir[0])
        err_set(c->why, sizeof c->why, "cc=clang: %s has no OpenMP runtime (libomp; Debian: libomp-%d-dev)", c->path,
                c->major);
}

const struct compiler *compiler_get(enum cc_family f, enum cc_role role) {
    static struct compiler found[CC_FAMILIES][CC_ROLES];
    static int probed[CC_FAMILIES][CC_ROLES];
    struct compiler *c = &found[f][role];
    if (!probed[f][role]) {
        probed[f][role] = 1;
        c->family = f;
        if (f == CC_GCC) probe_gcc(c, role);
        else probe_clang(c);
    }
    return c;
}

const char *compiler_probe_option(void) {
    const char *want = getenv("HARNESS_OFFLOAD_CC");
    return want && cc_family_of(want) == CC_CLANG ? " -DK_CC_CLANG=1" : "";
}

void compiler_rpath(const struct compiler *c, char *out, size_t n) {
    if (c->libdir[0]) str_fmt(out, n, " -Wl,-rpath,%s", c->libdir);
    else if (n) out[0] = 0;
}

/* The CUDA folder clang is to use: $LLVM_OMP_CUDA (the kit's, with its
 * ptxas), else the toolkit of the nvcc on PATH, else /usr/local/cuda. */
static void cuda_dir(char *out, size_t n) {
    const char *env = getenv("LLVM_OMP_CUDA");
    if (env && *env) {
        str_copy(out, n, env);
        return;
    }
    str_copy(out, n, "/usr/local/cuda");
    char nvcc[PATH_MAX], real[PATH_MAX];
    if (!find_program("nvcc", nvcc, sizeof nvcc) || !realpath(nvcc, real)) return;
    for (int up = 0; up < 2; up++) { /* .../bin/nvcc -> ... */
        char *slash = strrchr(real, '/');
        if (slash) *slash = 0;
    }
    str_copy(out, n, real);
}

/* The CUDA release of a ptxas ("... release 13.0, V13.0.48"): 13, or 0. */
static int ptxas_release(const char *ptxas) {
    struct argv_list a = {0};
    argv_add(&a, ptxas);
    argv_add(&a, "--version");
    char log[] = "/tmp/harness-ptxas-XXXXXX";
    const int fd = mkstemp(log);
    if (fd < 0) return argv_free(&a), 0;
    close(fd);
    argv_run(&a, log);
    argv_free(&a);
    char *text = file_read_all(log, NULL, NULL, 0);
    unlink(log);
    const char *r = text ? strstr(text, "release ") : NULL;
    const int major = r ? atoi(r + 8) : 0;
    free(text);
    return major;
}

int clang_offload_flags(const struct compiler *c, const char *arch, char *out, size_t n, char *why, size_t whyn) {
    const char *env = getenv("LLVM_OMP_FLAGS");
    if (env && *env) {
        str_copy(out, n, env);
        return 0;
    }
    if (c->major < 16)
        return err_set(why, whyn, "cc=clang: %s is clang %d; offloading to %s needs clang 16 or later", c->path,
                       c->major, arch);
    char bc[PATH_MAX + 64];
    str_fmt(bc, sizeof bc, "%s/libomptarget-nvptx-%s.bc", c->libdir, arch);
    if (access(bc, R_OK) != 0)
        return err_set(why, whyn, "cc=clang: no device runtime for %s (%s; Debian: libomp-%d-dev)", arch, bc,
                       c->major);
    char cuda[PATH_MAX], ptxas[PATH_MAX + 16];
    cuda_dir(cuda, sizeof cuda);
    str_fmt(ptxas, sizeof ptxas, "%s/bin/ptxas", cuda);
    if (access(ptxas, X_OK) != 0)
        return err_set(why, whyn, "cc=clang: no ptxas in %s (set LLVM_OMP_CUDA to a CUDA folder)", cuda);
    /* CUDA 13's ptxas and nvlink write cubins of ELF ABI version 8, whose
     * header LLVM 19's CUDA plugin reads in the old layout: every image is
     * refused at run time ("No images found compatible with the installed
     * hardware"). Refused here, in one line, instead; scripts/llvm_kit.sh
     * packs CUDA 12.6's ptxas for it. */
    const int release = ptxas_release(ptxas);
    if (release >= 13 && c->major <= 19)
        return err_set(why, whyn,
                       "cc=clang: %s is CUDA %d's, whose cubins clang %d's runtime cannot load (ELF ABI 8): "
                       "use scripts/llvm_kit.sh's kit (LLVM_OMP_CUDA)",
                       ptxas, release, c->major);
    /* -L: the device runtime's archive (libomptarget.devicertl.a) and the
     * host runtime are linked from the compiler's own folder, also where it
     * is not installed in a system path (the GPU host's kit). */
    str_fmt(out, n, "-fopenmp --offload-arch=%s -foffload-lto --libomptarget-nvptx-bc-path=%s --cuda-path=%s "
                    "-Wno-unknown-cuda-version -L%s",
            arch, bc, cuda, c->libdir);
    return 0;
}
