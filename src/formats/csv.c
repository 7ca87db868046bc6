#include "formats/field_io.h"
#include "formats/writers.h"

void lsim_csv_header(FILE *fp, uint32_t columns)
{
    int first = 1;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        if (columns & LSIM_FIELD_BIT(f)) {
            fprintf(fp, "%s%s", first ? "" : ",", lsim_field_name((lsim_field)f));
            first = 0;
        }
    fputc('\n', fp);
}
