#include "io/atomic_file.h"
#include "io/field_io.h"
#include "io/writers.h"

lsim_status lsim_write_csv(const lsim_points *points, const char *path)
{
    lsim_atomic_group group;
    lsim_atomic_begin(&group, points->ctx);
    FILE *fp;
    lsim_status st = lsim_atomic_open(&group, path, &fp);
    if (st == LSIM_OK) {
        for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
            fprintf(fp, "%s%s", f ? "," : "", lsim_field_name((lsim_field)f));
        fputc('\n', fp);
        lsim_io_write_text_rows(points, fp, ',');
    }
    return lsim_atomic_finish(&group, st);
}
