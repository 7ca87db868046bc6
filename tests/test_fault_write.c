/* The atomic output writer (output/atomic_file.h) under faults, through the library:
 *   - a directory removed between lsim_atomic_open and the commit: LSIM_ERR_IO naming the path,
 *     nothing created;
 *   - a group whose second file cannot be moved into place: the first, already renamed, is removed;
 *   - a group with a straight-through /dev/full member: the commit fails with "No space left" and
 *     the regular member is not created;
 *   - abort, a failed open in the middle of a group: no temporary file left;
 *   - while writing, the folder shows no entry (O_TMPFILE) or one named temporary (fallback);
 *   - the signal mask is the same after a commit as before;
 *   - a replaced file keeps its permission bits; a symlink stays a link and its target is replaced;
 *   - lsim_atomic_check creates nothing and does not open a FIFO (it would wait for a reader);
 *     lsim_atomic_remove removes a link's target and leaves FIFOs and directories alone;
 *   - a directory as output is refused. */
#include "harness.h"
#include "files.h"

#include "output/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static lsim_context *ctx;

static int file_is(const char *path, const char *content)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return strcmp(buf, content) == 0;
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0) {
        perror(path);
        exit(1);
    }
}

static void test_vanished_directory(void)
{
    char dir[256], path[300];
    path_join(dir, sizeof dir, scratch_dir, "vanish");
    make_dir(dir);
    path_join(path, sizeof path, dir, "out.pcd");
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp;
    REQUIRE_OK(ctx, lsim_atomic_open(&g, path, &fp));
    fputs("some points\n", fp);
    remove_tree(dir); /* with a named temporary file (no O_TMPFILE), that goes too */
    CHECK(access(dir, F_OK) != 0);
    CHECK(lsim_atomic_commit(&g) == LSIM_ERR_IO);
    CHECK(message_has(ctx, path, "does not exist"));
    CHECK(access(dir, F_OK) != 0 && access(path, F_OK) != 0);
    CHECK(g.count == 0);
}

static void test_group_rollback(void)
{
    char a[256], b[256], pa[300], pb[300];
    path_join(a, sizeof a, scratch_dir, "ga");
    path_join(b, sizeof b, scratch_dir, "gb");
    make_dir(a);
    make_dir(b);
    path_join(pa, sizeof pa, a, "x.bin");
    path_join(pb, sizeof pb, b, "x.label");
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fa, *fb;
    REQUIRE_OK(ctx, lsim_atomic_open(&g, pa, &fa));
    REQUIRE_OK(ctx, lsim_atomic_open(&g, pb, &fb));
    fputs("bin", fa);
    fputs("label", fb);
    remove_tree(b);
    CHECK(lsim_atomic_finish(&g, LSIM_OK) == LSIM_ERR_IO);
    CHECK(message_has(ctx, pb, "no output was written"));
    CHECK(count_entries(a, "") == 0); /* x.bin was renamed first, then removed again */
    remove_tree(a);
}

static void test_direct_member_fails(void)
{
    if (access("/dev/full", W_OK) != 0) {
        printf("SKIP: no writable /dev/full\n");
        return;
    }
    char dir[256], path[300];
    path_join(dir, sizeof dir, scratch_dir, "full");
    make_dir(dir);
    path_join(path, sizeof path, dir, "cloud.pcd");
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *f1, *f2;
    REQUIRE_OK(ctx, lsim_atomic_open(&g, path, &f1));
    REQUIRE_OK(ctx, lsim_atomic_open(&g, "/dev/full", &f2));
    CHECK(g.file[1].kind == LSIM_ATOMIC_DIRECT && g.file[0].kind != LSIM_ATOMIC_DIRECT);
    fputs("points", f1);
    for (int i = 0; i < 10000; ++i)
        fputs("0123456789", f2);
    CHECK(lsim_atomic_commit(&g) == LSIM_ERR_IO);
    CHECK(message_has(ctx, "/dev/full", strerror(ENOSPC)));
    CHECK(count_entries(dir, "") == 0);
    struct stat st;
    CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    remove_tree(dir);
}

static void test_abort_and_failed_open(void)
{
    char dir[256], p1[300], p2[300];
    path_join(dir, sizeof dir, scratch_dir, "abort");
    make_dir(dir);
    path_join(p1, sizeof p1, dir, "a.pcd");
    path_join(p2, sizeof p2, dir, "missing/b.pcd");
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp;
    REQUIRE_OK(ctx, lsim_atomic_open(&g, p1, &fp));
    fputs("data", fp);
    /* While writing: nothing visible with O_TMPFILE, one named temporary file without. */
    int visible = count_entries(dir, NULL);
    CHECK(visible == (g.file[0].kind == LSIM_ATOMIC_NAMED ? 1 : 0));
    if (g.file[0].kind == LSIM_ATOMIC_NAMED)
        printf("note: no O_TMPFILE in %s; the named temporary file fallback is used\n", dir);
    CHECK(lsim_atomic_open(&g, p2, &fp) == LSIM_ERR_IO);
    CHECK(message_has(ctx, p2, "does not exist"));
    CHECK(g.count == 1);
    lsim_atomic_abort(&g);
    CHECK(g.count == 0);
    CHECK(count_entries(dir, "") == 0);
    lsim_atomic_abort(&g); /* idempotent */
    remove_tree(dir);
}

