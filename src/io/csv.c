#include "io/field_io.h"
#include "io/writers.h"

void lsim_csv_header(FILE *fp)
{
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        fprintf(fp, "%s%s", f ? "," : "", lsim_field_name((lsim_field)f));
    fputc('\n', fp);
}
