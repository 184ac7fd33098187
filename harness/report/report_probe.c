/* Probes for the report's tables about tools rather than kernels: is there
 * an OpenACC compiler that offloads to an accelerator here, and which other
 * host languages (with their OpenCL bindings) are installed. What is found
 * is said as found; nothing is imitated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/progress.h"
#include "report/report.h"
#include "store/store_report.h"

/* Runs a shell snippet, returns its first output line (trimmed) in out. */
static void shell_line(const char *script, char *out, size_t n) {
    out[0] = 0;
    FILE *p = popen(script, "r");
    if (!p) return;
    if (fgets(out, (int)n, p)) out[strcspn(out, "\n")] = 0;
    while (fgetc(p) != EOF) {
    }
    pclose(p);
}

static void probe_openacc(char *out, size_t n) {
    /* Vendor compilers first (NVIDIA HPC SDK, its PGI ancestor), then GCC:
     * a tiny OpenACC program is built with offloading and asked how many
     * non-host devices it sees. GCC without an offload target (Debian's
     * default) still accepts -fopenacc but runs everything on the host. */
    static const char script[] =
        "for c in nvc nvc++ pgcc; do command -v $c >/dev/null 2>&1 && { echo \"$c found: $(command -v $c)\"; exit; }; "
        "done; "
        "d=$(mktemp -d) || exit; trap 'rm -rf $d' EXIT; "
        "printf '#include <openacc.h>\\n#include <stdio.h>\\nint main(void){printf(\"%%d\\\\n\", "
        "acc_get_num_devices(acc_device_not_host));return 0;}\\n' > $d/a.c; "
        "if ! command -v gcc >/dev/null 2>&1; then echo 'no OpenACC compiler (nvc, nvc++, pgcc, gcc) found'; "
        "elif ! gcc -fopenacc $d/a.c -o $d/a >/dev/null 2>&1; then echo 'gcc does not accept -fopenacc here'; "
        "elif ! gcc -fopenacc -foffload=nvptx-none $d/a.c -o $d/b >/dev/null 2>&1; then "
        "echo \"no OpenACC compiler offloads here: nvc, nvc++, pgcc not found; gcc $(gcc -dumpversion) accepts "
        "-fopenacc but has no nvptx-none offload target (runs on the host only)\"; "
        "else k=$(timeout 20 $d/b 2>/dev/null); if [ \"${k:-0}\" -gt 0 ] 2>/dev/null; then "
        "echo \"gcc $(gcc -dumpversion) offloads to nvptx-none and sees $k accelerator(s)\"; else "
        "echo \"no OpenACC compiler offloads to a GPU here: nvc, nvc++, pgcc not found; gcc $(gcc -dumpversion) "
        "builds nvptx-none offload code but its runtime sees ${k:-no} accelerators\"; fi; fi";
    shell_line(script, out, n);
    if (!out[0]) str_copy(out, n, "the probe for an OpenACC compiler could not run");
}

static void probe_hostlang(const char *language, char *out, size_t n) {
    char script[512];
    if (!strcmp(language, "C")) {
        str_copy(out, n, "this harness (C11)");
        return;
    }
    if (!strcmp(language, "Python"))
        str_copy(script, sizeof script,
                 "command -v python3 >/dev/null 2>&1 || { echo 'python3 not installed'; exit; }; "
                 "v=$(python3 -c 'import sys;print(sys.version.split()[0])'); "
                 "if python3 -c 'import pyopencl' >/dev/null 2>&1; then echo \"python3 $v with pyopencl\"; "
                 "else echo \"python3 $v without pyopencl\"; fi");
    else if (!strcmp(language, "Haskell"))
        str_copy(script, sizeof script,
                 "command -v ghc >/dev/null 2>&1 && echo \"ghc $(ghc --numeric-version)\" || echo 'ghc not installed'");
    else snprintf(script, sizeof script, "echo 'no probe for this language'");
    shell_line(script, out, n);
}

static void store_note(struct report *r, const char *key, const char *text) {
    for (int d = 0; d < r->ndev; d++) {
        char err[ERR_MAX];
        if (r->dev[d].run_id >= 0 && store_report_note_put(r->store, r->dev[d].run_id, key, text, err, sizeof err))
            note("harness report: %s\n", err);
    }
}

const char *report_probe(struct report *r, const char *key) {
    for (int i = 0; i < r->nnotes; i++)
        if (!strcmp(r->notes[i][0], key)) return r->notes[i][1];
    if (r->nnotes == (int)(sizeof r->notes / sizeof r->notes[0])) return "(too many probes)";
    char *slot = r->notes[r->nnotes][1];
    const size_t n = sizeof r->notes[0][1];
    if (r->from_db) str_copy(slot, n, "not recorded with this report");
    else if (!strcmp(key, "openacc")) probe_openacc(slot, n);
    else if (!strncmp(key, "hostlang:", 9)) probe_hostlang(key + 9, slot, n);
    else str_copy(slot, n, "no such probe");
    str_copy(r->notes[r->nnotes][0], sizeof r->notes[0][0], key);
    if (!r->from_db && r->store) store_note(r, key, slot);
    return r->notes[r->nnotes++][1];
}
