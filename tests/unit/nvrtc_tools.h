/* What the CUDA compile tests share: building a kernel source with NVRTC as
 * the CUDA backend does at run time (harness/backend/backend_cuda.c: the
 * file's text named by its base name, -arch=sm_90 --std=c++17 -I<its
 * folder>, then the build's options), on a machine without a GPU (NVRTC
 * needs none), to an sm_90 CUBIN in memory; and whether a CUBIN holds a
 * kernel's symbol. NVRTC is loaded from $CUDA_HOME/lib64 (default
 * /usr/local/cuda), where nvcc was looked for before: nvcc compiled the same
 * thing with the CUDA runtime's 36,000 lines of headers in front, at twice
 * the CPU. Without it the tests count themselves skipped (tests/sanitize.sh
 * runs them with CUDA_HOME=/nonexistent: the compiles are the plain run's). */
#ifndef TESTS_NVRTC_TOOLS_H
#define TESTS_NVRTC_TOOLS_H
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct nvrtc {
    int (*create)(void **prog, const char *src, const char *name, int nheaders, const char *const *headers,
                  const char *const *include_names);
    int (*compile)(void *prog, int argc, const char *const *argv);
    int (*log_size)(void *prog, size_t *n);
    int (*log)(void *prog, char *log);
    int (*cubin_size)(void *prog, size_t *n);
    int (*cubin)(void *prog, char *cubin);
    int (*destroy)(void **prog);
};

/* Loads NVRTC into r: 1 when it and every entry point are there. It stays
 * loaded: unloading it leaves its C++ runtime's exception pool (72704
 * bytes, held by a static of the unloaded library) looking leaked to
 * LeakSanitizer; mapped, it is reachable. */
static inline int nvrtc_open(struct nvrtc *r) {
    const char *home = getenv("CUDA_HOME");
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/lib64/%s", home && *home ? home : "/usr/local/cuda", names[i]);
        lib = dlopen(path, RTLD_NOW);
    }
    if (!lib) return 0;
    *(void **)&r->create = dlsym(lib, "nvrtcCreateProgram");
    *(void **)&r->compile = dlsym(lib, "nvrtcCompileProgram");
    *(void **)&r->log_size = dlsym(lib, "nvrtcGetProgramLogSize");
    *(void **)&r->log = dlsym(lib, "nvrtcGetProgramLog");
    *(void **)&r->cubin_size = dlsym(lib, "nvrtcGetCUBINSize");
    *(void **)&r->cubin = dlsym(lib, "nvrtcGetCUBIN");
    *(void **)&r->destroy = dlsym(lib, "nvrtcDestroyProgram");
    return r->create && r->compile && r->log_size && r->log && r->cubin_size && r->cubin && r->destroy;
}

/* Compiles the source file `path` (relative to the repository root, where
 * the suite runs) for sm_90 with `options` (whitespace-separated: -I, -D and
 * compiler flags, -Xptxas=... for ptxas) after the backend's fixed ones.
 * Returns 0 when it compiled, with the CUBIN in *cubin (malloc'd, *len
 * bytes); else non-zero. NVRTC's log (its warnings too) in log, at most logn
 * bytes, terminated. */
