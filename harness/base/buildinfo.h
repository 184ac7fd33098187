/* What build produced a measurement: stored with every run so that a
 * regression can be traced to a commit, a compiler or a flag. */
#ifndef HARNESS_BUILDINFO_H
#define HARNESS_BUILDINFO_H
struct build_info {
    char commit[48];
    int dirty;
    char compiler[128]; /* the host compiler that built bin/harness */
    char flags[256];
    char kernel_compilers[256]; /* OpenMP kernel compiler; others are in the device driver */
};
const struct build_info *build_info_get(void);
#endif
