/* Whitted recursion through mirrors and glass as a wavefront: the path trees of a group of
 * sub-rays advance one bounce depth at a time, so that every ray the optics needs is issued by the
 * pipeline as one batch per depth (the vertices' next rays, then their shadow rays: the sun and the
 * bistatic receiver). The optics never calls an engine: it fills ray batches and reads hit batches.
 *
 *   lsim_paths_begin; lsim_paths_add (a sub-ray whose first hit is known) ...
 *   while (lsim_paths_pending(p)) {
 *       lsim_paths_shade(o, p);                                   contributions, next rays, shadow rays
 *       engine occluded(&p->shadow_rays, p->shadow_count) -> p->blocked
 *       lsim_paths_resolve(p);                                    shadowed contributions, background
 *       n = lsim_paths_advance(o, p);                             the next depth's rays
 *       engine intersect(&p->rays, n) -> p->hits
 *       lsim_paths_hit(p);                                        hits onto the vertices
 *   }
 *   lsim_paths_contributions(p, member, &count) ...
 *
 * Every limit is per sub-ray (vertices per depth, contributions), so a sub-ray's result does not
 * depend on which other sub-rays share its group: output is the same whatever the slicing. */
#ifndef LSIM_OPTICS_WAVEFRONT_H
#define LSIM_OPTICS_WAVEFRONT_H

#include "optics/path.h"

/* Sub-rays whose trees advance together (a group). */
#define LSIM_PATH_GROUP 64
/* Vertices one sub-ray may have at one depth (2^5: max_bounces 5 of thin glass, every branch). */
#define LSIM_PATH_WIDTH 32
/* Contributions one sub-ray may give (the first ones, shallowest first). */
#define LSIM_PATH_CONTRIBUTIONS 32
#define LSIM_PATH_QUEUE (LSIM_PATH_GROUP * LSIM_PATH_WIDTH)

typedef struct lsim_path_vertex {
    float surface[3];   /* the surface point the ray leaves */
    float nudge[3];     /* the ray's origin is surface + nudge: off the surface, on the side it leaves by */
    float dir[3];
    float throughput;   /* one-way T */
    float optical;      /* one-way optical path so far (metres; glass counts ior x length) */
    float air;          /* one-way path in air so far (for the atmosphere) */
    float inside_ior;   /* 0 outside any glass, else the ior of the glass the ray is in */
    float time;         /* the beam's time within the sweep: every ray of its tree has it */
    uint32_t glass;     /* the glass object the ray is inside (valid while inside_ior > 0) */
    uint16_t member;    /* the sub-ray (group member) whose tree this is */
    uint8_t depth;
    /* the hit of the ray (known once traced): distance from `surface`, object, geometric normal */
    float t;
    uint32_t object;
    float ng[3];
} lsim_path_vertex;

/* A shadow ray's consequence: a contribution that needs the receiver to see its point, or ambient
 * light that needs the sun to reach it. */
typedef struct lsim_path_shadow {
    uint16_t member;
    uint8_t sun;           /* 1: background += amount when unblocked; 0: keep `c` when unblocked */
    float amount;
    lsim_contribution c;
} lsim_path_shadow;

typedef struct lsim_paths {
    lsim_path_vertex *cur, *next; /* this depth's vertices (hits known), the next depth's (untraced) */
    size_t cur_count, next_count;
    lsim_rays rays;               /* the next depth's rays (LSIM_PATH_QUEUE) */
    lsim_hits hits;
    lsim_rays shadow_rays;        /* this depth's shadow rays (2 x LSIM_PATH_GROUP) */
    uint8_t *blocked;
    lsim_path_shadow *shadow;
    size_t shadow_count;
    int members;
    int want_background;
    float weight[LSIM_PATH_GROUP];
    float receiver[LSIM_PATH_GROUP][3]; /* each member's receiver position (world) at its beam's time */
    float background[LSIM_PATH_GROUP];
    uint16_t count[LSIM_PATH_GROUP]; /* contributions of each member */
    uint16_t width[LSIM_PATH_GROUP]; /* next-depth vertices of each member */
    lsim_contribution *out;          /* member m's at out[m * LSIM_PATH_CONTRIBUTIONS] */
} lsim_paths;

int lsim_paths_alloc(lsim_paths *p);
void lsim_paths_free(lsim_paths *p);

/* Does a sub-ray whose first surface is `object` need the wavefront (a mirror or glass to follow,
 * a bistatic receiver, or sunlight to test)? Otherwise lsim_optics_first_return is its whole
 * answer. */
static inline int lsim_optics_needs_paths(const lsim_optics *o, uint32_t object, int want_background)
{
    if (object == LSIM_NO_HIT)
        return 0;
    const lsim_brdf_kind kind = o->surfaces->brdf[object].kind;
    return kind == LSIM_BRDF_MIRROR || kind == LSIM_BRDF_GLASS || o->baseline || (o->sun_level > 0.0f && want_background);
}

/* Start a group; want_background: the members' ambient light is wanted. */
void lsim_paths_begin(lsim_paths *p, int want_background);
/* Add a member (returns its index, or -1 when the group is full): a sub-ray from org along dir
 * (unit) at `time`, whose first hit (t, object, ng) is known; weight: its share of the beam;
 * receiver: where the bistatic receiver is at that time (world; NULL: the optics' receiver). */
int lsim_paths_add(lsim_paths *p, const float org[3], const float dir[3], float time, float t, uint32_t object,
                   const float ng[3], float weight, const float *receiver);
static inline int lsim_paths_pending(const lsim_paths *p) { return p->cur_count > 0; }
/* The current depth: each vertex's own return (or a shadow ray deciding it), the sun's shadow
 * rays (depth 0) and the reflected and refracted rays of the next depth. */
void lsim_paths_shade(const lsim_optics *o, lsim_paths *p);
/* Apply p->blocked (filled by the engine for p->shadow_rays) to the pending contributions and
 * ambient light. */
void lsim_paths_resolve(lsim_paths *p);
/* Make the next depth current and fill p->rays with its rays; returns how many to trace. */
size_t lsim_paths_advance(const lsim_optics *o, lsim_paths *p);
/* Take the traced hits (p->hits) onto the current vertices; misses leave the wavefront. */
void lsim_paths_hit(lsim_paths *p);
/* Member m's contributions (count in *n) and ambient light. */
static inline const lsim_contribution *lsim_paths_contributions(const lsim_paths *p, int m, int *n)
{
    *n = p->count[m];
    return p->out + (size_t)m * LSIM_PATH_CONTRIBUTIONS;
}

#endif
