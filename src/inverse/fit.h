/* The fit's state, shared by its files: fit.c (parameters), fit_walk.c (each beam's path through
 * mirrors and glass, traced by the engine), fit_eval.c (loss and gradient), fit_mix.c (a
 * continuous-wave beam's sub-rays mixed into one phase, and its derivative), fit_run.c (L-BFGS).
 * A beam of S sub-rays (beam.mode rays, CW receiver) walks S rays: ray q = beam * S + s; paths,
 * vertices and models are per ray. */
#ifndef LSIM_INVERSE_FIT_H
#define LSIM_INVERSE_FIT_H

#include "core/dual.h"
#include "core/vec.h"
#include "lidarsim.h"
#include "optics/path_dual.h"
#include "optics/subrays.h"
#include "sensor/sensor.h"

#include <stddef.h>
#include <stdint.h>

#define LSIM_FIT_MAX_PARAMS LSIM_DUAL_N
#define LSIM_FIT_MAX_OBJECTS 4    /* posed objects */
#define LSIM_FIT_MAX_VERTICES 12  /* of a beam's path: bounces + the return */
#define LSIM_FIT_SILHOUETTE_JUMP 0.10
#define LSIM_FIT_CREASE_COS 0.98480775301220806 /* cos 10 deg */

typedef enum fit_param_kind { FIT_SENSOR = 0, FIT_OBJECT, FIT_REFLECTANCE, FIT_BIAS } fit_param_kind;

typedef struct fit_param {
    fit_param_kind kind;
    int which;          /* FIT_OBJECT: posed-object slot; FIT_REFLECTANCE: material index; FIT_BIAS: 0..2 */
    int axis;           /* pose parameters: 0..5 = x, y, z, roll, pitch, yaw */
    double lower, upper; /* bounds (bounded = 1) */
    int bounded;
} fit_param;

/* A posed object: its slot's pose (position, rpy radians), from which parameters override axes. */
typedef struct fit_object {
    uint32_t object; /* scene object index */
    double pose[6];
} fit_object;

/* A beam's path as the walk found it (world frame, at the evaluation's parameters). */
typedef struct fit_path {
    int n;                 /* vertices */
    int returned;          /* 1: the last vertex is a return (a surface that is neither mirror nor glass) */
    double range;          /* optical one-way length to the last vertex */
    uint32_t signature;    /* hash of the objects met, in order */
    int bounced;           /* passed a mirror or refracting glass */
    double throughput2;    /* the square of the one-way throughput of its mirrors and glass */
    double air;            /* length through air (extinction) */
} fit_path;

/* A used beam's model: its path up to the return (lsim_fit.model_vertex, posed objects' vertices
 * in their object's frame), taken where the last simulation was; re-traced at other parameters it
 * gives the range the simulation would, to first order (exactly, while the path meets the same
 * tangent planes). */
typedef struct fit_model {
    int n;          /* vertices */
    int refl;       /* parameter index of the return surface's reflectance, -1 */
    double amp0;    /* the scan's amplitude there */
    double shape0;  /* rho cos / t^2 there (refl >= 0) */
    double offset;  /* the scan's range minus the re-trace's (plus the bias) there */
    /* a sub-ray beam (fit_mix.c): per ray n (0: no return), refl, amp0 (its amplitude as the optics
     * gives it, before amp_scale) and shape0; on the beam's first ray also offset, and: */
    double amp_scale; /* the scan's amplitude over the mix's, where the model was taken */
    double ref;       /* the scan's range there: the whole wavelengths of each frequency's phase */
} fit_model;

