/* The compiler knobs read back off a build's options, and clang's offload
 * flags with their refusals (backend/compilers.c): a missing device runtime,
 * a clang too old for the GPU, CUDA 13's ptxas with LLVM 19 (the ELF ABI
 * pitfall), all one line each; a usable ptxas gives the flags. The ptxas
 * here are scripts that print a release line, so no GPU is needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/compilers.h"
#include "base/util.h"
#include "check.h"

/* A CUDA folder whose bin/ptxas says it is `release`. */
static void fake_cuda(const char *dir, const char *release) {
    char bin[512], ptxas[600];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    mkdir(dir, 0755);
    mkdir(bin, 0755);
    snprintf(ptxas, sizeof ptxas, "%s/ptxas", bin);
    FILE *f = fopen(ptxas, "w");
    fprintf(f, "#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\necho 'Cuda compilation tools, release %s, "
               "V%s.1'\n",
            release, release);
    fclose(f);
    chmod(ptxas, 0755);
}

int main(void) {
    struct compiler_choice c;
    compiler_choice("-I/x -DK_FORM_PAIRED=1", &c);
    CHECK(c.family == CC_GCC && !strcmp(c.opt, "-O3"), "no compiler knobs: gcc at -O3 (got %s %s)",
          cc_family_name(c.family), c.opt);
    compiler_choice("-I/x -DK_CC_CLANG=1 -DK_OPT_O1=1 -DK_WG_X=32", &c);
    CHECK(c.family == CC_CLANG && !strcmp(c.opt, "-O1"), "cc=clang opt=O1 read back (got %s %s)",
          cc_family_name(c.family), c.opt);
    compiler_choice("-DK_CC_CLANGX=1 -DK_OPT_O0=12", &c);
    CHECK(c.family == CC_GCC && !strcmp(c.opt, "-O3"), "only whole defines count (-DK_CC_CLANGX=1 is not cc=clang)");
    CHECK(cc_family_of("clang") == CC_CLANG && cc_family_of("gcc") == CC_GCC && cc_family_of("icx") == -1,
          "family names both ways, unknown ones -1");

    /* A libdir with an sm_90 device runtime and nothing else. */
    char dir[] = "/tmp/test-compilers-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "a scratch folder");
    char lib[600], bc[700], cuda13[600], cuda12[600], flags[2048], why[512];
    snprintf(lib, sizeof lib, "%s/lib", dir);
    mkdir(lib, 0755);
    snprintf(bc, sizeof bc, "%s/libomptarget-nvptx-sm_90.bc", lib);
    fclose(fopen(bc, "w"));
    snprintf(cuda13, sizeof cuda13, "%s/cuda13", dir);
    snprintf(cuda12, sizeof cuda12, "%s/cuda12", dir);
    fake_cuda(cuda13, "13.0");
    fake_cuda(cuda12, "12.6");
    unsetenv("LLVM_OMP_FLAGS");

    struct compiler clang19 = {.family = CC_CLANG, .path = "clang-19", .major = 19};
    str_copy(clang19.libdir, sizeof clang19.libdir, lib);
    setenv("LLVM_OMP_CUDA", cuda12, 1);
    int rc = clang_offload_flags(&clang19, "sm_90", flags, sizeof flags, why, sizeof why);
    CHECK(rc == 0 && strstr(flags, "--offload-arch=sm_90") && strstr(flags, "-foffload-lto") &&
              strstr(flags, bc) && strstr(flags, cuda12),
          "clang 19, sm_90 runtime, CUDA 12.6's ptxas: the offload flags (%s)", rc ? why : flags);
    rc = clang_offload_flags(&clang19, "sm_86", flags, sizeof flags, why, sizeof why);
    CHECK(rc == -1 && strstr(why, "no device runtime for sm_86") && !strchr(why, '\n'),
          "no device runtime for the GPU's architecture: refused in one line (%s)", why);
    setenv("LLVM_OMP_CUDA", cuda13, 1);
    rc = clang_offload_flags(&clang19, "sm_90", flags, sizeof flags, why, sizeof why);
    CHECK(rc == -1 && strstr(why, "CUDA 13") && strstr(why, "ELF ABI") && strstr(why, "llvm_kit.sh"),
          "CUDA 13's ptxas with clang 19: refused, naming the pitfall and the kit (%s)", why);
    struct compiler clang20 = clang19;
    clang20.major = 20;
    rc = clang_offload_flags(&clang20, "sm_90", flags, sizeof flags, why, sizeof why);
    CHECK(rc == 0, "clang 20 is not refused on that ground (seen failing: LLVM 19 alone) (%s)", rc ? why : "flags");
    struct compiler clang14 = clang19;
    clang14.major = 14;
    rc = clang_offload_flags(&clang14, "sm_90", flags, sizeof flags, why, sizeof why);
    CHECK(rc == -1 && strstr(why, "clang 16 or later"), "clang 14 cannot offload to sm_90: refused (%s)", why);
    setenv("LLVM_OMP_CUDA", dir, 1); /* no bin/ptxas there */
    rc = clang_offload_flags(&clang19, "sm_90", flags, sizeof flags, why, sizeof why);
    CHECK(rc == -1 && strstr(why, "no ptxas"), "a CUDA folder without ptxas: refused (%s)", why);
    setenv("LLVM_OMP_FLAGS", "-fopenmp --offload-arch=sm_90 -foffload-lto --cuda-path=/kit/cuda", 1);
    rc = clang_offload_flags(&clang19, "sm_90", flags, sizeof flags, why, sizeof why);
    CHECK(rc == 0 && !strcmp(flags, getenv("LLVM_OMP_FLAGS")), "LLVM_OMP_FLAGS (the shared kit's) taken as they are");
    unsetenv("LLVM_OMP_FLAGS");

    /* Probing: an explicit compiler that is not there is named; with no
     * clang on PATH the reason says which names were tried. */
    setenv("HARNESS_CLANG", "/nonexistent/clang", 1);
    const struct compiler *named = compiler_get(CC_CLANG, ROLE_HOST);
    CHECK(strstr(named->why, "HARNESS_CLANG=/nonexistent/clang is not an executable") != NULL,
          "HARNESS_CLANG that does not exist: '%s'", named->why);
    unsetenv("HARNESS_CLANG");
    unsetenv("LLVM_OMP_CC");
    setenv("PATH", dir, 1);
    const struct compiler *none = compiler_get(CC_CLANG, ROLE_OFFLOAD);
    CHECK(strstr(none->why, "no clang found") && strstr(none->why, "clang-19"), "no clang on PATH: '%s'", none->why);
    CHECK(compiler_get(CC_CLANG, ROLE_OFFLOAD) == none, "probed once per process");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "/bin/rm -rf %s", dir);
    CHECK(system(cmd) == 0, "scratch removed");
    CHECK_DONE();
}
