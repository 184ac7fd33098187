/* The warm-start figures of results/published/nvidia-h200/tuning.md: forest on the H200 wide 256x256
 * landscape (tests/data/landscape-h200-cuda-wide.csv), cold and with the 128x128 landscape as its prior,
 * 20 seeds, evaluations until within 2 % of the best. Budget B (default: the whole space):
 *   make build/tools/warm_start_replay && B=36 build/tools/warm_start_replay */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune/tune.h"
#define MAXP 1000
static char key[2][MAXP][200]; static double med[2][MAXP]; static int np[2];
static struct tune_space sp; static double *T; static int cnt, hit; static double goal;
static double ev(void *ctx, int i, double *noise) { (void)ctx; *noise = 0.005; cnt++; if (!hit && T[i] <= goal) hit = cnt; return T[i]; }
int main(void) {
    FILE *f = fopen("tests/data/landscape-h200-cuda-wide.csv", "r"); char line[1024];
    while (fgets(line, sizeof line, f)) { char in[16], var[160]; unsigned x, y; long it; double m, a, b;
        if (sscanf(line, "%15[^,],\"%159[^\"]\",%u,%u,%ld,%lf,%lf,%lf", in, var, &x, &y, &it, &m, &a, &b) != 8) continue;
        int w = strcmp(in, "128x128") != 0; snprintf(key[w][np[w]], 200, "%s %ux%u", var, x, y); med[w][np[w]++] = m; }
    /* the space: the 256 points; params: 6 knobs + x + y parsed from key */
    const char *names[8] = {"temporal","tile","cells","entry","sums","math","x","y"};
    char vals[8][16][24]; int nv[8] = {0};
    int coord[MAXP][8];
    for (int i = 0; i < np[1]; i++) { char k[200]; strcpy(k, key[1][i]); char *p = strchr(k, '{') + 1; char *v[8]; int n = 0;
        for (char *t = strtok(p, ",} "); t && n < 8; t = strtok(NULL, ",} ")) { char *e = strchr(t, '='); v[n++] = e ? e + 1 : t; }
        char *xy = strrchr(key[1][i], ' ') + 1; char xs[8], ys[8]; sscanf(xy, "%7[0-9]x%7[0-9]", xs, ys); v[6] = xs; v[7] = ys;
        for (int d = 0; d < 8; d++) { int l; for (l = 0; l < nv[d] && strcmp(vals[d][l], v[d]); l++); if (l == nv[d]) strcpy(vals[d][nv[d]++], v[d]); coord[i][d] = l; } }
    tune_space_init(&sp, 8);
    for (int d = 0; d < 8; d++) { strcpy(sp.params[d].name, names[d]); sp.params[d].levels = nv[d]; sp.params[d].ordinal = d == 0 || d >= 6; }
    /* ordinal levels must be in numeric order: re-map */
    for (int d = 0; d < 8; d++) if (sp.params[d].ordinal) { int ord[16]; for (int a = 0; a < nv[d]; a++) { ord[a] = 0; for (int b = 0; b < nv[d]; b++) ord[a] += atoi(vals[d][b]) < atoi(vals[d][a]); } for (int i = 0; i < np[1]; i++) coord[i][d] = ord[coord[i][d]]; }
    for (int i = 0; i < np[1]; i++) tune_space_add(&sp, coord[i]);
    T = med[1]; double best = INFINITY; for (int i = 0; i < np[1]; i++) best = fmin(best, T[i]); goal = best * 1.02;
    int ppt[MAXP]; double psec[MAXP]; int pn = 0;
    for (int j = 0; j < np[0]; j++) for (int i = 0; i < np[1]; i++) if (!strcmp(key[0][j], key[1][i])) { ppt[pn] = i; psec[pn++] = med[0][j]; }
    struct tune_prior pr = {pn, ppt, psec};
    for (int warm = 0; warm < 2; warm++) { int need[20];
        for (int s = 0; s < 20; s++) { cnt = hit = 0; sp.prior = warm ? &pr : NULL; struct tune_result r; tune_search("forest", &sp, getenv("B") ? atoi(getenv("B")) : np[1], s + 1, ev, NULL, &r); need[s] = hit ? hit : 9999; }
        int srt[20]; memcpy(srt, need, sizeof srt); for (int a = 0; a < 20; a++) for (int b = a + 1; b < 20; b++) if (srt[b] < srt[a]) { int t = srt[a]; srt[a] = srt[b]; srt[b] = t; }
        printf("%s: median evaluations to within 2%% of the best of %d points: %d (range %d..%d); prior points %d\n", warm ? "warm" : "cold", np[1], (srt[9] + srt[10]) / 2, srt[0], srt[19], pn); }
}
