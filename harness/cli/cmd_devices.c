/* harness devices: every device of every backend. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/energy.h"
#include "base/util.h"
#include "cli/commands.h"
#include "core/progress.h"

/* "nvml, PCI ..." where the device has an energy meter; for an NVIDIA GPU
 * without one, "none: why"; "" for every other device, which never has one.
 * Opened and closed here, only to say so. */
static void energy_text(const struct device_info *d, char *out, size_t n) {
    char why[256] = "";
    struct energy_meter *m = energy_open_why(d, why, sizeof why);
    if (m) str_copy(out, n, energy_describe(m));
    else if (why[0]) str_fmt(out, n, "none: %s", why);
    else out[0] = '\0';
    energy_close(m);
}

/* The compiler knob's values on a backend that builds C (openmp,
 * omp-target, openacc): one device, the compiler a knob of its configs
 * (cc=gcc|clang), so `devices` says which values build here and why not. */
static void compilers_text(const struct device_info *d) {
    const struct backend_ops *ops = backend_by_name(d->backend);
    if (!ops || !ops->compiler_refusal) return;
    printf("    compilers (--knobs cc=...):");
    static const char *const families[] = {"gcc", "clang"};
    for (int i = 0; i < 2; i++) {
        char why[400];
        const char *no = ops->compiler_refusal(d, families[i], "O3", why, sizeof why);
        printf("%s %s%s%s", i ? ";" : "", families[i], no ? " refused: " : "", no ? no : "");
    }
    printf("\n");
}

static void print_device(const struct device_info *d) {
    printf("%-12s %-7s %s\n", d->spec, d->backend, d->name);
    printf("    vendor %s; driver %s; kind %s\n", d->vendor, d->driver, d->kind);
    printf("    compute units %u; max work-group %zu (items %zu x %zu x %zu)%s%s\n", d->compute_units, d->max_wg,
           d->max_item[0], d->max_item[1], d->max_item[2], d->arch[0] ? "; arch " : "", d->arch);
    printf("    global memory %.2f GiB (largest allocation %.2f GiB); local memory %llu KiB\n",
           (double)d->global_mem / 1073741824.0, (double)d->max_alloc / 1073741824.0,
           (unsigned long long)d->local_mem / 1024);
    printf("    fingerprint %s%s%s\n", d->fingerprint, d->pci_bus[0] ? "; PCI " : "", d->pci_bus);
    char energy[320];
    energy_text(d, energy, sizeof energy);
    if (energy[0]) printf("    energy: %s\n", energy);
    compilers_text(d);
}

/* energy: "nvml" where the device has a meter, else empty. */
static void print_csv(const struct device_info *d) {
    struct energy_meter *m = energy_open(d);
    printf("%s,%s,\"%s\",\"%s\",\"%s\",%u,%zu,%zu,%zu,%zu,%llu,%llu,%s,%s,%s\n", d->spec, d->backend, d->vendor,
           d->name, d->driver, d->compute_units, d->max_wg, d->max_item[0], d->max_item[1], d->max_item[2],
           (unsigned long long)d->global_mem, (unsigned long long)d->local_mem, d->fingerprint, d->pci_bus,
           m ? "nvml" : "");
    energy_close(m);
}

int cmd_devices(int argc, char **argv) {
    static const struct option longopts[] = {{"csv", no_argument, 0, 'c'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int csv = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'c') csv = 1;
        else if (c == 'h') {
            printf("usage: harness devices [--csv]\n  Lists every device of every backend with the spec --device "
                   "accepts,\n  and, for NVIDIA GPUs, whether its energy is measured (\"energy: nvml\") or why not.\n");
            return EXIT_OK;
        } else return EXIT_USAGE;
    }
    struct device_info *all = NULL;
    char notes[8][256];
    int nnotes = 0;
    int n = devices_all(&all, notes, 8, &nnotes);
    if (csv)
        printf("spec,backend,vendor,name,driver,compute_units,max_wg,max_item0,max_item1,max_item2,global_mem,local_"
               "mem,fingerprint,pci_bus,energy\n");
    for (int i = 0; i < n; i++) csv ? print_csv(&all[i]) : print_device(&all[i]);
    for (int i = 0; i < nnotes && !harness_quiet; i++) fprintf(stderr, "note: %s (skipped)\n", notes[i]);
    free(all);
    return EXIT_OK;
}