static int same_mask(const sigset_t *a, const sigset_t *b)
{
    for (int s = 1; s < 32; ++s)
        if (sigismember(a, s) != sigismember(b, s))
            return 0;
    return 1;
}

static void test_replace_keeps_mode_and_mask(void)
{
    char dir[256], path[300];
    path_join(dir, sizeof dir, scratch_dir, "mode");
    make_dir(dir);
    path_join(path, sizeof path, dir, "old.csv");
    FILE *fp = fopen(path, "w");
    fputs("old", fp);
    fclose(fp);
    chmod(path, 0604);
    sigset_t before, after;
    sigemptyset(&before);
    sigaddset(&before, SIGUSR1); /* something blocked already, to see it is kept */
    sigprocmask(SIG_BLOCK, &before, NULL);
    sigprocmask(SIG_BLOCK, NULL, &before);
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    REQUIRE_OK(ctx, lsim_atomic_open(&g, path, &fp));
    fputs("new", fp);
    REQUIRE_OK(ctx, lsim_atomic_commit(&g));
    sigprocmask(SIG_BLOCK, NULL, &after);
    CHECK(same_mask(&before, &after));
    CHECK(sigismember(&after, SIGTERM) == 0 && sigismember(&after, SIGINT) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0604);
    CHECK(file_is(path, "new"));
    CHECK(count_entries(dir, ".tmp.") == 0);
    remove_tree(dir);
}

static void test_symlink_target(void)
{
    char dir[256], target[300], link[300], sub[300];
    path_join(dir, sizeof dir, scratch_dir, "links");
    make_dir(dir);
    path_join(sub, sizeof sub, dir, "sub");
    make_dir(sub);
    path_join(target, sizeof target, sub, "t.ply");
    path_join(link, sizeof link, dir, "l.ply");
    CHECK(symlink("sub/t.ply", link) == 0); /* dangling, relative */
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp;
    REQUIRE_OK(ctx, lsim_atomic_open(&g, link, &fp));
    fputs("first", fp);
    REQUIRE_OK(ctx, lsim_atomic_commit(&g));
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(file_is(target, "first"));
    lsim_atomic_begin(&g, ctx);
    REQUIRE_OK(ctx, lsim_atomic_open(&g, link, &fp));
    fputs("second", fp);
    REQUIRE_OK(ctx, lsim_atomic_commit(&g));
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && file_is(target, "second"));
    /* lsim_atomic_remove: the target goes, the link stays */
    lsim_atomic_remove(link);
    CHECK(access(target, F_OK) != 0 && lstat(link, &st) == 0);
    remove_tree(dir);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_fault_write: lsim_atomic_check opened a FIFO and waited for a reader\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
}

static void test_check_and_remove(void)
{
    char dir[256], path[300], fifo[300];
    path_join(dir, sizeof dir, scratch_dir, "check");
    make_dir(dir);
    path_join(path, sizeof path, dir, "c.pcd");
    path_join(fifo, sizeof fifo, dir, "pipe.csv");
    REQUIRE_OK(ctx, lsim_atomic_check(ctx, path));
    CHECK(count_entries(dir, "") == 0);
    CHECK(lsim_atomic_check(ctx, dir) == LSIM_ERR_IO && message_has(ctx, dir, "directory"));
    char missing[300];
    path_join(missing, sizeof missing, dir, "no/c.pcd");
    CHECK(lsim_atomic_check(ctx, missing) == LSIM_ERR_IO && message_has(ctx, missing, "does not exist"));
    CHECK(lsim_atomic_check(ctx, "") == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_atomic_check(ctx, "-") == LSIM_OK && lsim_atomic_is_direct("-"));
    CHECK(mkfifo(fifo, 0666) == 0);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)lsim_test_time_limit(20));
    CHECK(lsim_atomic_check(ctx, fifo) == LSIM_OK); /* would block if it opened the FIFO */
    alarm(0);
    CHECK(lsim_atomic_is_direct(fifo) && !lsim_atomic_is_direct(path));
    lsim_atomic_remove(fifo);
    lsim_atomic_remove(dir);
    lsim_atomic_remove("-");
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    /* A directory as output is refused by open too; a path ending in '/' as well. */
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp;
    CHECK(lsim_atomic_open(&g, dir, &fp) == LSIM_ERR_IO && fp == NULL && message_has(ctx, "is a directory", NULL));
    char slash[300];
    snprintf(slash, sizeof slash, "%s/new/", dir);
    CHECK(lsim_atomic_open(&g, slash, &fp) == LSIM_ERR_IO && message_has(ctx, "names a directory", NULL));
    CHECK(g.count == 0);
    remove_tree(dir);
}

int main(void)
{
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("faultwrite");
    test_vanished_directory();
    test_group_rollback();
    test_direct_member_fails();
    test_abort_and_failed_open();
    test_replace_keeps_mode_and_mask();
    test_symlink_target();
    test_check_and_remove();
    CHECK(count_entries(scratch_dir, "") == 0);
    remove_tree(scratch_dir);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_fault_write");
}
