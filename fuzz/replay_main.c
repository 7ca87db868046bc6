/* Replays a harness over files without libFuzzer (built with gcc into `make test`): every
 * seed and every input that once crashed (fuzz/regressions/HARNESS/) runs under the normal
 * and the ASan+UBSan test builds. Usage: replay_HARNESS DIR|FILE ... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fprintf(stderr, "cannot read %s\n", path);
        free(buf);
        fclose(f);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n); /* a crash, leak or sanitizer report fails the test */
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, errors = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue; /* an optional folder (no regressions yet) */
        if (!S_ISDIR(st.st_mode)) {
            errors += replay_file(argv[i]);
            ++files;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, alphasort);
        for (int k = 0; k < n; ++k) {
            if (names[k]->d_name[0] != '.') {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
                errors += replay_file(path);
                ++files;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d inputs, %d unreadable\n", files, errors);
    return errors || files == 0;
}
