/* Telemetry without root (telemetry.h). NVML is loaded with dlopen, like the
 * GPU drivers in the backends, so a machine without it builds and runs the
 * same binary; the few prototypes used are declared here rather than taken
 * from nvml.h, which is not installed on CPU hosts. */
#include "track/telemetry.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* From nvml.h: return codes are ints (0 = NVML_SUCCESS), devices opaque. */
typedef int nvml_return;
typedef struct nvml_device *nvml_device;
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };

struct nvml {
    void *lib;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*count)(unsigned *);
    nvml_return (*handle)(unsigned, nvml_device *);
    nvml_return (*name)(nvml_device, char *, unsigned);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*throttle)(nvml_device, unsigned long long *);
};

/* The first line of a small file, trimmed; "" when unreadable. */
static void read_line(const char *path, char *buf, size_t n) {
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, (int)n, f)) buf[0] = '\0';
    fclose(f);
    str_trim(buf);
}

static void cpu_state(struct strbuf *out) {
    char line[256];
    read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", line, sizeof line);
    sb_printf(out, "cpu governor: %s\n", line[0] ? line : "unknown (no cpufreq in /sys)");
    read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", line, sizeof line);
    if (line[0]) sb_printf(out, "cpu0 frequency: %s kHz\n", line);
    read_line("/proc/loadavg", line, sizeof line);
    sb_printf(out, "load average: %s\n", line[0] ? line : "unknown");
}

/* Throttle-reason bits (nvmlClocksThrottleReason*), named as nvidia-smi does. */
static void throttle_names(unsigned long long bits, struct strbuf *out) {
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {
        {0x1, "gpu-idle"},    {0x2, "applications-clocks"}, {0x4, "sw-power-cap"},
        {0x8, "hw-slowdown"}, {0x10, "sync-boost"},         {0x20, "sw-thermal"},
        {0x40, "hw-thermal"}, {0x80, "hw-power-brake"},     {0x100, "display-clocks"},
    };
    int any = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (bits & names[i].bit) sb_printf(out, "%s%s", any++ ? "," : "", names[i].name);
    if (!any) sb_printf(out, "none");
}

static int nvml_load(struct nvml *n) {
    memset(n, 0, sizeof *n);
    n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) return -1;
        /* dlsym returns void *; going through memcpy avoids the ISO C warning
     * about converting it to a function pointer. */
#define SYM(field, name)                                                                                               \
    do {                                                                                                               \
        void *p_ = dlsym(n->lib, name);                                                                                \
        if (!p_) return -1;                                                                                            \
        memcpy(&n->field, &p_, sizeof p_);                                                                             \
    } while (0)
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(count, "nvmlDeviceGetCount_v2");
    SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
    SYM(name, "nvmlDeviceGetName");
    SYM(clock, "nvmlDeviceGetClockInfo");
    SYM(temperature, "nvmlDeviceGetTemperature");
    SYM(throttle, "nvmlDeviceGetCurrentClocksThrottleReasons");
#undef SYM
    return 0;
}

static void gpu_state(struct strbuf *out) {
    struct nvml n;
    if (nvml_load(&n) != 0) {
        sb_printf(out, "nvml: NVML not present (libnvidia-ml.so.1%s)\n", n.lib ? " lacks a function" : " not found");
        if (n.lib) dlclose(n.lib);
        return;
    }
    unsigned count = 0;
    int rc = n.init();
    if (rc != 0 || n.count(&count) != 0) {
        sb_printf(out, "nvml: NVML present but not usable (nvmlInit_v2 returned %d)\n", rc);
        if (rc == 0) n.shutdown();
        dlclose(n.lib);
        return;
    }
    for (unsigned i = 0; i < count; i++) {
        nvml_device d;
        char name[96] = "?";
        unsigned sm = 0, mem = 0, temp = 0;
        unsigned long long thr = 0;
        if (n.handle(i, &d) != 0) {
            sb_printf(out, "gpu%u: no handle\n", i);
            continue;
        }
        n.name(d, name, sizeof name);
        sb_printf(out, "gpu%u: %s;", i, name);
        if (n.clock(d, NVML_CLOCK_SM, &sm) == 0) sb_printf(out, " sm clock %u MHz;", sm);
        if (n.clock(d, NVML_CLOCK_MEM, &mem) == 0) sb_printf(out, " memory clock %u MHz;", mem);
        if (n.temperature(d, NVML_TEMPERATURE_GPU, &temp) == 0) sb_printf(out, " temperature %u C;", temp);
        if (n.throttle(d, &thr) == 0) {
            sb_printf(out, " throttle 0x%llx (", thr);
            throttle_names(thr, out);
            sb_printf(out, ")");
        }
        sb_printf(out, "\n");
    }
    n.shutdown();
    dlclose(n.lib);
}

void telemetry_collect(struct strbuf *out) {
    cpu_state(out);
    gpu_state(out);
}
