/* LBM inputs: the params and obstacles parsers on the shipped files and on
 * malformed ones written to a temp folder (every error names "file:line:"),
 * generated boxes, and unknown input names. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "lbm.h"
#include "test_files.h"

static char tmpdir[] = "/tmp/test_lbm_input.XXXXXX";

static const char *write_tmp(const char *name, const char *text, char *path, size_t n) {
    return write_file_in(tmpdir, name, text, path, n);
}

/* Parses a params text; returns the rc, err holds the message. */
static int params_from(const char *name, const char *text, struct app_input *in, char *err, size_t errn, char *path,
                       size_t pathn) {
    memset(in, 0, sizeof *in);
    err[0] = '\0';
    write_tmp(name, text, path, pathn);
    return lbm_params_parse(path, in, err, errn);
}

/* "path:LINE:" appears in msg. */

static void test_params(void) {
    char err[2048], path[PATH_MAX], shipped[PATH_MAX];
    struct app_input in;

    repo_path(shipped, sizeof shipped, "kernels/lbm/data/input_128x128.params");
    memset(&in, 0, sizeof in);
    int rc = lbm_params_parse(shipped, &in, err, sizeof err);
    CHECK(rc == 0, "params: shipped input_128x128.params parses");
    if (rc) printf("# %s\n", err);
    CHECK(in.nx == 128 && in.ny == 128 && in.iters_full == 40000, "params: nx 128, ny 128, maxIters 40000");
    CHECK(in.reynolds_dim == 10 && in.density == 0.1 && in.accel == 0.005 && in.omega == 1.85,
          "params: reynolds_dim 10, density 0.1, accel 0.005, omega 1.85 (%g %g %g %g)", in.reynolds_dim, in.density,
          in.accel, in.omega);
    CHECK(strcmp(in.params_path, shipped) == 0, "params: path remembered");

    rc = params_from("nonnum.params", "128\n128\nforty\n10\n0.1\n0.005\n1.85\n", &in, err, sizeof err, path,
                     sizeof path);
    CHECK(rc != 0 && names_line(err, path, 3) && strstr(err, "maxIters"),
          "params: non-numeric maxIters fails naming file:3: and maxIters (%s)", err);

    rc = params_from("trailing.params", "128\n128x\n100\n10\n0.1\n0.005\n1.85\n", &in, err, sizeof err, path,
                     sizeof path);
    CHECK(rc != 0 && names_line(err, path, 2), "params: '128x' (trailing junk) fails at file:2: (%s)", err);

    rc = params_from("short.params", "128\n128\n100\n10\n0.1\n0.005\n", &in, err, sizeof err, path, sizeof path);
    CHECK(rc != 0 && strstr(err, path) && strstr(err, "omega"),
          "params: missing 7th line fails naming the file and omega (%s)", err);

    rc = params_from("zero_nx.params", "0\n128\n100\n10\n0.1\n0.005\n1.85\n", &in, err, sizeof err, path, sizeof path);
    CHECK(rc != 0 && names_line(err, path, 1) && strstr(err, "nx"), "params: nx = 0 fails at file:1: (%s)", err);

    rc = params_from("neg_ny.params", "128\n-5\n100\n10\n0.1\n0.005\n1.85\n", &in, err, sizeof err, path, sizeof path);
    CHECK(rc != 0 && names_line(err, path, 2) && strstr(err, "ny"), "params: ny = -5 fails at file:2: (%s)", err);

    rc = params_from("frac_nx.params", "12.5\n128\n100\n10\n0.1\n0.005\n1.85\n", &in, err, sizeof err, path,
                     sizeof path);
    CHECK(rc != 0 && names_line(err, path, 1), "params: nx = 12.5 fails at file:1: (%s)", err);

    rc = params_from("omega0.params", "128\n128\n100\n10\n0.1\n0.005\n0\n", &in, err, sizeof err, path, sizeof path);
    CHECK(rc != 0 && names_line(err, path, 7) && strstr(err, "omega"), "params: omega = 0 fails at file:7: (%s)", err);

    rc = params_from("omega25.params", "128\n128\n100\n10\n0.1\n0.005\n2.5\n", &in, err, sizeof err, path, sizeof path);
    CHECK(rc != 0 && names_line(err, path, 7) && strstr(err, "omega"), "params: omega = 2.5 fails at file:7: (%s)",
          err);

    rc = params_from("omega2.params", "128\n128\n100\n10\n0.1\n0.005\n2\n", &in, err, sizeof err, path, sizeof path);
    CHECK(rc != 0 && names_line(err, path, 7), "params: omega = 2 (the open bound) fails (%s)", err);

    rc = params_from("omega_ok.params", "128\n64\n100\n10\n0.1\n0.005\n1.999\n", &in, err, sizeof err, path,
                     sizeof path);
    CHECK(rc == 0 && in.omega == 1.999 && in.ny == 64, "params: omega = 1.999 accepted (%s)", err);

    rc = params_from("density0.params", "128\n128\n100\n10\n0\n0.005\n1.85\n", &in, err, sizeof err, path, sizeof path);
    CHECK(rc != 0 && names_line(err, path, 5) && strstr(err, "density"), "params: density = 0 fails at file:5: (%s)",
          err);

    rc = params_from("extra.params", "128\n128\n100\n10\n0.1\n0.005\n1.85\n42\n", &in, err, sizeof err, path,
                     sizeof path);
    CHECK(rc != 0 && names_line(err, path, 8) && strstr(err, "extra"),
          "params: an 8th value fails at file:8: as extra (%s)", err);

    rc = params_from("blank.params", "\n128\n\n128\n100\n10\n0.1\n0.005\n1.85\n\n", &in, err, sizeof err, path,
                     sizeof path);
    CHECK(rc == 0 && in.nx == 128 && in.omega == 1.85, "params: blank lines are skipped (%s)", err);

    snprintf(path, sizeof path, "%s/does-not-exist.params", tmpdir);
    memset(&in, 0, sizeof in);
    rc = lbm_params_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && strstr(err, path), "params: a missing file fails naming it (%s)", err);
}

