/* VeloView's XML calibration (libxml2), the db.xml Velodyne ships with each unit:
 * DB/points_/item/px with id_, vertCorrection_, rotCorrection_, vertOffsetCorrection_,
 * horizOffsetCorrection_ in degrees and centimetres, and distLSB_ (cm). Messages name the file
 * and line.
 *
 * A calibration is plain data, and the parser is held to that while it reads (SAX callbacks in
 * front of libxml2's tree builder): no network, no DTD loaded; a DOCTYPE may only name the root
 * (`<!DOCTYPE boost_serialization>`, as VeloView writes it), so no entity is ever declared, and
 * the parse stops at the first entity reference, past LSIM_VELODYNE_XML_MAX_NODES nodes or
 * LSIM_VELODYNE_XML_MAX_DEPTH levels. (One internal entity referenced 20,000 times in 66 KB
 * expanded to ~2 GB before.) */
#include "sensor/unit_calibration.h"

#include "core/context.h"
#include "core/vec.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
                        : lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: <%s> '%.40s%s' is not a finite number",
                                    path, xmlGetLineNo(n), name, s ? (const char *)s : "",
                                    s && strlen((const char *)s) > 40 ? "..." : "");
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

/* The parse's bounds, reached from the SAX callbacks through ctxt->_private. */
typedef struct xml_guard {
    lsim_context *ctx;
    const char *path;
    size_t nodes;
    int depth;
    int refused; /* the parser was stopped; the message is in ctx */
} xml_guard;

static void refuse(xmlParserCtxtPtr ctxt, const char *fmt, const char *detail)
{
    xml_guard *g = ctxt->_private;
    if (g->refused)
        return;
    g->refused = 1;
    char what[512];
    snprintf(what, sizeof what, fmt, detail);
    lsim_fail(g->ctx, LSIM_ERR_PARSE, "%s:%d: %s", g->path, xmlSAX2GetLineNumber(ctxt), what);
    xmlStopParser(ctxt);
}

/* Count `n` more nodes; 0 once past the limit (the parser is stopped). */
static int count_nodes(xmlParserCtxtPtr ctxt, size_t n)
{
    xml_guard *g = ctxt->_private;
    g->nodes += n;
    if (g->nodes <= LSIM_VELODYNE_XML_MAX_NODES)
        return 1;
    char limit[32];
    snprintf(limit, sizeof limit, "%d", LSIM_VELODYNE_XML_MAX_NODES);
    refuse(ctxt, "more than %s XML nodes (elements, attributes, text, comments); a VeloView calibration has a few "
                 "thousand (refused to bound memory and time)", limit);
    return 0;
}

static void on_internal_subset(void *c, const xmlChar *name, const xmlChar *external_id, const xmlChar *system_id)
{
    xmlParserCtxtPtr ctxt = c;
    /* the parser stands on the `[` of an internal subset, if there is one */
    if (external_id || system_id || (ctxt->input && ctxt->input->cur && *ctxt->input->cur == '['))
        refuse(ctxt, "<!DOCTYPE %s ...> declares a DTD (an internal subset or an external one); a calibration is plain "
                     "data: lidarsim refuses DTDs and entities, leave only `<!DOCTYPE name>` or none",
               (const char *)name);
    else
        xmlSAX2InternalSubset(c, name, external_id, system_id);
}

static void on_entity_decl(void *c, const xmlChar *name, int type, const xmlChar *public_id, const xmlChar *system_id,
                           xmlChar *content)
{
    (void)type, (void)public_id, (void)system_id, (void)content;
    refuse(c, "the entity '%s' is declared; a calibration is plain data: lidarsim refuses DTDs and entities",
           (const char *)name);
}

static void on_reference(void *c, const xmlChar *name)
{
    refuse(c, "the entity reference &%s; is refused; a calibration is plain data (write the value itself)",
           (const char *)name);
}

static void on_start(void *c, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri, int n_ns,
                     const xmlChar **ns, int n_attr, int n_defaulted, const xmlChar **attr)
{
    xmlParserCtxtPtr ctxt = c;
    xml_guard *g = ctxt->_private;
    if (!count_nodes(ctxt, 1 + (size_t)n_ns + (size_t)n_attr))
        return;
    if (++g->depth > LSIM_VELODYNE_XML_MAX_DEPTH) {
        char limit[32];
        snprintf(limit, sizeof limit, "%d", LSIM_VELODYNE_XML_MAX_DEPTH);
        refuse(ctxt, "elements nested deeper than %s levels; a VeloView calibration has 6", limit);
        return;
    }
    xmlSAX2StartElementNs(c, local, prefix, uri, n_ns, ns, n_attr, n_defaulted, attr);
}

static void on_end(void *c, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
    xmlParserCtxtPtr ctxt = c;
    xml_guard *g = ctxt->_private;
    --g->depth;
    xmlSAX2EndElementNs(c, local, prefix, uri);
}

static void on_text(void *c, const xmlChar *text, int len)
{
    if (count_nodes(c, 1))
        xmlSAX2Characters(c, text, len);
}

static void on_cdata(void *c, const xmlChar *text, int len)
{
    if (count_nodes(c, 1))
        xmlSAX2CDataBlock(c, text, len);
}

static void on_comment(void *c, const xmlChar *text)
{
    if (count_nodes(c, 1))
        xmlSAX2Comment(c, text);
}

static void on_pi(void *c, const xmlChar *target, const xmlChar *data)
{
    if (count_nodes(c, 1))
        xmlSAX2ProcessingInstruction(c, target, data);
}

/* The document, parsed under the guard. */
static lsim_status xml_parse(lsim_context *ctx, const char *path, const char *text, size_t size, xmlDoc **out)
{
    *out = NULL;
    if (size > INT_MAX)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %zu bytes is too large for an XML calibration", path, size);
    xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(text, (int)size);
    if (!ctxt)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", path);
    xml_guard guard = {ctx, path, 0, 0, 0};
    ctxt->_private = &guard;
    /* no network, no external entities, no DTD loading, no entity substitution */
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlSAXHandlerPtr sax = ctxt->sax;
    sax->internalSubset = on_internal_subset;
    sax->externalSubset = NULL;
    sax->entityDecl = on_entity_decl;
    sax->reference = on_reference;
    sax->startElementNs = on_start;
    sax->endElementNs = on_end;
    sax->characters = on_text;
    sax->ignorableWhitespace = on_text;
    sax->cdataBlock = on_cdata;
    sax->comment = on_comment;
    sax->processingInstruction = on_pi;
    xmlParseDocument(ctxt);
    xmlDoc *doc = ctxt->myDoc;
    ctxt->myDoc = NULL;
    lsim_status st = guard.refused ? LSIM_ERR_PARSE : LSIM_OK; /* refuse() said why */
    if (st == LSIM_OK && (!ctxt->wellFormed || !doc)) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char why[160] = "syntax error";
        if (e && e->message) {
            snprintf(why, sizeof why, "%s", e->message);
            why[strcspn(why, "\n")] = '\0';
        }
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%d: not valid XML (%s)", path, e ? e->line : 0, why);
    }
    xmlFreeParserCtxt(ctxt);
    if (st != LSIM_OK)
        xmlFreeDoc(doc);
    else
        *out = doc;
    return st;
}

lsim_status lsim_velodyne_read_xml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                   lsim_velodyne_table *table)
{
    memset(table, 0, sizeof *table);
    xmlDoc *doc = NULL;
    lsim_status parsed = xml_parse(ctx, path, text, size, &doc);
    if (parsed != LSIM_OK)
        return parsed;
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
