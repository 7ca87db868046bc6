/* Which rows of the kernel mode's angular image are rendered (pipeline/kernel_frame.h): two scales.
 *
 * The kernel is separable, h(m) v(n), and most of its weight lies in a narrow core; the halo around
 * it is faint and smooth (pbr paper §II: 1e-4 of the peak, decaying over ~3 deg). A beam's rows
 * within the core's half height R (v above KERNEL_CORE_LEVEL of its peak) are rendered at the
 * kernel's pitch, every one; a row that only the halo of every beam reaches is rendered once per
 * HALO_ROW_STEP rows and stands for the rows around it: each global row is represented by the
 * nearest rendered row (the lower one at a tie), and the blooming weights a rendered row by the sum
 * of v over the rows it stands for (optics/blooming.h), so the halo's profile is resampled to the
 * coarse rows exactly for every beam's row and only the scene is sampled coarser there. Columns keep
 * the kernel's pitch everywhere (the halo's vertical streak through a bright target keeps the core's
 * narrow horizontal profile).
 *
 * For a 360-degree VLP-16 at the 3 mrad kernel's pitch (1425 rows): 16 beam rows x 13 core rows and
 * one row in 4 of the rest, 501 rows, a third of the rays. A bright target's edge in the halo is
 * then placed to +-2 rows (docs/performance.md: its bloom within ~10 % of the every-row render). Sensors whose rows are closer than the
 * core (most rows within some beam's core) render nearly every row, as before. */
#include "pipeline/kernel_frame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lsim_kernel_core_half(const lsim_kernel *k)
{
    const int N = k->half_v;
    float vmax = 0.0f;
    for (int n = 0; n <= 2 * N; ++n)
        vmax = k->v[n] > vmax ? k->v[n] : vmax;
    int core = 0;
    for (int n = 0; n <= 2 * N; ++n)
        if (k->v[n] > (float)(KERNEL_CORE_LEVEL * vmax) && abs(n - N) > core)
            core = abs(n - N);
    return core;
}

static void mark(uint8_t *m, int height, int a, int b)
{
    a = a < 0 ? 0 : a;
    b = b > height - 1 ? height - 1 : b;
    if (a <= b)
        memset(m + a, 1, (size_t)(b - a + 1));
}

int lsim_bloom_plan_rows(struct lsim_bloom_state *s, const lsim_kernel *k, int height, size_t beams, int coarse_halo)
{
    int32_t *row_of = s->row_of, *run = s->row_run, *ys = s->stored_y;
    uint8_t *m = s->row_mark;
    const int core = lsim_kernel_core_half(k);
    if (!coarse_halo || k->half_v <= core + HALO_ROW_STEP) {
        for (int y = 0; y < height; ++y)
            row_of[y] = run[y] = ys[y] = y;
        run[height] = height;
        return height;
    }
    memset(m, 0, (size_t)height);
    for (size_t i = 0; i < beams; ++i) {
        if (s->bu[i] < -k->half_u)
            continue; /* no window */
        const float v = s->vg[i];
        /* the blooming's row floor(v + 0.5) and the echo search's lrintf(v) (they differ at ties) */
        const int rv = (int)floor((double)v + 0.5), cv = s->cv[i];
        mark(m, height, (rv < cv ? rv : cv) - core, (rv > cv ? rv : cv) + core);
    }
    /* a row of the halo in every run of HALO_ROW_STEP rows without a core row: its middle */
    for (int y = 0; y < height; y += HALO_ROW_STEP) {
        const int e = y + HALO_ROW_STEP < height ? y + HALO_ROW_STEP : height;
        int any = 0;
        for (int r = y; r < e && !any; ++r)
            any = m[r];
        if (!any)
            m[y + (e - y) / 2] = 1;
    }
    int n = 0;
    for (int y = 0; y < height; ++y)
        if (m[y])
            ys[n++] = y;
    /* each row to the nearest rendered row (the lower at a tie): non-decreasing, steps of 0 or 1 */
    for (int y = 0, j = 0; y < height; ++y) {
        while (j + 1 < n && ys[j + 1] <= y)
            ++j;
        const int up = j + 1 < n && ys[j] < y && ys[j + 1] - y < y - ys[j];
        row_of[y] = y < ys[0] ? 0 : j + up;
        if (y == 0 || row_of[y] != row_of[y - 1])
            run[row_of[y]] = y;
    }
    run[n] = height;
    return n;
}
