/* Leftovers of killed validate / calibrate runs (output/output_set.h, issue 23): a run killed with
 * SIGKILL leaves its staging folder ".lidarsim-COMMAND.XXXXXX" in the output folder and its
 * "FILE.part.PID.N" beside a single output. A successful run of the same command removes
 *   - staging folders of that command that no live run holds (their lock can be taken), and
 *   - part files of its single outputs whose process is gone,
 * and leaves alone: a staging folder a live run holds (locked here), another command's, names that
 * only look alike (5 or 7 letters, a suffix), a staging folder with a sub-folder in it, the user's
 * files, part files of a live process, of another file, or not of the PID.N form. */
#include "harness.h"
#include "files.h"

#include "output/output_set.h"

#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static lsim_context *ctx;

static void touch(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        exit(1);
    }
    fputs("x", fp);
    fclose(fp);
}

static void make(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mkdir(path, 0777) != 0) {
        perror(path);
        exit(1);
    }
}

static int there(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* A PID that was a process and is gone. */
static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return (long)p;
}

int main(void)
{
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("leftovers");
    char out[300], other[300], path[600], name[128];
    snprintf(out, sizeof out, "%s/out", scratch_dir);
    snprintf(other, sizeof other, "%s/single", scratch_dir);
    make(scratch_dir, "out");
    make(scratch_dir, "single");

    /* a dead run's staging folder, with the files it was writing */
    make(out, ".lidarsim-validate.AbC123");
    touch(out, ".lidarsim-validate.AbC123/validation.csv");
    touch(out, ".lidarsim-validate.AbC123/white_view.png");
    make(out, ".lidarsim-validate.zzzzzz");
    /* a live run's: its lock held here */
    make(out, ".lidarsim-validate.Live99");
    touch(out, ".lidarsim-validate.Live99/validation.csv");
    snprintf(path, sizeof path, "%s/.lidarsim-validate.Live99", out);
    const int live = open(path, O_RDONLY | O_DIRECTORY);
    CHECK(live >= 0 && flock(live, LOCK_EX | LOCK_NB) == 0);
    /* look-alikes and the user's own */
    static const char *const keep_dirs[] = {".lidarsim-calibrate.AbC123", ".lidarsim-validate.AbC12",
                                            ".lidarsim-validate.AbC1234", "lidarsim-validate.AbC123",
                                            ".lidarsim-validate.Nested"};
    for (size_t i = 0; i < sizeof keep_dirs / sizeof *keep_dirs; ++i)
        make(out, keep_dirs[i]);
    make(out, ".lidarsim-validate.Nested/sub");
    touch(out, "notes.txt");
    touch(out, ".lidarsim-validate.File00"); /* a plain file of that name */

    /* part files beside the single output */
    const long gone = dead_pid();
    char dead_part[128], live_part[128];
    snprintf(dead_part, sizeof dead_part, "cal.yaml.part.%ld.0", gone);
    snprintf(live_part, sizeof live_part, "cal.yaml.part.%ld.3", (long)getppid());
    touch(other, dead_part);
    touch(other, live_part);
    static const char *const keep_files[] = {"cal.yaml.part.x.0", "cal.yaml.part.12", "cal.yaml.partial",
                                             "cal.yaml.part.5.0.bak"};
    for (size_t i = 0; i < sizeof keep_files / sizeof *keep_files; ++i)
        touch(other, keep_files[i]);
    snprintf(name, sizeof name, "other.yaml.part.%ld.0", gone);
    touch(other, name);

    /* a successful run */
    lsim_output_set o;
    lsim_output_set_init(&o, ctx, "validate");
    char tmp[4096], single[600], single_tmp[4096];
    REQUIRE_OK(ctx, lsim_output_set_folder(&o, out, "output folder"));
    REQUIRE_OK(ctx, lsim_output_set_add(&o, "validation", ".csv", tmp, sizeof tmp));
    FILE *fp = fopen(tmp, "w");
    CHECK(fp != NULL);
    if (fp) {
        fputs("new", fp);
        fclose(fp);
    }
    snprintf(single, sizeof single, "%s/cal.yaml", other);
    REQUIRE_OK(ctx, lsim_output_set_add_file(&o, single, single_tmp, sizeof single_tmp));
    fp = fopen(single_tmp, "w");
    if (fp) {
        fputs("cal", fp);
        fclose(fp);
    }
    /* while it runs, its own staging folder is held: another set cannot take the lock */
    *strrchr(tmp, '/') = '\0'; /* the staging folder */
    const int probe = open(tmp, O_RDONLY | O_DIRECTORY);
    CHECK(probe >= 0 && flock(probe, LOCK_EX | LOCK_NB) != 0);
    if (probe >= 0)
        close(probe);
    REQUIRE_OK(ctx, lsim_output_set_commit(&o));

    CHECK(there(out, "validation.csv") && there(other, "cal.yaml"));
    CHECK(!there(out, ".lidarsim-validate.AbC123") && !there(out, ".lidarsim-validate.zzzzzz"));
    CHECK(there(out, ".lidarsim-validate.Live99/validation.csv"));
    for (size_t i = 0; i < sizeof keep_dirs / sizeof *keep_dirs; ++i)
        CHECK(there(out, keep_dirs[i]));
    CHECK(there(out, ".lidarsim-validate.Nested/sub"));
    CHECK(there(out, "notes.txt") && there(out, ".lidarsim-validate.File00"));
    CHECK(!there(other, dead_part));
    CHECK(there(other, live_part));
    for (size_t i = 0; i < sizeof keep_files / sizeof *keep_files; ++i)
        CHECK(there(other, keep_files[i]));
    CHECK(there(other, name));

    /* a failed run removes nothing of others */
    close(live);
    lsim_output_set_init(&o, ctx, "validate");
    REQUIRE_OK(ctx, lsim_output_set_folder(&o, out, "output folder"));
    lsim_output_set_abort(&o);
    CHECK(there(out, ".lidarsim-validate.Live99/validation.csv"));

    remove_tree(scratch_dir);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_output_leftovers");
}