static inline int nvrtc_cubin(const struct nvrtc *r, const char *path, const char *options, char **cubin, size_t *len,
                              char *log, size_t logn) {
    *cubin = NULL;
    *len = 0;
    log[0] = '\0';
    char *text = file_read_all(path, NULL, log, logn);
    if (!text) return -1;
    char dir[512], incopt[520];
    str_copy(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? path + (slash - dir) + 1 : path;
    if (slash) *slash = '\0';
    else str_copy(dir, sizeof dir, ".");
    snprintf(incopt, sizeof incopt, "-I%s", dir);
    const char *argv[256] = {"-arch=sm_90", "--std=c++17", incopt};
    int argc = 3;
    char *store = xstrdup(options ? options : "");
    for (char *save = NULL, *t = strtok_r(store, " \t\n", &save); t && argc < 256; t = strtok_r(NULL, " \t\n", &save))
        argv[argc++] = t;
    void *prog = NULL;
    int rc = r->create(&prog, text, base, 0, NULL, NULL);
    if (rc == 0) rc = r->compile(prog, argc, argv);
    size_t n = 0;
    if (prog && r->log_size(prog, &n) == 0 && n > 1) {
        char *all = xcalloc(n + 1, 1);
        if (r->log(prog, all) == 0) str_copy(log, logn, all);
        free(all);
    }
    if (rc == 0 && (r->cubin_size(prog, &n) != 0 || n == 0)) rc = -1;
    if (rc == 0) {
        *cubin = xcalloc(n, 1);
        *len = n;
        if (r->cubin(prog, *cubin) != 0) {
            free(*cubin);
            *cubin = NULL;
            *len = 0;
            rc = -1;
        }
    }
    if (prog) r->destroy(&prog);
    free(store);
    free(text);
    return rc;
}

/* Does data (len bytes, a CUBIN) hold `name` (a kernel's symbol)? */
static inline int mem_has(const char *data, size_t len, const char *name) {
    const size_t n = strlen(name);
    for (size_t i = 0; data && i + n <= len; i++)
        if (memcmp(data + i, name, n) == 0) return 1;
    return 0;
}
/* A CUBIN's section headers (a 64-bit ELF): where they start, their size
 * and count, and the offset of the section names' strings. 0, or -1 where
 * bin is not such an ELF. */
struct cubin_elf {
    uint64_t shoff, stroff;
    uint16_t shentsize, shnum;
};
static inline int cubin_elf_open(const char *bin, size_t len, struct cubin_elf *e) {
    uint16_t shstrndx;
    if (len < 64 || memcmp(bin, "\177ELF", 4) || bin[4] != 2) return -1; /* a 64-bit ELF */
    memcpy(&e->shoff, bin + 0x28, 8);
    memcpy(&e->shentsize, bin + 0x3a, 2);
    memcpy(&e->shnum, bin + 0x3c, 2);
    memcpy(&shstrndx, bin + 0x3e, 2);
    if (e->shentsize < 64 || shstrndx >= e->shnum || e->shoff + (uint64_t)e->shnum * e->shentsize > len) return -1;
    memcpy(&e->stroff, bin + e->shoff + (uint64_t)shstrndx * e->shentsize + 0x18, 8);
    return 0;
}

/* Each register count a CUBIN records, as (the kernel's index in the ELF
 * symbol table, its registers a thread) to fn. ptxas records each kernel's
 * count in the section ".nv.info" as attribute EIATTR_REGCOUNT (0x2f):
 * entries are a format byte and an attribute byte, then for format 4
 * (EIFMT_SVAL) a 16-bit size and that many bytes, here the symbol index and
 * the count as two 32-bit words. What `cuobjdump -res-usage` prints, read
 * without the tool (this machine's toolkit has none). */
static inline void cubin_regcounts(const char *bin, size_t len, const struct cubin_elf *e,
                                   void (*fn)(void *ctx, uint32_t sym, uint32_t regs), void *ctx) {
    for (unsigned i = 0; i < e->shnum; i++) {
        const char *sh = bin + e->shoff + (uint64_t)i * e->shentsize;
        uint32_t name;
        uint64_t off, size;
        memcpy(&name, sh, 4);
        memcpy(&off, sh + 0x18, 8);
        memcpy(&size, sh + 0x20, 8);
        if (e->stroff + name + 9 > len || strcmp(bin + e->stroff + name, ".nv.info") || off + size > len) continue;
        for (uint64_t p = off; p + 2 <= off + size;) {
            const unsigned char fmt = (unsigned char)bin[p], attr = (unsigned char)bin[p + 1];
            if (fmt != 4) { /* 1: no value; 2, 3: an 8- or 16-bit value in the next bytes */
                p += fmt == 1 ? 2 : 4;
                continue;
            }
            uint16_t vn;
            memcpy(&vn, bin + p + 2, 2);
            if (attr == 0x2f && vn == 8 && p + 12 <= off + size) {
                uint32_t sym, regs;
                memcpy(&sym, bin + p + 4, 4);
                memcpy(&regs, bin + p + 8, 4);
                fn(ctx, sym, regs);
            }
            p += 4 + (uint64_t)vn;
        }
    }
}

static inline void cubin_most(void *ctx, uint32_t sym, uint32_t regs) {
    (void)sym;
    int *most = ctx;
    if ((int)regs > *most) *most = (int)regs;
}
/* The most registers a thread of any kernel in a CUBIN uses, or -1 when
 * the CUBIN holds no count. */
static inline int cubin_max_registers(const char *bin, size_t len) {
    struct cubin_elf e;
    int most = -1;
    if (cubin_elf_open(bin, len, &e) == 0) cubin_regcounts(bin, len, &e, cubin_most, &most);
    return most;
}

/* cubin_kernel_registers' search: the kernel's name, where the symbol
 * table and its strings lie, and the count found (-1: none yet). */
struct cubin_named {
    const char *bin, *name;
    size_t len;
    uint64_t symoff, symsize, symstr;
    int regs;
};
static inline void cubin_match(void *ctx, uint32_t sym, uint32_t regs) {
    struct cubin_named *k = ctx;
    uint32_t at;
    if (k->regs >= 0 || (uint64_t)(sym + 1) * 24 > k->symsize) return;
    memcpy(&at, k->bin + k->symoff + (uint64_t)sym * 24, 4);
    if (k->symstr + at < k->len && strncmp(k->bin + k->symstr + at, k->name, k->len - (k->symstr + at)) == 0)
        k->regs = (int)regs;
}
/* The registers a thread of kernel `name` uses in a CUBIN, or -1 where it
 * holds no count for it: each EIATTR_REGCOUNT's symbol index looked up in
 * the ELF symbol table (".symtab", whose names are in the string section
 * its sh_link names) and matched to `name`. */
static inline int cubin_kernel_registers(const char *bin, size_t len, const char *name) {
    struct cubin_elf e;
    if (cubin_elf_open(bin, len, &e) != 0) return -1;
    struct cubin_named k = {bin, name, len, 0, 0, 0, -1};
    /* The symbol table (sh_type 2, SHT_SYMTAB; entries of 24 bytes) and its names. */
    for (unsigned i = 0; i < e.shnum; i++) {
        const char *sh = bin + e.shoff + (uint64_t)i * e.shentsize;
        uint32_t type, link;
        memcpy(&type, sh + 4, 4);
        memcpy(&link, sh + 0x28, 4);
        if (type != 2 || link >= e.shnum) continue;
        memcpy(&k.symoff, sh + 0x18, 8);
        memcpy(&k.symsize, sh + 0x20, 8);
        memcpy(&k.symstr, bin + e.shoff + (uint64_t)link * e.shentsize + 0x18, 8);
        break;
    }
    if (!k.symsize || k.symoff + k.symsize > len) return -1;
    cubin_regcounts(bin, len, &e, cubin_match, &k);
    return k.regs;
}
#endif
