/* The two text forms of a Velodyne per-laser table besides JSON:
 *  - the ROS velodyne_pointcloud calibration YAML (libyaml): `lasers: [{laser_id, vert_correction,
 *    rot_correction, vert_offset_correction, horiz_offset_correction, ...}]`, `num_lasers`,
 *    `distance_resolution`; radians and metres;
 *  - VeloView's XML (libxml2), the db.xml Velodyne ships with each unit: DB/points_/item/px with
 *    id_, vertCorrection_, rotCorrection_, vertOffsetCorrection_, horizOffsetCorrection_ in degrees
 *    and centimetres, and distLSB_ (cm).
 * Messages name the file and line. */
#include "sensor/unit_calibration.h"

#include "core/context.h"
#include "core/vec.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- ROS YAML ---- */

static yaml_node_t *yaml_key(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

static lsim_status yaml_number(lsim_context *ctx, const char *path, yaml_document_t *doc, yaml_node_t *map,
                               const char *key, int optional, double *out)
{
    yaml_node_t *v = yaml_key(doc, map, key);
    if (!v) {
        if (optional)
            return LSIM_OK;
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: this laser has no '%s'", path, map->start_mark.line + 1, key);
    }
    char *end = NULL;
    const char *s = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
    double d = strtod(s, &end);
    if (v->type != YAML_SCALAR_NODE || end == s || *end != '\0' || !isfinite(d))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: %s: '%s' is not a finite number", path, v->start_mark.line + 1,
                         key, s);
    *out = d;
    return LSIM_OK;
}

lsim_status lsim_velodyne_read_yaml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                    lsim_velodyne_table *table)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    memset(table, 0, sizeof *table);
    if (!yaml_parser_initialize(&parser))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, size);
    if (!yaml_parser_load(&parser, &doc)) {
        lsim_status st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu:%zu: not valid YAML (%s)", path,
                                   parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                                   parser.problem ? parser.problem : "syntax error");
        yaml_parser_delete(&parser);
        return st;
    }
    yaml_parser_delete(&parser);
    lsim_status st = LSIM_OK;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_node_t *lasers = yaml_key(&doc, root, "lasers");
    if (!lasers || lasers->type != YAML_SEQUENCE_NODE) {
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: a velodyne_pointcloud calibration needs `lasers:` (a list of "
                       "{laser_id, vert_correction, rot_correction, ...})", path, root ? root->start_mark.line + 1 : 1);
        yaml_document_delete(&doc);
        return st;
    }
    st = yaml_number(ctx, path, &doc, root, "distance_resolution", 1, &table->distance_resolution_m);
    size_t n = (size_t)(lasers->data.sequence.items.top - lasers->data.sequence.items.start);
    if (st == LSIM_OK && (n < 1 || n > LSIM_VELODYNE_MAX_LASERS))
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: lasers has %zu entries, must be 1..%d", path,
                       lasers->start_mark.line + 1, n, LSIM_VELODYNE_MAX_LASERS);
    double count = (double)n;
    if (st == LSIM_OK)
        st = yaml_number(ctx, path, &doc, root, "num_lasers", 1, &count);
    if (st == LSIM_OK && count != (double)n)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: num_lasers is %g but lasers lists %zu", path, count, n);
    for (size_t i = 0; i < n && st == LSIM_OK; ++i) {
        yaml_node_t *l = yaml_document_get_node(&doc, lasers->data.sequence.items.start[i]);
        lsim_velodyne_laser *out = &table->laser[i];
        double id = -1.0;
        if (!l || l->type != YAML_MAPPING_NODE) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: lasers[%zu] is not a mapping", path,
                           l ? l->start_mark.line + 1 : 0, i);
            break;
        }
        if ((st = yaml_number(ctx, path, &doc, l, "laser_id", 0, &id)) == LSIM_OK &&
            (st = yaml_number(ctx, path, &doc, l, "vert_correction", 0, &out->vert_rad)) == LSIM_OK &&
            (st = yaml_number(ctx, path, &doc, l, "rot_correction", 1, &out->rot_rad)) == LSIM_OK &&
            (st = yaml_number(ctx, path, &doc, l, "vert_offset_correction", 1, &out->vert_offset_m)) == LSIM_OK)
            st = yaml_number(ctx, path, &doc, l, "horiz_offset_correction", 1, &out->horiz_offset_m);
        if (st == LSIM_OK && !(id == floor(id) && fabs(id) < 1e6))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: laser_id %g is not a whole number", path,
                           l->start_mark.line + 1, id);
        if (st == LSIM_OK)
            out->id = (int)id;
    }
    table->count = (int)n;
    yaml_document_delete(&doc);
    return st;
}