struct lsim_fit {
    lsim_context *ctx;
    lsim_scene *scene;
    lsim_sensor *sensor;
    double sensor_pose[6];  /* the sensor's pose (position, rpy radians) */
    int count;
    fit_param param[LSIM_FIT_MAX_PARAMS];
    double params[LSIM_FIT_MAX_PARAMS];
    int object_count;
    fit_object objects[LSIM_FIT_MAX_OBJECTS];
    int *refl_of_material;  /* [material_count]: its parameter index, -1 */
    int has_bias;
    int loss;               /* lsim_fit_loss */
    double loss_scale;
    float *real_amp;        /* [beams] or NULL: amplitudes to fit */
    double amp_weight;
    size_t beams, stride;   /* stride: from a beam to the next beam of its ring */
    float *real;            /* [beams] */
    double *dir, *org;      /* [3 beams]: beam direction and origin, sensor frame */
    int sub;                /* sub-rays a beam (1: one ray; > 1: beam.mode rays with the CW receiver) */
    lsim_subrays subrays;   /* their layout, as the scan makes it */
    lsim_beam_spec beam;    /* the sensor's beam when the fit was made (lsim_fit_check) */
    double bias_gain;       /* the CW bias's amplitude gain: the sub-rays' count (receiver/cw.h bias_gain) */
    uint16_t *ring;         /* [beams] */
    size_t material_count, object_count_at_create; /* the scene's, when the fit was made */
    lsim_points *points;
    lsim_scan_options opt;
    /* the walk: per ray its path and vertices (world frame, object index per vertex) */
    fit_path *path;                 /* [rays] */
    lsim_path_vertex *vertex;       /* [rays * LSIM_FIT_MAX_VERTICES] */
    uint32_t *vertex_object;        /* [rays * LSIM_FIT_MAX_VERTICES] */
    double *vertex_optical;         /* [rays * LSIM_FIT_MAX_VERTICES]: optical length up to the vertex */
    void *walk;                     /* fit_walk.c's ray and hit batches */
    uint8_t *beam_status;           /* [beams]: lsim_fit_beam of the last evaluation */
    float *residual;                /* [beams] */
    double *beam_loss;              /* [beams]: each used beam's terms of the loss (range and amplitude) */
    uint8_t *prev_status;           /* [beams]: fit_run.c's copies from the round's start */
    double *prev_loss;              /* [beams] */
    double *jacobian;               /* [beams * LSIM_FIT_MAX_PARAMS] */
    fit_model *model;               /* [rays]: valid where beam_status is USED */
    lsim_path_vertex *model_vertex; /* [rays * LSIM_FIT_MAX_VERTICES] */
    size_t used, silhouettes, bounced, unmatched;
    double range_sq;        /* sum of squared range residuals */
    int evaluations;
    void (*progress)(void *, int, double);
    void *user;
};

/* Trace every beam's path from the sensor pose (position, rpy radians) through the committed
 * scene: mirrors reflect, solid glass refracts, thin glass (planes) passes, anything else
 * returns. Fills f->path, f->vertex (world frame, pose -1) and f->vertex_object. */
lsim_status lsim_fit_walk(lsim_fit *f, const double sensor_pose[6]);
void lsim_fit_walk_free(lsim_fit *f);

/* LSIM_OK if params (count values) can be evaluated: finite, poses within +-1e7 m, and the scene
 * still has the materials and objects it had when the fit was made. */
lsim_status lsim_fit_check(const lsim_fit *f, const double *params);

/* The loss and gradient of the used beams' path models (fit_model) at params: what the last
 * simulation predicts there, without simulating. fit_run.c minimises it between simulations. */
lsim_status lsim_fit_model_loss(lsim_fit *f, const double *params, double *loss, double *gradient);

/* The sensor's and each posed object's pose as duals at params (pose[0]: sensor; 1 + slot: object). */
void lsim_fit_poses(const lsim_fit *f, const double *params, lsim_dual q[][6]);

/* The parameters as duals: poses, reflectances (kept within [1e-4, 1]), the bias. */
typedef struct fit_duals {
    lsim_dual q[1 + LSIM_FIT_MAX_OBJECTS][6];
    lsim_dual_pose sensor, obj[LSIM_FIT_MAX_OBJECTS];
    lsim_pose objval[LSIM_FIT_MAX_OBJECTS];
    lsim_dual rho[LSIM_FIT_MAX_PARAMS], c[3];
    double bias[3];
    double shift; /* CW: range per unit of bias phase, c / (4 pi f), both frequencies averaged; 0 pulsed */
} fit_duals;

/* Ray q's model from its walked path up to vertex k_ret, taken at D: its vertices (posed objects'
 * in their object's frame), n, refl. 0 if the re-trace fails. fit_eval.c. */
int lsim_fit_take_vertices(lsim_fit *f, const fit_duals *D, size_t q, int k_ret);

/* A sub-ray beam i (fit_mix.c). lsim_fit_mix_take: every sub-ray's model where the scan was taken
 * (scan range r, amplitude a); 1 if the mix of their returns gives r (the beam is then usable),
 * 0 if the scan's range is not that mix (a mirror's own lobe, a cut-off contribution).
 * lsim_fit_mix_model: the beam's mixed range and amplitude at D, with derivatives through every
 * sub-ray's phase and amplitude. 0 if a re-trace fails. */
int lsim_fit_mix_take(lsim_fit *f, const fit_duals *D, size_t i, double r, double a, int *bounced);
int lsim_fit_mix_model(const lsim_fit *f, const fit_duals *D, size_t i, lsim_dual *range, lsim_dual *amp);

#endif
