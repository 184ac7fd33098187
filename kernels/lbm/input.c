/* LBM inputs: the coursework params and obstacle files, or a generated box.
 * Every malformed value is reported as "file:line: what is wrong". */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "lbm.h"

static const char *const param_names[7] = {"nx", "ny", "maxIters", "reynolds_dim", "density", "accel", "omega"};

static int parse_number(const char *text, double *out) {
    /* Decimal only: strtod also reads hexadecimal ("0x20" was taken as 32)
     * and "inf"/"nan", which no coursework file means. */
    const char *p = text + (*text == '+' || *text == '-');
    if (!isdigit((unsigned char)*p) && *p != '.') return -1;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v)) return -1;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return -1;
    *out = v;
    return 0;
}

/* Checks one value; returns a message or NULL. */
static const char *param_check(int idx, double v) {
    switch (idx) {
    case 0:
    case 1:
        if (v != floor(v) || v <= 0 || v > 1 << 16) return "must be a whole number between 1 and 65536";
        return NULL;
    case 2:
        if (v != floor(v) || v <= 0 || v > 1e9) return "must be a whole number above 0";
        return NULL;
    case 3: return v > 0 ? NULL : "must be above 0 (the Reynolds number's length scale, in cells)";
    case 4: return v > 0 ? NULL : "must be above 0";
    case 6: return v > 0 && v < 2 ? NULL : "must lie in (0, 2) for a stable BGK relaxation";
    default: return NULL;
    }
}

int lbm_params_read(FILE *f, const char *path, struct app_input *in, char *err, size_t errn) {
    double v[7];
    int got = 0, lineno = 0, rc = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        str_trim(line);
        if (!line[0]) continue;
        if (got == 7) {
            rc = err_set(err, errn, "%s:%d: unexpected extra value '%s' (a params file has 7)", path, lineno, line);
            break;
        }
        if (parse_number(line, &v[got]) != 0) {
            rc = err_set(err, errn, "%s:%d: %s: '%s' is not a number", path, lineno, param_names[got], line);
            break;
        }
        const char *why = param_check(got, v[got]);
        if (why) {
            rc = err_set(err, errn, "%s:%d: %s = %s %s", path, lineno, param_names[got], line, why);
            break;
        }
        got++;
    }
    if (rc) return rc;
    if (got < 7)
        return err_set(err, errn,
                       "%s:%d: missing value for %s (expected 7 lines: nx ny maxIters "
                       "reynolds_dim density accel omega)",
                       path, lineno + 1, param_names[got]);
    in->nx = (int)v[0];
    in->ny = (int)v[1];
    if (in->ny < 3) return err_set(err, errn, "%s:2: ny = %d: accelerate_flow needs at least 3 rows", path, in->ny);
    in->iters_full = (long)v[2];
    in->reynolds_dim = v[3];
    in->density = v[4];
    in->accel = v[5];
    in->omega = v[6];
    str_copy(in->params_path, sizeof in->params_path, path);
    return 0;
}

int lbm_params_parse(const char *path, struct app_input *in, char *err, size_t errn) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return err_set(err, errn, "%s:0: not a regular file (a params file has 7 lines of numbers)", path);
    FILE *f = fopen(path, "r");
    if (!f) return err_set(err, errn, "%s:0: cannot open: %s", path, strerror(errno));
    int rc = lbm_params_read(f, path, in, err, errn);
    fclose(f);
    return rc;
}

int lbm_obstacles_read(FILE *f, const char *path, struct app_input *in, char *err, size_t errn) {
    unsigned char *ob = xcalloc((size_t)in->nx * (size_t)in->ny, 1);
    char line[512];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        str_trim(line);
        if (!line[0]) continue;
        long x, y, flag;
        char extra;
        if (sscanf(line, "%ld %ld %ld %c", &x, &y, &flag, &extra) != 3) {
            rc = err_set(err, errn, "%s:%d: expected 'x y 1', got '%s'", path, lineno, line);
            break;
        }
        if (x < 0 || x >= in->nx || y < 0 || y >= in->ny) {
            rc = err_set(err, errn, "%s:%d: obstacle (%ld, %ld) lies outside the %dx%d grid", path, lineno, x, y,
                         in->nx, in->ny);
            break;
        }
        if (flag != 1) {
            rc = err_set(err, errn, "%s:%d: obstacle flag %ld, expected 1", path, lineno, flag);
            break;
        }
        ob[x + y * in->nx] = 1; /* some files list a cell twice: harmless */
    }
    if (rc) {
        free(ob);
        return rc;
    }
    free(in->obstacles);
    in->obstacles = ob;
    str_copy(in->obstacles_path, sizeof in->obstacles_path, path);
    return 0;
}

