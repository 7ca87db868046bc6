/* An object's label in a scene file is a SemanticKITTI class or one `labels:` declares (issue 23:
 * a misspelt `buiding` silently became a new class). `labels:` is a mapping of name: id or
 * name: auto, or a list of names (automatic ids). */
#include "files.h"
#include "harness.h"

#include "scene/scene.h"

#include "lidarsim.h"

#include <stdio.h>
#include <string.h>

static lsim_context *ctx;

static lsim_status load(const char *labels, const char *objects, lsim_scene **out)
{
    char text[2048];
    snprintf(text, sizeof text, "%sobjects:\n%s", labels, objects);
    const char *path = scratch_write_text("labels.yaml", text);
    *out = NULL;
    return lsim_scene_load(ctx, path, out, NULL);
}

static uint32_t label_of(const lsim_scene *s, size_t i) { return s->objects[i].label; }

int main(void)
{
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("scene_labels");
    lsim_scene *s;

    /* a misspelt class: refused at its line, naming the object, the label and the nearest class */
    CHECK(load("", "  - box: {size: [1, 1, 1]}\n    label: car\n  - box: {size: [1, 1, 1]}\n    label: buiding\n",
               &s) == LSIM_ERR_PARSE);
    const char *msg = lsim_context_last_error(ctx);
    printf("%s\n", msg);
    CHECK(strstr(msg, "labels.yaml:5:") && strstr(msg, "objects[1].label") && strstr(msg, "'buiding'") &&
          strstr(msg, "did you mean 'building'?") && strstr(msg, "labels:"));
    CHECK(load("", "  - box: {size: [1, 1, 1]}\n    label: trafic_sign\n", &s) == LSIM_ERR_PARSE);
    CHECK(strstr(lsim_context_last_error(ctx), "did you mean 'traffic-sign'?") != NULL);
    /* nothing near: no suggestion */
    CHECK(load("", "  - box: {size: [1, 1, 1]}\n    label: zebra-crossing-light\n", &s) == LSIM_ERR_PARSE);
    CHECK(strstr(lsim_context_last_error(ctx), "'zebra-crossing-light' is not") &&
          !strstr(lsim_context_last_error(ctx), "did you mean"));
    /* a class declared near a default one is its own class, and suggested for its misspelling */
    CHECK(load("labels: {kerbstone: 300}\n", "  - box: {size: [1, 1, 1]}\n    label: kerbston\n", &s) == LSIM_ERR_PARSE);
    CHECK(strstr(lsim_context_last_error(ctx), "did you mean 'kerbstone'?") != NULL);

    /* declared: by id, automatic in a mapping (after every explicit id), or a list */
    REQUIRE_OK(ctx, load("labels: {bollard: auto, kerb: 100, buiding: 300}\n",
                         "  - box: {size: [1, 1, 1]}\n    label: kerb\n"
                         "  - box: {size: [1, 1, 1]}\n    label: bollard\n"
                         "  - box: {size: [1, 1, 1]}\n    label: buiding\n"
                         "  - box: {size: [1, 1, 1]}\n    label: building\n"
                         "  - box: {size: [1, 1, 1]}\n",
                         &s));
    CHECK(label_of(s, 0) == 100);
    CHECK(label_of(s, 1) >= 101 && label_of(s, 1) <= 0xFFFF && label_of(s, 1) != 300);
    CHECK(label_of(s, 2) == 300 && label_of(s, 3) == 50 && label_of(s, 4) == 0);
    lsim_scene_destroy(s);
    REQUIRE_OK(ctx, load("labels: [gizmo, widget]\n",
                         "  - box: {size: [1, 1, 1]}\n    label: widget\n  - box: {size: [1, 1, 1]}\n    label: gizmo\n",
                         &s));
    CHECK(label_of(s, 0) >= 100 && label_of(s, 1) >= 100 && label_of(s, 0) != label_of(s, 1));
    lsim_scene_destroy(s);
    CHECK(load("labels: 5\n", "  - box: {size: [1, 1, 1]}\n", &s) == LSIM_ERR_PARSE);
    CHECK(strstr(lsim_context_last_error(ctx), "or a list of names") != NULL);

    /* the API still gives new names automatic ids (lsim_object_desc.label) */
    lsim_scene *api;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &api));
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.label = "target";
    REQUIRE_OK(ctx, lsim_scene_add_sphere(api, 1.0, &d));
    CHECK(label_of(api, 0) >= 100);
    lsim_scene_destroy(api);

    scratch_remove();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_scene_labels");
}
