/* The stencil app's input sizes as --input and sweep files give them
 * (kernels/stencil/input.c): "WxH", "gen:WxH" or "gen:N". What parses is a
 * grid the app can hold, written in digits, that reads back the same; what
 * does not says why. */
#include "fuzz.h"
#include "stencil.h"

static void check_stencil(const char *text) {
    char err[512] = "";
    int w = -1, h = -1;
    if (stencil_parse_size(text, &w, &h, err, sizeof err)) {
        FUZZ_ASSERT(!strncmp(err, "stencil input '", 15), "message '%s'", err);
        return;
    }
    FUZZ_ASSERT(w >= 3 && h >= 3 && w <= 65536 && h <= 65536, "grid %dx%d", w, h);
    FUZZ_ASSERT((long)w * h <= 1L << 28, "grid %dx%d", w, h);
    const char *s = strncmp(text, "gen:", 4) ? text : text + 4;
    FUZZ_ASSERT(s[strspn(s, "0123456789x")] == '\0', "accepted '%s'", text);
    char again[64];
    snprintf(again, sizeof again, "%dx%d", w, h);
    int w2, h2;
    FUZZ_ASSERT(!stencil_parse_size(again, &w2, &h2, err, sizeof err) && w2 == w && h2 == h, "%s", again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    check_stencil(text);
    free(text);
    return 0;
}
