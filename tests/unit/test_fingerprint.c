/* device_fingerprint: what identifies a device for tracking. A CPU device's
 * global memory (PoCL reports the RAM free at that moment) must not split
 * it into two devices; a GPU's memory size, its driver and its name must.
 * devices_match: what a --device word selects. */
#include <string.h>

#include "backend/backend.h"
#include "base/util.h"
#include "check.h"

static struct device_info make(const char *kind, uint64_t mem, const char *driver) {
    struct device_info d;
    memset(&d, 0, sizeof d);
    str_copy(d.backend, sizeof d.backend, "opencl");
    str_copy(d.vendor, sizeof d.vendor, "AuthenticAMD");
    str_copy(d.name, sizeof d.name, "pthread-haswell-AMD EPYC");
    str_copy(d.driver, sizeof d.driver, driver);
    str_copy(d.kind, sizeof d.kind, kind);
    d.compute_units = 2;
    d.max_wg = 4096;
    d.max_item[0] = d.max_item[1] = d.max_item[2] = 4096;
    d.global_mem = mem;
    d.local_mem = 524288;
    device_fingerprint(&d);
    return d;
}

int main(void) {
    /* The two global_mem values PoCL reported for one CPU a few seconds apart. */
    struct device_info a = make("cpu", 3795148800ULL, "PoCL 3.1"), b = make("cpu", 4197801984ULL, "PoCL 3.1");
    CHECK(strlen(a.fingerprint) == 16, "a fingerprint is 16 hex digits (%s)", a.fingerprint);
    CHECK(strcmp(a.fingerprint, b.fingerprint) == 0, "a CPU whose free memory changed keeps its fingerprint (%s, %s)",
          a.fingerprint, b.fingerprint);
    struct device_info g1 = make("gpu", 80ULL << 30, "580.159.04"), g2 = make("gpu", 94ULL << 30, "580.159.04");
    CHECK(strcmp(g1.fingerprint, g2.fingerprint) != 0, "GPUs with different memory sizes differ (%s, %s)",
          g1.fingerprint, g2.fingerprint);
    struct device_info c = make("cpu", 3795148800ULL, "PoCL 4.0");
    CHECK(strcmp(a.fingerprint, c.fingerprint) != 0, "a driver update changes a CPU's fingerprint (%s, %s)",
          a.fingerprint, c.fingerprint);
    struct device_info e = make("cpu", 3795148800ULL, "PoCL 3.1");
    e.compute_units = 16;
    device_fingerprint(&e);
    CHECK(strcmp(a.fingerprint, e.fingerprint) != 0, "a CPU with more compute units differs (%s, %s)", a.fingerprint,
          e.fingerprint);

    /* The devices of a host with the offload backends' host fallbacks. */
    struct device_info all[3] = {a, a, a};
    const char *specs[3][3] = {{"opencl:0.0", "opencl", "pthread-haswell-AMD EPYC"},
                               {"openmp", "openmp", "AMD EPYC"},
                               {"omp-target:host", "omp-target", "OpenMP target host fallback (AMD EPYC)"}};
    for (int i = 0; i < 3; i++) {
        str_copy(all[i].spec, sizeof all[i].spec, specs[i][0]);
        str_copy(all[i].backend, sizeof all[i].backend, specs[i][1]);
        str_copy(all[i].name, sizeof all[i].name, specs[i][2]);
    }
    int idx[3];
    int n = devices_match(all, 3, "openmp", idx, 3);
    CHECK(n == 1 && idx[0] == 1,
          "--device openmp is the OpenMP backend only, not also the device named \"OpenMP target host "
          "fallback\" (%d matched)",
          n);
    n = devices_match(all, 3, "epyc", idx, 3);
    CHECK(n == 3, "a word that is no spec, backend or kind still matches names: epyc selects all three (%d)", n);
    n = devices_match(all, 3, "cpu", idx, 3);
    CHECK(n == 3, "a kind selects every device of it (%d)", n);
    n = devices_match(all, 3, "omp-target:host", idx, 3);
    CHECK(n == 1 && idx[0] == 2, "a spec with ':' is exact (%d)", n);
    CHECK_DONE();
}