/* ---- VeloView XML ---- */

static xmlNode *xml_child(xmlNode *node, const char *name)
{
    for (xmlNode *c = node ? node->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
            return c;
    return NULL;
}

static lsim_status xml_number(lsim_context *ctx, const char *path, xmlNode *px, const char *name, int optional,
                              double *out)
{
    xmlNode *n = xml_child(px, name);
    if (!n) {
        if (optional)
            return LSIM_OK;
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: this laser (px) has no <%s>", path, xmlGetLineNo(px), name);
    }
    xmlChar *s = xmlNodeGetContent(n);
    char *end = NULL;
    double d = s ? strtod((const char *)s, &end) : NAN;
    int ok = s && end != (char *)s && isfinite(d);
    while (ok && *end && strchr(" \t\r\n", *end))
        ++end;
    ok = ok && *end == '\0';
    lsim_status st = ok ? LSIM_OK
                        : lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: <%s> '%s' is not a finite number", path,
                                    xmlGetLineNo(n), name, s ? (const char *)s : "");
    xmlFree(s);
    if (ok)
        *out = d;
    return st;
}

/* Every <px> under <points_>, depth first. */
static lsim_status xml_collect(lsim_context *ctx, const char *path, xmlNode *node, lsim_velodyne_table *t)
{
    for (xmlNode *c = node; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (strcmp((const char *)c->name, "px") == 0) {
            if (t->count >= LSIM_VELODYNE_MAX_LASERS)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: more than %d lasers", path, xmlGetLineNo(c),
                                 LSIM_VELODYNE_MAX_LASERS);
            lsim_velodyne_laser *l = &t->laser[t->count];
            double id = -1, vert = 0, rot = 0, voff = 0, hoff = 0;
            lsim_status st;
            if ((st = xml_number(ctx, path, c, "id_", 0, &id)) != LSIM_OK ||
                (st = xml_number(ctx, path, c, "vertCorrection_", 0, &vert)) != LSIM_OK ||
                (st = xml_number(ctx, path, c, "rotCorrection_", 1, &rot)) != LSIM_OK ||
                (st = xml_number(ctx, path, c, "vertOffsetCorrection_", 1, &voff)) != LSIM_OK ||
                (st = xml_number(ctx, path, c, "horizOffsetCorrection_", 1, &hoff)) != LSIM_OK)
                return st;
            if (!(id == floor(id) && fabs(id) < 1e6))
                return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: <id_> %g is not a whole number", path, xmlGetLineNo(c),
                                 id);
            /* VeloView: degrees and centimetres */
            *l = (lsim_velodyne_laser){(int)id, vert * LSIM_DEG, rot * LSIM_DEG, voff * 0.01, hoff * 0.01};
            t->count++;
            continue;
        }
        lsim_status st = xml_collect(ctx, path, c->children, t);
        if (st != LSIM_OK)
            return st;
    }
    return LSIM_OK;
}

lsim_status lsim_velodyne_read_xml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                   lsim_velodyne_table *table)
{
    memset(table, 0, sizeof *table);
    /* no network, no external entities, no DTD loading: a calibration is plain data */
    xmlDoc *doc = xmlReadMemory(text, (int)size, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        char why[160] = "syntax error";
        if (e && e->message) {
            snprintf(why, sizeof why, "%s", e->message);
            why[strcspn(why, "\n")] = '\0';
        }
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%d: not valid XML (%s)", path, e ? e->line : 0, why);
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    xmlNode *points = NULL;
    /* boost_serialization/DB/points_ (VeloView) or DB/points_ */
    xmlNode *db = root && strcmp((const char *)root->name, "DB") == 0 ? root : xml_child(root, "DB");
    points = xml_child(db, "points_");
    lsim_status st = LSIM_OK;
    if (!points)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: a VeloView calibration needs DB/points_/item/px elements", path);
    if (st == LSIM_OK)
        st = xml_collect(ctx, path, points->children, table);
    if (st == LSIM_OK && table->count == 0)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: DB/points_ lists no lasers (px)", path);
    double lsb_cm = 0.0;
    if (st == LSIM_OK && xml_child(db, "distLSB_")) {
        st = xml_number(ctx, path, db, "distLSB_", 1, &lsb_cm);
        if (st == LSIM_OK && !(lsb_cm >= 0.0 && lsb_cm <= 100.0))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: distLSB_ %g cm is out of range, must be 0..100", path, lsb_cm);
        table->distance_resolution_m = lsb_cm * 0.01;
    }
    xmlFreeDoc(doc);
    return st;
}