int lbm_obstacles_parse(const char *path, struct app_input *in, char *err, size_t errn) {
    /* A regular file: a directory opened and read as empty, and /dev/null
     * did too, and both were taken for a grid with no obstacles. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return err_set(err, errn, "%s:0: not a regular file (an obstacles file lists \"x y 1\" lines)", path);
    FILE *f = fopen(path, "r");
    if (!f) return err_set(err, errn, "%s:0: cannot open: %s", path, strerror(errno));
    int rc = lbm_obstacles_read(f, path, in, err, errn);
    fclose(f);
    return rc;
}

static void count_fluid(struct app_input *in) {
    in->fluid_cells = 0;
    for (long i = 0; i < (long)in->nx * in->ny; i++) in->fluid_cells += !in->obstacles[i];
}

/* A box: walls on the four edges, the coursework's defaults otherwise. */
static void generate_box(struct app_input *in, int nx, int ny) {
    in->nx = nx;
    in->ny = ny;
    in->iters_full = 1000;
    in->reynolds_dim = 10;
    in->density = 0.1;
    in->accel = 0.005;
    in->omega = 1.85;
    in->obstacles = xcalloc((size_t)nx * (size_t)ny, 1);
    /* Indices in size_t: 65536 x 65536 cells is past int. */
    const size_t w = (size_t)nx, last_row = (size_t)(ny - 1) * w;
    for (size_t x = 0; x < w; x++) in->obstacles[x] = in->obstacles[x + last_row] = 1;
    for (size_t y = 0; y < (size_t)ny; y++) in->obstacles[y * w] = in->obstacles[w - 1 + y * w] = 1;
    snprintf(in->name, sizeof in->name, "gen-%dx%d", nx, ny);
    str_copy(in->params_path, sizeof in->params_path, "(generated)");
    str_copy(in->obstacles_path, sizeof in->obstacles_path, "(generated)");
}

int lbm_parse_size(const char *s, int *nx, int *ny) {
    const char *x = strchr(s, 'x');
    char w[16];
    long a, b;
    if (!x || (size_t)(x - s) >= sizeof w || strspn(s, "0123456789") != (size_t)(x - s) ||
        strspn(x + 1, "0123456789") != strlen(x + 1))
        return -1;
    str_copy(w, (size_t)(x - s) + 1, s);
    if (parse_whole(w, 1, 65536, &a) || parse_whole(x + 1, 1, 65536, &b)) return -1;
    *nx = (int)a;
    *ny = (int)b;
    return 0;
}

static int load_named(const char *name, struct app_input *in, char *err, size_t errn) {
    char rel[256], params[PATH_MAX], obst[PATH_MAX];
    snprintf(rel, sizeof rel, "kernels/lbm/data/input_%s.params", name);
    repo_path(params, sizeof params, rel);
    snprintf(rel, sizeof rel, "kernels/lbm/data/obstacles_%s.dat", name);
    repo_path(obst, sizeof obst, rel);
    FILE *probe = fopen(params, "r");
    int nx, ny;
    if (!probe) {
        const char *size = strncmp(name, "gen:", 4) == 0 ? name + 4 : name;
        if (lbm_parse_size(size, &nx, &ny) != 0)
            return err_set(err, errn,
                           "unknown input '%s' (shipped: 128x128 128x256 256x256 "
                           "1024x1024; or gen:NXxNY for a generated box, 1 to 65536 a side)",
                           name);
        if (ny < 3 || nx < 2) return err_set(err, errn, "input '%s': the grid needs nx >= 2 and ny >= 3", name);
        generate_box(in, nx, ny);
        return 0;
    }
    fclose(probe);
    if (lbm_params_parse(params, in, err, errn) || lbm_obstacles_parse(obst, in, err, errn)) return -1;
    str_copy(in->name, sizeof in->name, name);
    return 0;
}

struct app_input *lbm_input_load(const struct app_opts *o, char *err, size_t errn) {
    struct app_input *in = xcalloc(1, sizeof *in);
    int rc;
    if (o->params || o->obstacles) {
        if (!o->params || !o->obstacles) {
            free(in);
            err_set(err, errn, "--params and --obstacles go together");
            return NULL;
        }
        rc = lbm_params_parse(o->params, in, err, errn);
        if (!rc) rc = lbm_obstacles_parse(o->obstacles, in, err, errn);
        if (!rc) snprintf(in->name, sizeof in->name, "%dx%d-custom", in->nx, in->ny);
    } else {
        rc = load_named(o->input ? o->input : "128x128", in, err, errn);
    }
    if (rc) {
        lbm_input_free(in);
        return NULL;
    }
    in->iters = o->iters > 0 ? o->iters : in->iters_full;
    /* What a run holds on the host at once: the serial reference's two
     * double-precision lattices and its velocities and pressure (168 bytes
     * a cell), the harness's float lattices (72), the obstacles, and each
     * step's averages twice. Refused here, with the size, rather than an
     * abort in the reference's allocation (gen:65536x65536 did, exit 134). */
    const double cells = (double)in->nx * (double)in->ny;
    char what[128];
    snprintf(what, sizeof what, "input '%s' (%d x %d cells, %ld steps)", in->name, in->nx, in->ny, in->iters);
    if (host_memory_check(cells * (168.0 + 72.0 + 1.0) + 16.0 * (double)in->iters, what, err, errn) != 0) {
        lbm_input_free(in);
        return NULL;
    }
    count_fluid(in);
    return in;
}

void lbm_input_free(struct app_input *in) {
    if (!in) return;
    free(in->obstacles);
    free(in);
}

void lbm_initial_cells(const struct app_input *in, float *cells) {
    const float w0 = (float)(in->density * 4.0 / 9.0), w1 = (float)(in->density / 9.0),
                w2 = (float)(in->density / 36.0);
    for (long i = 0; i < (long)in->nx * in->ny; i++) {
        float *s = cells + i * 9;
        s[0] = w0;
        s[1] = s[2] = s[3] = s[4] = w1;
        s[5] = s[6] = s[7] = s[8] = w2;
    }
}
