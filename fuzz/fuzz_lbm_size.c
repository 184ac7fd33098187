/* The LBM's generated box as --input and sweep files give it, "gen:NXxNY"
 * (kernels/lbm/input.c's lbm_parse_size reads what follows "gen:"). What
 * parses is digits 'x' digits, 1..65536 a side as a params file allows,
 * the same numbers the text says, reading back the same. */
#include "fuzz.h"
#include "lbm.h"

/* digits 'x' digits, exactly. */
static int plain_size(const char *s) {
    const size_t a = strspn(s, "0123456789");
    return a && s[a] == 'x' && strspn(s + a + 1, "0123456789") == strlen(s + a + 1) && s[a + 1];
}

static void check_lbm(const char *text) {
    int nx = -1, ny = -1;
    if (lbm_parse_size(text, &nx, &ny)) {
        FUZZ_ASSERT(nx == -1 && ny == -1, "a refused '%s' wrote %dx%d", text, nx, ny);
        return;
    }
    FUZZ_ASSERT(nx >= 1 && ny >= 1 && nx <= 65536 && ny <= 65536, "'%s' gave %dx%d", text, nx, ny);
    FUZZ_ASSERT(plain_size(text), "accepted '%s'", text);
    char again[64];
    snprintf(again, sizeof again, "%dx%d", nx, ny);
    int nx2, ny2;
    FUZZ_ASSERT(!lbm_parse_size(again, &nx2, &ny2) && nx2 == nx && ny2 == ny, "%s", again);
    /* The same number of each side, leading zeros aside. */
    FUZZ_ASSERT(strtol(text, NULL, 10) == nx && strtol(strchr(text, 'x') + 1, NULL, 10) == ny, "'%s' gave %dx%d", text,
                nx, ny);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    check_lbm(text);
    free(text);
    return 0;
}
