/* The synchronous sandpile rule of seed 002, one cell, shared by the serial
 * reference (C), the OpenMP kernels, and the OpenCL and CUDA kernels (which
 * include it through sandpile_gpu.h), so every backend computes the same
 * integers the same way:
 *
 *     out = in % 4 + in(N) / 4 + in(S) / 4 + in(E) / 4 + in(W) / 4
 *
 * on unsigned cells. A cell with 4 or more grains sends one grain to each
 * neighbour per 4 it holds and keeps the rest; the border is a sink (its
 * cells stay 0, so what falls on them is gone). Unsigned division and
 * remainder by 4 are shifts and masks: no rounding, no order of operations
 * that could differ between compilers, so results match bit for bit. */
#ifndef SANDPILE_RULE_H
#define SANDPILE_RULE_H
#define SP_RULE(c, n, s, e, w) (((c)&3u) + ((n) >> 2) + ((s) >> 2) + ((e) >> 2) + ((w) >> 2))
/* A cell is unstable (will topple at the next step) when it holds 4 or more. */
#define SP_UNSTABLE(v) ((v) >= 4u)
#endif
