/* energy.h: NVML's cumulative energy counter, loaded at run time.
 *
 * The counter (nvmlDeviceGetTotalEnergyConsumption, Volta and later) is the
 * whole board's energy in millijoules since the driver loaded, so the energy
 * of an interval is the difference of two reads. Its power reading
 * (nvmlDeviceGetPowerUsage) is deliberately no fallback where the counter is
 * missing: it is the board's power averaged over the driver's own last
 * sampling period, not over our interval, and multiplying it by the interval
 * would be an estimate of something else, stored as if measured. */
#include "backend/energy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* NVML's types, spelled here rather than taken from nvml.h, which comes with
 * the driver's development files and is absent from some CUDA toolkits (13's
 * included): nvmlReturn_t is an int enum whose success is 0; nvmlDevice_t is
 * an opaque pointer. */
typedef int nvml_return;
typedef struct nvml_device_opaque *nvml_device;

/* The entry points used; each field mirrors the NVML function named beside it. */
static struct {
    void *lib;
    nvml_return (*init)(void);                                    /* nvmlInit_v2 */
    nvml_return (*shutdown)(void);                                /* nvmlShutdown */
    const char *(*error_string)(nvml_return);                     /* nvmlErrorString */
    nvml_return (*count)(unsigned *n);                            /* nvmlDeviceGetCount_v2 */
    nvml_return (*by_pci)(const char *bus, nvml_device *d);       /* nvmlDeviceGetHandleByPciBusId_v2 */
    nvml_return (*by_index)(unsigned index, nvml_device *d);      /* nvmlDeviceGetHandleByIndex_v2 */
    nvml_return (*energy)(nvml_device d, unsigned long long *mj); /* nvmlDeviceGetTotalEnergyConsumption */
} nvml;
static char nvml_why[160];
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;

static void nvml_load_once(void) {
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        str_copy(nvml_why, sizeof nvml_why, "NVML not found (libnvidia-ml.so.1)");
        return;
    }
    const char *missing = NULL;
#define NVML_LOAD(field, name)                                                                                         \
    if (!missing && !(nvml.field = (__typeof__(nvml.field))dlsym(h, name))) missing = name;
    NVML_LOAD(init, "nvmlInit_v2")
    NVML_LOAD(shutdown, "nvmlShutdown")
    NVML_LOAD(error_string, "nvmlErrorString")
    NVML_LOAD(count, "nvmlDeviceGetCount_v2")
    NVML_LOAD(by_pci, "nvmlDeviceGetHandleByPciBusId_v2")
    NVML_LOAD(by_index, "nvmlDeviceGetHandleByIndex_v2")
    NVML_LOAD(energy, "nvmlDeviceGetTotalEnergyConsumption")
#undef NVML_LOAD
    if (missing) {
        snprintf(nvml_why, sizeof nvml_why, "NVML lacks %s (driver too old?)", missing);
        dlclose(h);
        return;
    }
    nvml.lib = h; /* kept for the process's life: meters may come and go */
}

static const char *nvml_err(nvml_return r) {
    const char *s = nvml.error_string ? nvml.error_string(r) : NULL;
    return s ? s : "unknown NVML error";
}

struct energy_meter {
    nvml_device dev;
    char how[96];
};

/* Only NVIDIA's GPUs have an NVML counter; whichever backend lists them
 * (CUDA, NVIDIA's OpenCL, PoCL's CUDA driver) names the vendor. */
static int nvidia_gpu(const struct device_info *d) {
    return !strcmp(d->kind, "gpu") && strcasestr(d->vendor, "nvidia") != NULL;
}

/* dev's NVML handle. NVML numbers GPUs in PCI order, CUDA (by default) fastest
 * first, and neither knows the other's CUDA_VISIBLE_DEVICES view, so the PCI
 * bus id is the one identity both share (a UUID would do for CUDA, but
 * OpenCL has none). Without one, index 0 is right only when NVML sees a
 * single GPU: then there is no other board it could be. */
static int find_board(const struct device_info *d, struct energy_meter *m, char *why, size_t whyn) {
    nvml_return r;
    if (d->pci_bus[0]) {
        if ((r = nvml.by_pci(d->pci_bus, &m->dev)) != 0)
            return err_set(why, whyn, "no NVML device at PCI %s: %s", d->pci_bus, nvml_err(r));
        str_fmt(m->how, sizeof m->how, "nvml, PCI %s", d->pci_bus);
        return 0;
    }
    unsigned n = 0;
    if ((r = nvml.count(&n)) != 0) return err_set(why, whyn, "nvmlDeviceGetCount_v2: %s", nvml_err(r));
    if (n != 1) return err_set(why, whyn, "no PCI bus id, and NVML lists %u GPUs: which is it?", n);
    if ((r = nvml.by_index(0, &m->dev)) != 0)
        return err_set(why, whyn, "nvmlDeviceGetHandleByIndex_v2(0): %s", nvml_err(r));
    str_copy(m->how, sizeof m->how, "nvml, the only GPU NVML lists");
    return 0;
}

struct energy_meter *energy_open_why(const struct device_info *dev, char *why, size_t whyn) {
    if (why && whyn) why[0] = '\0';
    if (!nvidia_gpu(dev)) return NULL;
    pthread_once(&nvml_once, nvml_load_once);
    if (!nvml.lib) return err_set(why, whyn, "%s", nvml_why), NULL;
    /* NVML counts initialisations: each meter holds one, and closing it
     * gives that one back. */
    nvml_return r = nvml.init();
    if (r != 0) return err_set(why, whyn, "nvmlInit_v2: %s", nvml_err(r)), NULL;
    struct energy_meter *m = xcalloc(1, sizeof *m);
    unsigned long long mj = 0;
    if (find_board(dev, m, why, whyn) != 0) goto fail;
    /* Read once now: a board without the counter (before Volta) says so
     * here rather than in every measurement. */
    if ((r = nvml.energy(m->dev, &mj)) != 0) {
        err_set(why, whyn, "nvmlDeviceGetTotalEnergyConsumption: %s", nvml_err(r));
        goto fail;
    }
    return m;
fail:
    nvml.shutdown();
    free(m);
    return NULL;
}

struct energy_meter *energy_open(const struct device_info *dev) {
    return energy_open_why(dev, NULL, 0);
}

int energy_read_mj(struct energy_meter *m, unsigned long long *mj) {
    return m && nvml.energy(m->dev, mj) == 0 ? 0 : -1;
}

const char *energy_describe(const struct energy_meter *m) { return m ? m->how : "none"; }

void energy_close(struct energy_meter *m) {
    if (!m) return;
    nvml.shutdown();
    free(m);
}
