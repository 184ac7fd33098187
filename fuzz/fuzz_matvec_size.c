/* The mat-vec app's input sizes as --input and sweep files give them
 * (kernels/matvec/input.c): "NXxNYxNL", "gen:NXxNY" or "gen:NXxNYxNL". What
 * parses is a mesh the app can hold (at least 3x2 columns, so that every
 * colour has a cell; at most 2^25 cell-layers, so every dof index fits an
 * int), written in digits, that reads back the same; what does not says why. */
#include "fuzz.h"
#include "matvec.h"

static void check_matvec(const char *text) {
    char err[512] = "";
    int nx = -1, ny = -1, nl = -1;
    if (matvec_parse_size(text, &nx, &ny, &nl, err, sizeof err)) {
        FUZZ_ASSERT(!strncmp(err, "matvec input '", 14), "message '%s'", err);
        return;
    }
    FUZZ_ASSERT(nx >= 3 && ny >= 2 && nl >= 1 && nx <= 65536 && ny <= 65536 && nl <= 4096, "mesh %dx%dx%d", nx, ny, nl);
    FUZZ_ASSERT((long)nx * ny * nl <= 1L << 25, "mesh %dx%dx%d", nx, ny, nl);
    FUZZ_ASSERT(2L * (nx + 1) * (ny + 1) * nl < 2147483647L, "dofs of %dx%dx%d overflow an int", nx, ny, nl);
    const int gen = !strncmp(text, "gen:", 4);
    const char *s = gen ? text + 4 : text;
    FUZZ_ASSERT(s[strspn(s, "0123456789x")] == '\0', "accepted '%s'", text);
    int xs = 0;
    for (const char *p = s; *p; p++) xs += *p == 'x';
    FUZZ_ASSERT(xs == 2 || (gen && xs == 1 && nl == 40), "accepted '%s' as %dx%dx%d", text, nx, ny, nl);
    char again[64];
    snprintf(again, sizeof again, "%dx%dx%d", nx, ny, nl);
    int a, b, c;
    FUZZ_ASSERT(!matvec_parse_size(again, &a, &b, &c, err, sizeof err) && a == nx && b == ny && c == nl, "%s", again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    check_matvec(text);
    free(text);
    return 0;
}
