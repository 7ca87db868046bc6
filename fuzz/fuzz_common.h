/* Shared by the libFuzzer harnesses: each input becomes a file in a per-process scratch
 * folder (lidarsim's readers take paths), beside fixed companion files that inputs may name
 * (pattern.csv, kernel.txt, calibration.yaml, scan.txt). No mesh: mesh import forks a
 * contained importer per file, which would slow the scene harness ~50x; fuzz_mesh covers it. */
#ifndef LSIM_FUZZ_COMMON_H
#define LSIM_FUZZ_COMMON_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* nftw */
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>

static char fuzz_dir[256];

static inline void fuzz_put(const char *name, const void *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
}

static inline void fuzz_put_text(const char *name, const char *text) { fuzz_put(name, text, strlen(text)); }

static inline int fuzz_unlink(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static inline void fuzz_cleanup(void)
{
    if (fuzz_dir[0])
        nftw(fuzz_dir, fuzz_unlink, 16, FTW_DEPTH | FTW_PHYS);
}

/* The scratch folder, made once per process with the companion files; removed at exit. */
static inline const char *fuzz_scratch(void)
{
    if (fuzz_dir[0])
        return fuzz_dir;
    const char *base = getenv("FUZZ_SCRATCH"); /* run.sh points this at a folder it removes */
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/lidarsim-fuzz-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(fuzz_dir))
        abort();
    atexit(fuzz_cleanup);
    fuzz_put_text("pattern.csv", "azimuth_deg,elevation_deg,time_s,ring\n0,0,0,0\n10,1,0.001,1\n-10,-1,0.002,0\n");
    fuzz_put_text("kernel.txt", "step_deg: 0.1\nh: 0.01 0.5 1 0.5 0.01\nv: 0.01 0.5 1 0.5 0.01\n");
    fuzz_put_text("scan.txt", "0.5,47,3.14\ninf,0,3.13\n0.51,47,3.12\n0.5,47,3.14\n");
    fuzz_put_text("calibration.yaml",
                  "# lidarsim calibration (format: docs/calibration.md). Per material: the board found in the\n"
                  "# scan, statistics per incidence-angle bin, and the BRDF fitted to the bins' mean intensity.\n"
                  "lidarsim_calibration: 1\n"
                  "sensor: rplidar-a1\n"
                  "materials:\n"
                  "  - name: wall\n"
                  "    source: \"scan.txt\"\n"
                  "    configured_distance_m: 0.457\n"
                  "    fitted_distance_m: 0.3844821190371455\n"
                  "    normal_angle_rad: -3.133784870761075   # -179.553 deg\n"
                  "    configured_width_m: 1.25\n"
                  "    board_width_m: 1.25\n"
                  "    board_offset_m: -0.003002013889611188\n"
                  "    band_m: 0.02\n"
                  "    outliers: 0\n"
                  "    revolutions: 54\n"
                  "    beams_per_revolution: 720\n"
                  "    bin_width_deg: 2\n"
                  "    brdf:\n"
                  "      type: oren-nayar\n"
                  "      reflectance: 0.5\n"
                  "      roughness: 0.691194975040477\n"
                  "      scale: 133.3053491424013\n"
                  "      rms: 0.052506354776518945\n"
                  "    brdf_configured:\n"
                  "      type: oren-nayar\n"
                  "      reflectance: 0.5\n"
                  "      roughness: 0.5\n"
                  "    bins:\n"
                  "      - {angle_deg: 1, n: 378, mean_intensity: 47, std_intensity: 0, std_range_m: 0.00039013536532078535, drop_rate: 0, mean_range_m: -0.00034754107419441075}\n"
                  "      - {angle_deg: 3, n: 432, mean_intensity: 47, std_intensity: 0, std_range_m: 0.0002215117548769896, drop_rate: 0, mean_range_m: -8.376885063166029e-06}\n"
                  "      - {angle_deg: 5, n: 432, mean_intensity: 47, std_intensity: 0, std_range_m: 0.0005162634977034145, drop_rate: 0, mean_range_m: -0.00031985812829684923}\n");
    return fuzz_dir;
}

/* Path of `name` in the scratch folder. */
static inline const char *fuzz_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_scratch(), name);
    return path;
}

#endif
