/* lsim_sensor_describe: the sensor's key numbers as text (what `lidarsim presets NAME` prints),
 * snprintf-style: the whole length returned, truncated output always NUL-terminated. */
#include "harness.h"

#include "lidarsim.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    lsim_context *ctx;
    lsim_sensor *s;
    CHECK(lsim_context_create(&ctx) == LSIM_OK);
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &s));
    size_t n = lsim_sensor_describe(s, NULL, 0);
    CHECK(n > 100);
    char *text = malloc(n + 1);
    CHECK(text != NULL);
    CHECK(lsim_sensor_describe(s, text, n + 1) == n);
    CHECK(strlen(text) == n);
    CHECK(strncmp(text, "name: vlp16\n", 12) == 0);
    CHECK(strstr(text, "\nkind: rotating\n") != NULL);
    CHECK(strstr(text, "\nbeams: 28928\n") != NULL);
    CHECK(strstr(text, "\nchannels: 16\n") != NULL);
    CHECK(text[n - 1] == '\n');
    /* truncated: what fits, NUL-terminated, the same total returned */
    char small[20];
    memset(small, 'x', sizeof small);
    CHECK(lsim_sensor_describe(s, small, sizeof small) == n);
    CHECK(small[19] == '\0' && strncmp(small, text, 19) == 0);
    char one[1] = {'x'};
    CHECK(lsim_sensor_describe(s, one, 1) == n && one[0] == '\0');
    CHECK(lsim_sensor_describe(NULL, small, sizeof small) == 0 && small[0] == '\0');
    free(text);
    lsim_sensor_destroy(s);

    REQUIRE_OK(ctx, lsim_sensor_create_planar(ctx, 270.0, 541, 15.0, &s));
    char buf[4096];
    CHECK(lsim_sensor_describe(s, buf, sizeof buf) < sizeof buf);
    CHECK(strstr(buf, "kind: planar\n") != NULL && strstr(buf, "steps: 541\n") != NULL);
    lsim_sensor_destroy(s);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_sensor_describe");
}
