/* The backend registry: adding a backend is adding its ops to this table. */
#include "backend/backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/energy.h"
#include "base/util.h"

const struct backend_ops *const backends[] = {&backend_opencl, &backend_cuda, &backend_openmp, &backend_openacc,
                                              &backend_omp_target};
const int backend_count = (int)(sizeof backends / sizeof backends[0]);

/* The OpenMP kernels' ABI (omp_kernel.h, which the OpenMP and directive
 * backends' kernels include), the ceilings' probe kernels (peak/flops<suffix>
 * for each backend) and the directive backends' runtime (offload/). */
const char *const backend_runtime_files[] = {"harness/backend/omp_kernel.h", "harness/backend/peak",
                                             "harness/backend/offload", NULL};

/* Opened like a device, never listed: a device set (core/devset.h), which
 * core registers; backend/ names nothing above it. */
static const struct backend_ops *unlisted[4];
static int nunlisted;

void backend_register_unlisted(const struct backend_ops *ops) {
    for (int i = 0; i < nunlisted; i++)
        if (unlisted[i] == ops) return;
    if (nunlisted < (int)(sizeof unlisted / sizeof unlisted[0])) unlisted[nunlisted++] = ops;
}

static int is_unlisted(const struct backend_ops *b) {
    for (int i = 0; i < nunlisted; i++)
        if (unlisted[i] == b) return 1;
    return 0;
}

const struct backend_ops *backend_by_name(const char *name) {
    for (int i = 0; i < backend_count; i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    for (int i = 0; i < nunlisted; i++)
        if (strcmp(unlisted[i]->name, name) == 0) return unlisted[i];
    return NULL;
}

void device_fingerprint(struct device_info *info) {
    /* Everything that changes performance identity: a driver update starts a
     * new series in nightly tracking, by design. Not a CPU device's global
     * memory: PoCL reports the RAM free at the moment it is asked, so under
     * load the same CPU came back as a new device and split its series (seen
     * in tests/integration/nightly.sh with two copies running at once). */
    const unsigned long long mem = strcmp(info->kind, "cpu") == 0 ? 0ULL : (unsigned long long)info->global_mem;
    char text[1024];
    snprintf(text, sizeof text, "%s|%s|%s|%s|%u|%zu|%zu,%zu,%zu|%llu|%llu|%s", info->backend, info->vendor, info->name,
             info->driver, info->compute_units, info->max_wg, info->max_item[0], info->max_item[1], info->max_item[2],
             mem, (unsigned long long)info->local_mem, info->arch);
    snprintf(info->fingerprint, sizeof info->fingerprint, "%016llx", (unsigned long long)hash_str(text, 0));
}

void device_caps(struct device_info *info) {
    const struct backend_ops *b = backend_by_name(info->backend);
    memset(&info->caps, 0, sizeof info->caps);
    if (b && b->caps) b->caps(info);
}

int devices_all(struct device_info **out, char notes[][256], int max_notes, int *nnotes) {
    int total = 0;
    struct device_info *all = NULL;
    *nnotes = 0;
    for (int b = 0; b < backend_count; b++) {
        struct device_info *list = NULL;
        char note[256] = "";
        int n = backends[b]->list(&list, note, sizeof note);
        if (n <= 0) {
            if (*nnotes < max_notes)
                str_fmt(notes[(*nnotes)++], 256, "%s: %s", backends[b]->name, note[0] ? note : "no devices");
            free(list);
            continue;
        }
        all = realloc(all, sizeof *all * (size_t)(total + n));
        if (!all) abort();
        for (int i = 0; i < n; i++) {
            device_fingerprint(&list[i]);
            device_caps(&list[i]);
            all[total++] = list[i];
        }
        free(list);
    }
    *out = all;
    return total;
}

static int contains_icase(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return 1;
    return 0;
}

int devices_match(const struct device_info *all, int n, const char *spec, int *idx, int max) {
    int found = 0;
    for (int i = 0; i < n && found < max; i++) {
        const struct device_info *d = &all[i];
        if (strcmp(spec, "all") == 0 || strcmp(spec, d->spec) == 0 || strcmp(spec, d->backend) == 0 ||
            strcmp(spec, d->fingerprint) == 0 || (d->kind[0] && strcmp(spec, d->kind) == 0)) /* "gpu", "cpu" */
            idx[found++] = i;
    }
    /* A spec, a backend, a fingerprint or a kind is exact; only a word that
     * is none of them (no ':') matches names, so `openmp` is the OpenMP
     * backend and not also "OpenMP target host fallback". */
    if (found || strchr(spec, ':')) return found;
    for (int i = 0; i < n && found < max; i++)
        if (contains_icase(all[i].name, spec)) idx[found++] = i;
    return found;
}

struct dev *dev_open_measuring(const struct device_info *info, char *err, size_t errn) {
    const struct backend_ops *b = backend_by_name(info->backend);
    if (b && is_unlisted(b)) return b->open(info, err, errn); /* a set: its members, each with its meter */
    if (!b || !b->open) return err_set(err, errn, "%s: no backend '%s'", info->spec, info->backend), NULL;
    struct dev *d = b->open(info, err, errn);
    if (d) d->energy = energy_open(&d->info);
    return d;
}

void dev_close(struct dev *d) {
    if (!d) return;
    energy_close(d->energy);
    d->energy = NULL;
    d->ops->close(d);
}

int dev_fail(struct dev *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return -1;
}

void dev_resources_add(struct dev *d, const char *kernel, int registers, int local_bytes) {
    char entry[192];
    const int n = snprintf(entry, sizeof entry, "%s:%d:%d", kernel, registers, local_bytes);
    if (n < 0 || (size_t)n >= sizeof entry) return;
    const size_t name_len = strlen(kernel);
    for (const char *p = d->resources; *p; p += strcspn(p, " "), p += *p == ' ')
        if (!strncmp(p, kernel, name_len) && p[name_len] == ':') return; /* seen in this config */
    const size_t used = strlen(d->resources);
    if (used + (used > 0) + (size_t)n >= sizeof d->resources) return;
    snprintf(d->resources + used, sizeof d->resources - used, "%s%s", used ? " " : "", entry);
}