static void test_obstacles(void) {
    char err[2048], path[PATH_MAX];
    struct app_input in;
    memset(&in, 0, sizeof in);
    in.nx = 8;
    in.ny = 6;

    write_tmp("good.dat", "0 0 1\n7 5 1\n3 2 1\n\n3 2 1\n", path, sizeof path);
    int rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc == 0, "obstacles: good file (with a duplicate and a blank line) parses (%s)", rc ? err : "");
    int count = 0;
    for (int i = 0; rc == 0 && i < 48; i++) count += in.obstacles[i];
    CHECK(rc == 0 && count == 3 && in.obstacles[0] && in.obstacles[7 + 5 * 8] && in.obstacles[3 + 2 * 8],
          "obstacles: stored at x + y*nx, duplicates once (%d set)", count);
    CHECK(rc == 0 && !in.obstacles[2 + 3 * 8], "obstacles: (x, y) not swapped");
    CHECK(strcmp(in.obstacles_path, path) == 0, "obstacles: path remembered");
    unsigned char *kept = in.obstacles;

    write_tmp("outside.dat", "0 0 1\n1 1 1\n8 2 1\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 3), "obstacles: x = nx fails at file:3: (%s)", err);
    CHECK(in.obstacles == kept, "obstacles: a failed parse keeps the previous grid");

    write_tmp("outside_y.dat", "2 6 1\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 1), "obstacles: y = ny fails at file:1: (%s)", err);

    write_tmp("negative.dat", "\n-1 2 1\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 2), "obstacles: x = -1 fails at file:2: (%s)", err);

    write_tmp("flag.dat", "0 0 1\n1 1 7\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 2) && strstr(err, "flag"), "obstacles: flag 7 fails at file:2: (%s)", err);

    write_tmp("flag0.dat", "1 1 0\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 1), "obstacles: flag 0 fails at file:1: (%s)", err);

    write_tmp("short.dat", "0 0 1\n1 1\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 2), "obstacles: 'x y' without flag fails at file:2: (%s)", err);

    write_tmp("long.dat", "0 0 1 1\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 1), "obstacles: four fields fail at file:1: (%s)", err);

    write_tmp("words.dat", "0 0 1\n0 0 1\nx y 1\n", path, sizeof path);
    rc = lbm_obstacles_parse(path, &in, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 3), "obstacles: 'x y 1' text fails at file:3: (%s)", err);
    free(in.obstacles);
}

static void test_load(void) {
    char err[2048];
    struct app_opts o = {.input = "128x128"};
    struct app_input *in = lbm_input_load(&o, err, sizeof err);
    CHECK(in != NULL, "load: shipped 128x128 loads (%s)", in ? "" : err);
    if (in) {
        CHECK(in->nx == 128 && in->ny == 128 && in->iters == 40000 && in->iters_full == 40000,
              "load: 128x128 runs its own 40000 steps");
        CHECK(in->fluid_cells == 126 * 126, "load: 128x128 box has 126*126 fluid cells (%ld)", in->fluid_cells);
        CHECK(strcmp(in->name, "128x128") == 0, "load: name 128x128 (%s)", in->name);
        lbm_input_free(in);
    }

    o = (struct app_opts){.input = "gen:40x24", .iters = 77};
    in = lbm_input_load(&o, err, sizeof err);
    CHECK(in != NULL, "load: gen:40x24 generates (%s)", in ? "" : err);
    if (in) {
        int walls = 1, inner = 1;
        for (int y = 0; y < 24; y++)
            for (int x = 0; x < 40; x++) {
                int edge = x == 0 || y == 0 || x == 39 || y == 23;
                if (edge && !in->obstacles[x + y * 40]) walls = 0;
                if (!edge && in->obstacles[x + y * 40]) inner = 0;
            }
        CHECK(in->nx == 40 && in->ny == 24, "gen: 40x24 grid");
        CHECK(walls && inner, "gen: walls on all four edges and nowhere else");
        CHECK(in->fluid_cells == 38 * 22, "gen: fluid cells 38*22 (%ld)", in->fluid_cells);
        CHECK(in->iters == 77 && in->iters_full == 1000, "gen: --iters overrides; the box's own count is 1000");
        CHECK(in->density == 0.1 && in->accel == 0.005 && in->omega == 1.85 && in->reynolds_dim == 10,
              "gen: coursework constants");
        lbm_input_free(in);
    }

    /* Sides past 65536 (a params file's limit) were read by %d: 4294967336
     * wrapped to 40 (fuzz/fuzz_lbm_size.c checks lbm_parse_size), and
     * 50000x50000 overflowed int in the box's wall indices. */
    const char *bad[] = {"nosuchinput",       "gen:40",      "gen:0x10",   "gen:40x24x2", "gen:40x2",
                         "gen:4294967336x24", "gen:65537x3", "gen:-40x24", "gen:+40x24",  "gen:40x 24"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        o = (struct app_opts){.input = bad[i]};
        in = lbm_input_load(&o, err, sizeof err);
        CHECK(in == NULL && strstr(err, bad[i]), "load: input '%s' fails with a message naming it (%s)", bad[i], err);
        lbm_input_free(in);
    }

    int nx = 0, ny = 0;
    CHECK(lbm_parse_size("65536x3", &nx, &ny) == 0 && nx == 65536 && ny == 3, "lbm_parse_size: 65536 a side");
    CHECK(lbm_parse_size("040x24", &nx, &ny) == 0 && nx == 40 && ny == 24, "lbm_parse_size: leading zeros are decimal");

    /* Explicit files: both or neither, and an error in either is reported. */
    char p[PATH_MAX], ob[PATH_MAX];
    write_tmp("pair.params", "16\n8\n50\n10\n0.1\n0.005\n1.85\n", p, sizeof p);
    write_tmp("pair.dat", "0 0 1\n15 7 1\n", ob, sizeof ob);
    o = (struct app_opts){.params = p, .obstacles = ob};
    in = lbm_input_load(&o, err, sizeof err);
    CHECK(in && in->nx == 16 && in->ny == 8 && in->fluid_cells == 16 * 8 - 2 && in->iters == 50,
          "load: --params/--obstacles pair (%s)", in ? in->name : err);
    lbm_input_free(in);
    o = (struct app_opts){.params = p};
    in = lbm_input_load(&o, err, sizeof err);
    CHECK(in == NULL && strstr(err, "--obstacles"), "load: --params alone fails (%s)", err);
    write_tmp("pair_bad.dat", "0 0 1\n16 0 1\n", ob, sizeof ob);
    o = (struct app_opts){.params = p, .obstacles = ob};
    in = lbm_input_load(&o, err, sizeof err);
    CHECK(in == NULL && names_line(err, ob, 2), "load: obstacle outside a 16x8 params grid fails (%s)", err);
}

int main(void) {
    set_root();
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_params();
    test_obstacles();
    test_load();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", tmpdir);
    CHECK_DONE();
}
