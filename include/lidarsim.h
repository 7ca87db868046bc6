/*
 * lidarsim — LiDAR and time-of-flight sensor simulator.
 *
 * The one public header. Conventions:
 *   - opaque handles, created and destroyed in pairs (lsim_X_create / lsim_X_destroy);
 *   - every call returns an lsim_status; on failure the context's last-error text
 *     (lsim_context_last_error) names the file, line, key or value at fault and what to do;
 *   - units: metres, seconds; angles in degrees at this interface (radians inside);
 *   - world frame REP-103: x forward, y left, z up; rotations are roll, pitch, yaw in degrees,
 *     R = Rz(yaw) * Ry(pitch) * Rx(roll).
 *
 * Typical use:
 *   lsim_context *ctx;  lsim_context_create(&ctx);
 *   lsim_scene *scene;  lsim_sensor *sensor;
 *   lsim_scene_load(ctx, "street.yaml", &scene, &sensor);
 *   lsim_scan_options opt;  lsim_scan_options_init(&opt);
 *   lsim_points *pts;   lsim_scene_scan(scene, sensor, &opt, &pts);
 *   lsim_points_write(pts, "out.pcd", LSIM_FORMAT_AUTO);
 *   lsim_points_destroy(pts); lsim_sensor_destroy(sensor); lsim_scene_destroy(scene);
 *   lsim_context_destroy(ctx);
 */
#ifndef LIDARSIM_H
#define LIDARSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version: CMakeLists.txt's project(VERSION) is the one source; configuring checks these three
 * lines against it (and fails if they differ), and lsim_version_string() returns the library's
 * own. ABI: the shared library's soname is liblidarsim.so.MAJOR. While MAJOR is 0 the ABI is
 * stable only within a MINOR series (0.1.x); 0.2 may change it, so rebuild against the new
 * header. From 1.0 on, MAJOR (and the soname) changes with every incompatible change. */
#define LSIM_VERSION_MAJOR 0
#define LSIM_VERSION_MINOR 1
#define LSIM_VERSION_PATCH 0

/* LSIM_API marks the public functions: the library is built with -fvisibility=hidden, so only these
 * are exported from liblidarsim.so (all named lsim_*). */
#ifndef LSIM_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define LSIM_API __attribute__((visibility("default")))
#else
#define LSIM_API
#endif
#endif

typedef enum lsim_status {
    LSIM_OK = 0,
    LSIM_ERR_INVALID_ARGUMENT = 1, /* a value passed in is out of range or NULL */
    LSIM_ERR_IO = 2,               /* a file could not be read or written */
    LSIM_ERR_PARSE = 3,            /* a file's content is malformed (file:line in the message) */
    LSIM_ERR_OUT_OF_MEMORY = 4,
    LSIM_ERR_ENGINE = 5,           /* the ray-casting engine (Embree) failed */
    LSIM_ERR_NOT_FOUND = 6,        /* a named preset, material, file or field does not exist */
    LSIM_ERR_STATE = 7             /* call made in the wrong order (e.g. label ids after objects) */
} lsim_status;

/* The library's version, "MAJOR.MINOR.PATCH" (static string): compare with the LSIM_VERSION_* macros
 * of the header compiled against, e.g. when loading liblidarsim.so at run time. */
LSIM_API const char *lsim_version_string(void);

/* Human-readable name of a status code (static string). */
LSIM_API const char *lsim_status_string(lsim_status status);

/* ---------------------------------------------------------------- context */

/* A context owns the last-error text. Handles created from it report errors into it.
 * A context may be used from one thread at a time; the calls on one scene from several threads
 * (lsim_scene_scan) take turns on the scene's context. */
typedef struct lsim_context lsim_context;

LSIM_API lsim_status lsim_context_create(lsim_context **out_ctx);
LSIM_API void lsim_context_destroy(lsim_context *ctx);
/* Last error message ("" if none). Valid until the next failing call on this context. */
LSIM_API const char *lsim_context_last_error(const lsim_context *ctx);
LSIM_API lsim_status lsim_context_last_status(const lsim_context *ctx);
/* Limits for importing a mesh file. Meshes are imported by assimp in a child process, so a
 * crash or a hang inside the importer becomes an error naming the file. `seconds` is the
 * wall-clock limit (0: automatic, 10 s + 1 s per MB of file), `memory_bytes` the memory the
 * importer may use on top of what the process already maps (0: automatic, 2 GiB + 32 x the
 * file size; not enforced in AddressSanitizer builds). */
LSIM_API lsim_status lsim_context_set_import_limits(lsim_context *ctx, double seconds, double memory_bytes);
/* No output replaces an input (docs/robustness.md). With on != 0 the context remembers every file
 * it reads from then on (scene, meshes, pattern, trajectory, kernel and calibration files, point
 * files, configs); every file it then writes (point files, pictures, reports, a dataset's files)
 * that is one of them, the same file whatever the spelling or link, is refused with
 * LSIM_ERR_INVALID_ARGUMENT before it is replaced. 0 stops and forgets them (the default). The CLI
 * tracks each command's inputs. lsim_context_check_output: that check for `path` now, e.g. after
 * loading the inputs and before the work (LSIM_OK when it is none of them, or when not tracking). */
LSIM_API lsim_status lsim_context_track_inputs(lsim_context *ctx, int on);
LSIM_API lsim_status lsim_context_check_output(lsim_context *ctx, const char *path);

/* ---------------------------------------------------------------- sensor */

typedef struct lsim_sensor lsim_sensor;

/* Names of the built-in presets, NULL-terminated (static). */
LSIM_API const char *const *lsim_sensor_preset_names(void);
/* One-line description of a preset (static), or NULL if unknown. */
LSIM_API const char *lsim_sensor_preset_description(const char *name);

LSIM_API lsim_status lsim_sensor_create_preset(lsim_context *ctx, const char *name, lsim_sensor **out);
/* A real unit as a sensor, from its calibration file: an Ouster sensor metadata JSON or a
 * Velodyne per-laser table (JSON, the ROS velodyne_pointcloud YAML, or VeloView XML). Every beam
 * has that unit's elevation, azimuth offset, origin and firing time (docs/real-sensors.md). */
LSIM_API lsim_status lsim_sensor_create_calibrated(lsim_context *ctx, const char *path, lsim_sensor **out);
/* Rotating multi-channel lidar: `channels` elevations (degrees), `columns` firings per revolution. */
LSIM_API lsim_status lsim_sensor_create_rotating(lsim_context *ctx, int channels, const double *elevations_deg,
                                                 int columns, double rate_hz, lsim_sensor **out);
/* Planar (2-D) scanner: `steps` beams evenly over `fov_deg` in the sensor's xy plane. */
LSIM_API lsim_status lsim_sensor_create_planar(lsim_context *ctx, double fov_deg, int steps, double rate_hz,
                                               lsim_sensor **out);
/* Time-of-flight camera (pinhole), one beam per pixel. */
LSIM_API lsim_status lsim_sensor_create_camera(lsim_context *ctx, int width, int height, double hfov_deg,
                                               double vfov_deg, double rate_hz, lsim_sensor **out);
/* Arbitrary beam table, fired in row order. time_s (each 0..86400 s: the beam's time within its
 * frame) and ring may be NULL (then all 0). */
LSIM_API lsim_status lsim_sensor_create_pattern(lsim_context *ctx, size_t count, const double *azimuth_deg,
                                                const double *elevation_deg, const double *time_s,
                                                const uint16_t *ring, lsim_sensor **out);
LSIM_API void lsim_sensor_destroy(lsim_sensor *sensor);

LSIM_API lsim_status lsim_sensor_set_pose(lsim_sensor *sensor, const double position[3], const double rpy_deg[3]);
/* Time and motion (docs/motion.md). Each beam is cast from the sensor's pose at its own
 * time: the frame's start (lsim_scan_options.scan_time) plus the beam's time within the sweep.
 * Constant motion from the pose of lsim_sensor_set_pose at t = 0: velocity in m/s (world frame)
 * and roll, pitch, yaw rates in deg/s (NULL = zeros; all zeros = a static sensor). Replaces a
 * trajectory. Components finite, within +-1e4 m/s and +-1e5 deg/s. */
LSIM_API lsim_status lsim_sensor_set_motion(lsim_sensor *sensor, const double velocity[3], const double rpy_rate_deg_s[3]);
/* Keyframed trajectory: `count` (1..1e6) poses at strictly ascending times t (seconds, within
 * +-1e7), interpolated linearly in position and by slerp in rotation, held before the first and
 * after the last key. It is the pose of the body the sensor is mounted on: the sensor sits on it
 * at the pose of lsim_sensor_set_pose (identity by default). Overrides lsim_sensor_set_motion;
 * count 0 removes the trajectory. The arrays are copied. */
LSIM_API lsim_status lsim_sensor_set_trajectory(lsim_sensor *sensor, size_t count, const double *t,
                                                const double (*position)[3], const double (*rpy_deg)[3]);
/* The sensor's pose at time t on the scene clock: x y z qw qx qy qz (sensor -> world). */
LSIM_API lsim_status lsim_sensor_get_pose_at(const lsim_sensor *sensor, double t, double out[7]);
LSIM_API lsim_status lsim_sensor_set_range(lsim_sensor *sensor, double min_m, double max_m);
/* range_sigma_m: std of the Gaussian along the ray; intensity_sigma: relative std of intensity;
 * detection_reflectance: Lambertian reflectance that is just detected at max range (sets the
 * detection threshold of the range equation). */
LSIM_API lsim_status lsim_sensor_set_noise(lsim_sensor *sensor, double range_sigma_m, double intensity_sigma,
                                           double detection_reflectance);
/* Noise model (docs/real-sensors.md, "Noise from the signal"). LSIM_NOISE_CONSTANT: range noise of range_sigma for every echo.
 * LSIM_NOISE_SNR (the presets' default): an echo of peak power P against a noise floor of
 * threshold / snr_at_threshold has SNR = P / floor; range noise sqrt(range_sigma^2 +
 * (sqrt(2) sigma_pulse / SNR)^2) with sigma_pulse the pulse's standard deviation in range, and
 * the floor's noise on the peak drops echoes that then fall below the threshold (half of those
 * just at it). snr_at_threshold 1..1000 (ignored for the constant model). */
typedef enum lsim_noise_kind { LSIM_NOISE_CONSTANT = 0, LSIM_NOISE_SNR = 1 } lsim_noise_kind;
LSIM_API lsim_status lsim_sensor_set_noise_model(lsim_sensor *sensor, lsim_noise_kind kind, double snr_at_threshold);

/* Beam divergence. mode: "single" (one ray; the footprint's range spread widens echoes),
 * "rays" (sub-rays combined by the receiver: 1 + rings concentric rings, or a line, see
 * lsim_sensor_set_beam_layout), "kernel"
 * (emitter x collector kernel over a rendered image: blooming; see lsim_sensor_set_kernel). */
typedef enum lsim_beam_mode { LSIM_BEAM_SINGLE = 0, LSIM_BEAM_RAYS = 1, LSIM_BEAM_KERNEL = 2 } lsim_beam_mode;
LSIM_API lsim_status lsim_sensor_set_beam(lsim_sensor *sensor, double divergence_mrad, lsim_beam_mode mode, int rings);
/* Rays mode's layout: "rings" (the default: 1 + 6k rays a ring, Gaussian shares) or "line"
 * (1 + 2 rings rays along the scan direction, equal shares; the cw paper's three-ray beam is a line
 * with rings 1, which the urg-04lx preset uses). Scene key sensor.beam.layout. */
typedef enum lsim_beam_layout { LSIM_BEAM_LAYOUT_RINGS = 0, LSIM_BEAM_LAYOUT_LINE = 1 } lsim_beam_layout;
LSIM_API lsim_status lsim_sensor_set_beam_layout(lsim_sensor *sensor, lsim_beam_layout layout);
/* Kernel mode: parametric kernel (Gaussian core FWHM, halo level and extent) or a kernel file
 * (path != NULL); algorithm 1 (beam iteration) or 2 (range stacking); range bin in metres. */
LSIM_API lsim_status lsim_sensor_set_kernel(lsim_sensor *sensor, double core_fwhm_deg, double halo_level,
                                            double halo_extent_deg, const char *kernel_file, int algorithm,
                                            double range_bin_m);

/* Pulsed receiver: pulse width (ns, FWHM), echoes reported, and the transmitter and receiver
 * constants that turn intensity into watts. */
typedef enum lsim_returns_mode {
    LSIM_RETURNS_FIRST = 0, LSIM_RETURNS_STRONGEST, LSIM_RETURNS_LAST, LSIM_RETURNS_DUAL, LSIM_RETURNS_ALL
} lsim_returns_mode;
LSIM_API lsim_status lsim_sensor_set_receiver(lsim_sensor *sensor, double pulse_width_ns, lsim_returns_mode mode,
                                              int max_returns);
/* Continuous-wave (phase-shift) receiver instead of the pulsed one (docs/sensor.md "Continuous-wave
 * receiver"): two distinct modulation frequencies in Hz, `samples` per frequency (4..256) over
 * about `periods` periods (1..10000), phase bias c0 + c1 L + c2 L^2 (radians, L in intensity
 * units; NULL: none). freq_hz NULL: back to the pulsed receiver. The urg-04lx preset is CW. */
LSIM_API lsim_status lsim_sensor_set_cw_receiver(lsim_sensor *sensor, const double freq_hz[2], int samples, int periods,
                                                 const double bias[3]);
/* Overlap of the beam and the receiver's field of view (geometric form factor xi, a linear ramp
 * as in Hahner et al. 2021): the receiver sees none of the beam up to start_m and all of it from
 * full_m on (0 < start <= full <= 1000 m; default 1.666 and 7.635 m). It weights the fog volume's
 * echo, which is why near-range fog is weak unless the visibility is low. */
LSIM_API lsim_status lsim_sensor_set_overlap(lsim_sensor *sensor, double start_m, double full_m);
/* Overlap of every echo (receiver near field, docs/physics.md "Receiver overlap"): the share of
 * an echo from range R that reaches the detector, on surfaces, fog and ambient light alike (it then
 * replaces lsim_sensor_set_overlap's ramp for fog). full_m > 0: (R / full_m)^2 below full_m, 1
 * beyond; or count > 0 points (range_m[i] rising from > 0, factor[i] not falling, in [0, 1], the
 * last 1), linear between them and from (0, 0) to the first, 1 beyond the last (at most 32);
 * full_m 0 and count 0: none (the default of sensors other than presets). Not both. */
LSIM_API lsim_status lsim_sensor_set_receiver_overlap(lsim_sensor *sensor, double full_m, const double *range_m,
                                                      const double *factor, size_t count);
/* The detection threshold's rise with ambient light (constant false-alarm rate under shot noise):
 * T = T0 sqrt(1 + B / B_ref), B_ref the background of a white Lambertian surface facing a sun of
 * ambient_ref_w_m2 in-band irradiance (0..1e6; 0: no rise, the default but for presets). Pulsed
 * receivers. */
LSIM_API lsim_status lsim_sensor_set_ambient_rise(lsim_sensor *sensor, double ambient_ref_w_m2);
/* Receiver offset from the emitter (sensor frame, metres): near objects can shadow returns. */
LSIM_API lsim_status lsim_sensor_set_baseline(lsim_sensor *sensor, const double offset[3]);

LSIM_API size_t lsim_sensor_beam_count(const lsim_sensor *sensor);
/* Copy the beam table out (arrays of beam_count; any pointer may be NULL). Degrees, seconds. */
LSIM_API lsim_status lsim_sensor_get_beams(const lsim_sensor *sensor, double *azimuth_deg, double *elevation_deg,
                                           double *time_s, uint16_t *ring);
/* Where each beam starts, sensor frame, metres: origin_xyz[3 i + 0..2] for beam i (3 x
 * beam_count values). All zero unless the sensor has per-laser offsets (a real unit's
 * calibration, a Velodyne or Ouster preset). */
LSIM_API lsim_status lsim_sensor_get_beam_origins(const lsim_sensor *sensor, double *origin_xyz);
LSIM_API const char *lsim_sensor_name(const lsim_sensor *sensor);
/* Range resolution: measured ranges are whole multiples of it (metres, 0..1; 0: continuous, the
 * default; the planar presets report millimetres), when the scan adds noise. */
LSIM_API lsim_status lsim_sensor_set_range_resolution(lsim_sensor *sensor, double resolution_m);
/* The sensor's key numbers as text, one "key: value" line each: name, description, kind, beams,
 * rate, range, noise, beam divergence, receiver, then the kind's own (channels, columns and
 * elevations; field of view and steps; ...), as `lidarsim presets NAME` prints them. Writes at
 * most `size` bytes, always NUL-terminated (buf may be NULL when size is 0), and returns the whole
 * text's length as snprintf does: call with (NULL, 0), allocate length + 1, call again. */
LSIM_API size_t lsim_sensor_describe(const lsim_sensor *sensor, char *buf, size_t size);
/* A sensor's settings as the setters take them, e.g. a preset's (any pointer may be NULL). */
LSIM_API lsim_status lsim_sensor_get_range(const lsim_sensor *sensor, double *min_m, double *max_m, double *resolution_m);
LSIM_API lsim_status lsim_sensor_get_noise(const lsim_sensor *sensor, double *range_sigma_m, double *intensity_sigma,
                                           double *detection_reflectance);

/* ---------------------------------------------------------------- scene */

typedef struct lsim_scene lsim_scene;

/* Placement and semantics shared by every object. Initialise with lsim_object_desc_init. */
typedef struct lsim_object_desc {
    double position[3];      /* metres, world frame */
    double rotation_deg[3];  /* roll, pitch, yaw */
    double scale;            /* uniform scale, > 0 */
    const char *material;    /* material name (NULL: "default", Lambertian 0.5) */
    const char *label;       /* semantic class name (NULL: "unlabeled") */
    /* Motion (docs/motion.md); all zero (lsim_object_desc_init) = a static object.
     * Constant rates move the object from position / rotation_deg at t = 0: velocity in m/s (world)
     * and roll, pitch, yaw rates in deg/s (within +-1e4 m/s, +-1e5 deg/s). A trajectory
     * (trajectory_count 1..1e6 keys at strictly ascending times, seconds) overrides the rates:
     * it is the pose of the object's body, and position / rotation_deg / scale place the shape on
     * that body (leave position and rotation zero to put the shape's origin on the trajectory). */
    double velocity[3];
    double angular_velocity_deg_s[3];
    size_t trajectory_count;
    const double *trajectory_t;
    const double (*trajectory_position)[3];
    const double (*trajectory_rpy_deg)[3];
    /* Optional name (1..63 characters of [A-Za-z0-9_.-], unique in the scene; NULL: none): how
     * lsim_scene_set_object_pose and the fit (lsim_fit_add_object_pose) find the object. */
    const char *name;
} lsim_object_desc;

LSIM_API void lsim_object_desc_init(lsim_object_desc *desc);

LSIM_API lsim_status lsim_scene_create(lsim_context *ctx, lsim_scene **out);
/* Load a scene file (YAML). If out_sensor is not NULL the file's `sensor:` is created too. */
LSIM_API lsim_status lsim_scene_load(lsim_context *ctx, const char *path, lsim_scene **out_scene,
                                     lsim_sensor **out_sensor);
LSIM_API void lsim_scene_destroy(lsim_scene *scene);

LSIM_API lsim_status lsim_scene_add_lambertian(lsim_scene *scene, const char *name, double reflectance);

/* Materials (DESIGN.md §2): BRDFs in backscatter; mirror and glass are also followed by
 * reflected and refracted rays (Whitted, up to the scene's max bounces). */
typedef enum lsim_material_type {
    LSIM_MATERIAL_LAMBERTIAN = 0, /* reflectance */
    LSIM_MATERIAL_OREN_NAYAR,     /* reflectance, roughness (sigma, radians) */
    LSIM_MATERIAL_COOK_TORRANCE,  /* reflectance, roughness (0..1], ior or f0, metallic */
    LSIM_MATERIAL_RETROREFLECTOR, /* peak (sr^-1, typically 100..1000), falloff_deg */
    LSIM_MATERIAL_MIRROR,         /* reflectance */
    LSIM_MATERIAL_GLASS           /* ior, transmittance */
} lsim_material_type;

typedef struct lsim_material_desc {
    lsim_material_type type;
    double reflectance, roughness, ior, f0, metallic, peak, falloff_deg, transmittance;
} lsim_material_desc;

/* Defaults of a type (see the material table of docs/materials.md). */
LSIM_API void lsim_material_desc_init(lsim_material_desc *desc, lsim_material_type type);
LSIM_API lsim_status lsim_scene_add_material(lsim_scene *scene, const char *name, const lsim_material_desc *desc);
/* A material measured with the real sensor (`lidarsim calibrate`): the material `calibrated_name`
 * of a calibration file. Scans then draw intensity, range noise and drop-outs from its
 * per-incidence-angle statistics, and use its fitted BRDF outside the measured angles. */
LSIM_API lsim_status lsim_scene_add_calibrated_material(lsim_scene *scene, const char *name, const char *calibration_file,
                                                        const char *calibrated_name);
/* Mirror and glass recursion depth (default 5, 0..16). */
LSIM_API lsim_status lsim_scene_set_max_bounces(lsim_scene *scene, int bounces);
/* Atmosphere: extinction coefficient alpha (1/m, 0..10): returns fall by exp(-2 alpha R); with
 * backscatter beta > 0 (1/(m sr), at most alpha), the fog volume also returns its own distributed
 * echo, weighted by the sensor's overlap (lsim_sensor_set_overlap). */
LSIM_API lsim_status lsim_scene_set_atmosphere(lsim_scene *scene, double extinction_per_m, double backscatter_per_m_sr);
/* Fog of a visibility (meteorological optical range V, metres, >= 0.3) after Hahner et al., ICCV
 * 2021: alpha = ln(20) / V (5 % contrast), beta = 0.046 / V. */
LSIM_API lsim_status lsim_scene_set_visibility(lsim_scene *scene, double visibility_m);
/* Ambient light: sun direction (world, towards the sun) and in-band irradiance (W/m^2). */
LSIM_API lsim_status lsim_scene_set_ambient(lsim_scene *scene, const double sun_direction[3], double irradiance_w_m2);
/* Map a semantic label name to an id (0..65535), overriding the SemanticKITTI defaults. Call it
 * before adding objects (LSIM_ERR_STATE otherwise). A default class whose id is given to another
 * name can no longer be used by an object unless it is given an id of its own. */
LSIM_API lsim_status lsim_scene_set_label_id(lsim_scene *scene, const char *name, uint32_t id);
LSIM_API lsim_status lsim_scene_add_box(lsim_scene *scene, const double size[3], const lsim_object_desc *desc);
LSIM_API lsim_status lsim_scene_add_sphere(lsim_scene *scene, double radius, const lsim_object_desc *desc);
LSIM_API lsim_status lsim_scene_add_plane(lsim_scene *scene, const double size[2], const lsim_object_desc *desc);
/* Triangle mesh from a file (OBJ, PLY, STL, glTF, ... via assimp); the files it refers to (a
 * glTF's buffers, an OBJ's mtllib) must lie in its own folder. A scene holds at most 1e8 triangles
 * and 1e6 objects (LSIM_ERR_INVALID_ARGUMENT beyond, before anything is made). */
LSIM_API lsim_status lsim_scene_add_mesh(lsim_scene *scene, const char *path, const lsim_object_desc *desc);
/* Triangle mesh from arrays (object frame, before desc's transform; the scene's limits as above). */
LSIM_API lsim_status lsim_scene_add_triangles(lsim_scene *scene, const float *vertices, size_t vertex_count,
                                              const uint32_t *indices, size_t triangle_count,
                                              const lsim_object_desc *desc);
/* Geometry engine that traces the scene's rays (DESIGN.md §6): Embree ray casting (default), or
 * BRUTE, a brute-force test engine that checks every primitive for every ray (small scenes only:
 * at most 100,000 triangles). Every engine gives the same points. */
/* RASTER (opt-in, DESIGN.md §2 "Rasterization"): primary beam rays and the kernel mode's image
 * are answered from OpenGL views (EGL, Mesa's llvmpipe without a GPU) with the normal
 * correction: one cube map for a still frame, a view per group of beams (lsim_raster_options)
 * when the sensor or objects move; bounces, shadow rays and spheres are ray-cast by Embree. Its
 * points match Embree's to about a micrometre away from silhouettes (docs/raster-engine.md). */
typedef enum lsim_engine_kind { LSIM_ENGINE_EMBREE = 0, LSIM_ENGINE_BRUTE = 1, LSIM_ENGINE_RASTER = 2 } lsim_engine_kind;
LSIM_API lsim_status lsim_scene_set_engine(lsim_scene *scene, lsim_engine_kind kind);
/* Settings of the raster engine (scene key `raster:`; docs/raster-engine.md).
 * oversample: pixels per finest beam spacing, 1..16 (default 2). group_ms: when the sensor or
 * objects move during a frame, the beams are cut into groups of this many milliseconds of firing
 * time and each group's view is drawn at the group's mean time (0.01..1000, default 1): a moving
 * object is seen where it was up to that long before or after. normal_correction: 1 (default)
 * moves each hit onto the pixel's triangle along the real ray, 0 keeps the pixel's range (an
 * ablation). depth_bits: 32 (default) or 16 (an ablation). */
typedef struct lsim_raster_options {
    double oversample;
    double group_ms;
    int normal_correction;
    int depth_bits;
} lsim_raster_options;
LSIM_API void lsim_raster_options_init(lsim_raster_options *options);
/* Takes effect at the next commit (the raster engine is rebuilt). */
LSIM_API lsim_status lsim_scene_set_raster_options(lsim_scene *scene, const lsim_raster_options *options);
/* Build the acceleration structure. Called by lsim_scene_scan if needed. */
LSIM_API lsim_status lsim_scene_commit(lsim_scene *scene);
/* Move a named static object to a new pose (position in metres, roll/pitch/yaw in degrees: the
 * pose its description gave is the reference, so the pose it was added with leaves it where it
 * was). The first call makes the object an instance (the engine is rebuilt at the next commit);
 * later calls only re-place it, without a rebuild. Objects with motion are refused. */
LSIM_API lsim_status lsim_scene_set_object_pose(lsim_scene *scene, const char *name, const double position[3],
                                                const double rotation_deg[3]);
LSIM_API lsim_status lsim_scene_get_object_pose(const lsim_scene *scene, const char *name, double position[3],
                                                double rotation_deg[3]);
LSIM_API size_t lsim_scene_triangle_count(const lsim_scene *scene);
LSIM_API size_t lsim_scene_object_count(const lsim_scene *scene);

/* ---------------------------------------------------------------- scan */

typedef enum lsim_frame { LSIM_FRAME_SENSOR = 0, LSIM_FRAME_WORLD = 1 } lsim_frame;

typedef struct lsim_scan_options {
    uint64_t seed;        /* noise seed */
    uint32_t frame_index; /* frame counter, part of the random key */
    int noise;            /* 1: range/intensity noise on; 0: exact geometry */
    int threads;          /* 0: all cores */
    lsim_frame frame;     /* coordinate frame of x, y, z, normals */
    int keep_misses;      /* 1: write misses too (range 0, coordinates NaN) */
    /* Point fields to fill: a mask of LSIM_FIELD_BIT(LSIM_FIELD_...) bits; 0 (the default) = every
     * field. A scan then keeps only what these need (columns and per-echo data), so a frame needs
     * less memory: e.g. lsim_format_fields(LSIM_FORMAT_KITTI) for a KITTI .bin. Columns not asked
     * for are absent: lsim_points_column returns NULL, and a writer that needs one fails naming it. */
    uint32_t fields;
    /* Start of the frame on the scene clock, seconds (finite, within +-1e7; default 0): where the
     * sensor's and the objects' motions are at the first beam. Frame k of a sequence at rate f
     * starts at k / f. */
    double scan_time;
    /* A pcap output (LSIM_FORMAT_PCAP) of an Ouster sensor: its packets' lidar profile, as Ouster
     * metadata names it (udp_profile_lidar): "RNG19_RFL8_SIG16_NIR16" (NULL, the default),
     * "RNG19_RFL8_SIG16_NIR16_DUAL", "RNG15_RFL8_NIR8" or "LEGACY". NULL for any other output. */
    const char *packet_profile;
} lsim_scan_options;

LSIM_API void lsim_scan_options_init(lsim_scan_options *options);

typedef struct lsim_points lsim_points;

/* Scan one full frame (one revolution / pattern period / exposure).
 *
 * Threads: a scene may be scanned from several threads at once (lsim_scene_scan, _scan_into,
 * _scan_write*, and lsim_fit_evaluate/run of a fit on it). Each call holds the scene's lock for
 * its frame (the engine, the placement of moving objects and the frame workspace are the scene's),
 * so the calls take turns, each frame using the threads its options ask for, and give the points
 * they give alone. The scene's builders and setters (lsim_scene_add_*, _set_*) take the same lock.
 * Errors of every thread go to the scene's context (one message: read it before another call
 * fails). A sensor is only read by a scan; one that a fit moves (lsim_fit_run) or that another
 * thread changes must not be scanned meanwhile. For frames in parallel, use a scene per thread. */
LSIM_API lsim_status lsim_scene_scan(lsim_scene *scene, const lsim_sensor *sensor,
                                     const lsim_scan_options *options, lsim_points **out_points);
/* Multi-frame use: scan one frame into `points` (from lsim_points_create or an earlier scan),
 * replacing its contents. The scene keeps its engine and frame workspace and the buffer keeps its
 * columns, so once a sensor has run one frame, each further frame (new poses, times, seeds)
 * allocates nothing: it costs only the frame. Calls from several threads take turns (see
 * lsim_scene_scan); `points` must not be used by another thread meanwhile. */
LSIM_API lsim_status lsim_scene_scan_into(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                          lsim_points *points);

/* ---------------------------------------------------------------- points */

typedef enum lsim_field {
    LSIM_FIELD_X, LSIM_FIELD_Y, LSIM_FIELD_Z, LSIM_FIELD_RANGE, LSIM_FIELD_INTENSITY,
    LSIM_FIELD_REFLECTIVITY, LSIM_FIELD_RING, LSIM_FIELD_AZIMUTH, LSIM_FIELD_ELEVATION,
    LSIM_FIELD_TIME, LSIM_FIELD_LABEL, LSIM_FIELD_INSTANCE, LSIM_FIELD_INCIDENCE,
    LSIM_FIELD_NX, LSIM_FIELD_NY, LSIM_FIELD_NZ, LSIM_FIELD_X_CLEAN, LSIM_FIELD_Y_CLEAN,
    LSIM_FIELD_Z_CLEAN,
    LSIM_FIELD_RETURN_INDEX, /* uint16: 0 = first echo of the beam */
    LSIM_FIELD_NUM_RETURNS,  /* uint16: echoes the beam reported */
    LSIM_FIELD_EPW,          /* float: echo pulse width, metres */
    LSIM_FIELD_POWER,        /* float: received peak power, watts */
    LSIM_FIELD_COUNT
} lsim_field;

typedef enum lsim_field_type { LSIM_TYPE_F32 = 0, LSIM_TYPE_U16 = 1, LSIM_TYPE_U32 = 2 } lsim_field_type;

/* Bit of a field in lsim_scan_options.fields, and the mask of every field. */
#define LSIM_FIELD_BIT(field) (1u << (unsigned)(field))
#define LSIM_FIELDS_ALL ((1u << LSIM_FIELD_COUNT) - 1u)

LSIM_API const char *lsim_field_name(lsim_field field);
LSIM_API lsim_field_type lsim_field_get_type(lsim_field field);

/* An empty point buffer for lsim_scene_scan_into: it grows to what a frame needs and is then
 * reused, frame after frame. */
LSIM_API lsim_status lsim_points_create(lsim_context *ctx, lsim_points **out);
LSIM_API size_t lsim_points_count(const lsim_points *points);
/* Column of a field: float*, uint16_t* or uint32_t* per lsim_field_get_type; count elements.
 * NULL for a field the scan was not asked to fill (lsim_scan_options.fields) or an unknown one. */
LSIM_API const void *lsim_points_column(const lsim_points *points, lsim_field field);
/* The fields these points hold (LSIM_FIELD_BIT mask; LSIM_FIELDS_ALL after a default scan). */
LSIM_API uint32_t lsim_points_fields(const lsim_points *points);
/* The sensor's pose at the frame start (scan_time) in the world: x y z qw qx qy qz. Points in the
 * sensor frame are each in the sensor frame at their own time (lsim_sensor_get_pose_at(time +
 * scan_time) places them); points in the world frame are true world positions. */
LSIM_API lsim_status lsim_points_sensor_pose(const lsim_points *points, double out[7]);
LSIM_API void lsim_points_destroy(lsim_points *points);

/* Time spent per stage of the last scan, milliseconds. */
typedef struct lsim_scan_stats {
    uint64_t rays, hits;  /* beams; points (echoes) */
    uint64_t beams_returned; /* beams with at least one echo */
    double load_ms, build_ms, trace_ms, shade_ms, noise_ms, write_ms, total_ms;
} lsim_scan_stats;

LSIM_API lsim_status lsim_points_get_stats(const lsim_points *points, lsim_scan_stats *out);

typedef enum lsim_format {
    LSIM_FORMAT_AUTO = 0, /* from the extension: .pcd .ply .bin .csv .las .mcap */
    LSIM_FORMAT_PCD,      /* PCD binary */
    LSIM_FORMAT_PCD_ASCII,
    LSIM_FORMAT_PLY,      /* PLY binary little-endian */
    LSIM_FORMAT_KITTI,    /* .bin x,y,z,intensity float32 + .label + label map */
    LSIM_FORMAT_CSV,
    LSIM_FORMAT_LAS,      /* ASPRS LAS 1.4, point data record format 6 + extra bytes (docs/points.md "LAS") */
    LSIM_FORMAT_MCAP,     /* MCAP with ROS 2 sensor_msgs/PointCloud2 and tf2_msgs/TFMessage (docs/points.md "MCAP") */
    LSIM_FORMAT_PCAP      /* the sensor's own UDP packets (Ouster, Velodyne) in a pcap; Ouster's metadata JSON
                           * beside it (docs/formats.md "pcap out"): lsim_scene_scan_write*,
                           * lsim_points_write_recording */
} lsim_format;

/* Parse "pcd", "pcd-ascii", "ply", "kitti", "csv", "las", "mcap", "pcap". */
LSIM_API lsim_status lsim_format_parse(const char *name, lsim_format *out);
/* The fields a format writes (LSIM_FIELD_BIT mask), to pass as lsim_scan_options.fields: KITTI
 * x, y, z, reflectivity, label, instance; LAS x, y, z, reflectivity, elevation, time,
 * return_index, num_returns, label, instance, epw, ring, range; MCAP x, y, z, intensity, time,
 * label, instance, ring; PCAP range, intensity, reflectivity, ring, time, return_index; the others
 * every field. AUTO: every field. */
LSIM_API uint32_t lsim_format_fields(lsim_format format);
/* Write atomically (temporary file + rename); on failure no output file is left behind. Every
 * field the format holds (lsim_format_fields) must be in the points. PCAP needs the sensor:
 * lsim_points_write_recording. */
LSIM_API lsim_status lsim_points_write(const lsim_points *points, const char *path, lsim_format format);
/* The columns a file of `format` holds when `fields` (LSIM_FIELD_BIT mask) are asked for: PCD, PLY
 * and CSV the fields asked for (0: every field), in field order; KITTI its fixed layout; LAS and
 * MCAP x, y, z plus those of their fields asked for (0: all of their fields). */
LSIM_API uint32_t lsim_format_columns(lsim_format format, uint32_t fields);
/* lsim_points_write with only the columns lsim_format_columns(format, fields) gives (0: every
 * field): e.g. x, y, z, intensity, ring and time for a PCD a driver would publish. The points must
 * hold those columns. */
LSIM_API lsim_status lsim_points_write_fields(const lsim_points *points, const char *path, lsim_format format,
                                              uint32_t fields);
/* One frame of `sensor` (the points of its scan: ring, time, range, intensity, reflectivity and
 * return_index; every beam on its column) as that sensor's UDP packet stream in a pcap at `path`:
 * Ouster (the os* presets, units from Ouster metadata) with its metadata JSON beside it ("X.json"
 * for "X.pcap"), or Velodyne VLP-16, HDL-32E, HDL-64E (presets and tables); both files atomically.
 * `ouster_profile` as lsim_scan_options.packet_profile (NULL: RNG19_RFL8_SIG16_NIR16; NULL for a
 * Velodyne); `frame_index` the Ouster frame_id. Capture times are the points' scan_time (>= 0) in
 * seconds since 1970 plus each packet's firing time. LSIM_ERR_INVALID_ARGUMENT naming the sensor
 * and the supported ones for a sensor without a packet format, a range the packets cannot hold, or
 * several echoes a beam where the packets hold one. docs/formats.md "pcap out". */
LSIM_API lsim_status lsim_points_write_recording(const lsim_points *points, const lsim_sensor *sensor,
                                                 const char *path, const char *ouster_profile, uint32_t frame_index);
/* Scan one frame and write it to `path` (as lsim_points_write would: the same bytes, atomically,
 * nothing left on failure) without a frame-sized point buffer: the points are emitted and written
 * a slice at a time (about 262,144 points), so a frame needs its echoes and beam table plus one
 * slice. The file holds lsim_format_columns(format, options->fields): every field by default, or
 * only those of options->fields (PCD, PLY, CSV; KITTI's layout is fixed). `out_stats`
 * (may be NULL) receives the scan's statistics; write_ms counts point emission and writing. The
 * point count is hits, plus rays - beams_returned with keep_misses. When the frame was computed
 * but writing failed, out_stats is filled too (rays > 0, write_ms 0). */
LSIM_API lsim_status lsim_scene_scan_write(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                           const char *path, lsim_format format, lsim_scan_stats *out_stats);
/* lsim_scene_scan_write of `frames` (1..100000) successive frames into one file: frame k starts at
 * options->scan_time + k / rate (the sensor's frame rate) with frame_index + k. More than one
 * frame needs a format that holds several (MCAP: one PointCloud2 and one TFMessage per frame);
 * the file is written atomically, all frames or nothing. out_stats sums the frames (load_ms and
 * build_ms those of the first). */
LSIM_API lsim_status lsim_scene_scan_write_frames(lsim_scene *scene, const lsim_sensor *sensor,
                                         const lsim_scan_options *options, unsigned frames, const char *path,
                                         lsim_format format, lsim_scan_stats *out_stats);
/* Bird's-eye PNG, coloured by intensity: `pixels` x `pixels` cells (16..8192) covering
 * +-half_extent_m around the sensor (the points' viewpoint), drawn pixel-exact as the plot of a
 * figure with axes in metres, a colour bar and a title (cells of several pixels when `pixels` is
 * under 400, so that the plot is at least 400 pixels wide). Needs the fields LSIM_BIRDSEYE_FIELDS. */
#define LSIM_BIRDSEYE_FIELDS (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | \
                              LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY))
LSIM_API lsim_status lsim_points_write_birdseye(const lsim_points *points, const char *path, int pixels,
                                                double half_extent_m);

/* The points as the sensor sees them: a PNG over azimuth and elevation, coloured by range,
 * `pixels_per_degree` (0.5..200) cells a degree on both axes (at most 8192 a side), drawn
 * pixel-exact as the plot of a figure with axes in degrees, a colour bar and a title; a plot under
 * 400 x 200 pixels is scaled up by whole factors. Needs the fields LSIM_RANGE_IMAGE_FIELDS. */
#define LSIM_RANGE_IMAGE_FIELDS (LSIM_FIELD_BIT(LSIM_FIELD_AZIMUTH) | LSIM_FIELD_BIT(LSIM_FIELD_ELEVATION) | \
                                 LSIM_FIELD_BIT(LSIM_FIELD_RANGE))
LSIM_API lsim_status lsim_points_write_range_image(const lsim_points *points, const char *path, double pixels_per_degree);

/* ---- Fitting (issue 11): parameters from a real scan --------------------------------------
 * Minimise sum_i rho(r_sim,i - r_real,i) over the chosen parameters with L-BFGS (liblbfgs, Wolfe
 * line search). Each evaluation scans the scene (noise off), walks each beam's path through
 * mirrors and glass, and differentiates every beam's range by re-tracing that path with dual
 * numbers (docs/fitting.md). Beams at a silhouette (a neighbouring beam of the same ring meets
 * other surfaces, misses, or lies more than 10 % nearer or farther) have no gradient there: they
 * are left out and counted, as are beams whose reported range is not their path's return
 * (unmatched: a CW mix of several returns, a specular surface's own return). The sensor reports
 * one return per beam from one ray, or from sub-rays (beam.mode rays) mixed by the
 * continuous-wave receiver, as the urg-04lx preset's three rays are: then every ray's path is
 * walked and the beam's range is differentiated through the receiver's mix of their phasors, so
 * mixed pixels at depth edges are used (a beam is left out only where its or its neighbours' rays
 * lie more than c / (8 f) apart, or two of its rays meet one object's faces at a crease). */
typedef struct lsim_fit lsim_fit;
typedef enum lsim_fit_pose { LSIM_FIT_FIXED = 0, LSIM_FIT_SE2 = 3, LSIM_FIT_SE3 = 6 } lsim_fit_pose;
/* A fit of `sensor` in `scene` (both stay the caller's; the fit changes the sensor's pose, the
 * materials' reflectances and the bias it fits). dof: FIXED keeps the pose; SE2 fits x, y and yaw
 * (z, roll, pitch kept); SE3 all six. Parameters start at the current values; in
 * lsim_fit_get_parameters/evaluate they are the pose's x, y[, z], [roll, pitch,] yaw (metres,
 * radians), then the reflectances in the order added, then c0, c1, c2. */
LSIM_API lsim_status lsim_fit_create(lsim_scene *scene, lsim_sensor *sensor, lsim_fit_pose dof, lsim_fit **out);
LSIM_API void lsim_fit_destroy(lsim_fit *fit);
/* The real scan: one range per beam of the sensor, in its beam order (0 or not finite: no return). */
LSIM_API lsim_status lsim_fit_set_scan(lsim_fit *fit, const float *range, size_t count);
/* Also fit the amplitudes the real scan measured (intensity per beam, same order): each beam adds
 * weight_m2 x ((I_sim - I_real) / I_real)^2 to the loss (weight 1 m^2: 1 % of amplitude weighs as
 * 1 cm of range). Needed to tell reflectance from the CW bias, which ranges alone cannot. */
LSIM_API lsim_status lsim_fit_set_scan_intensity(lsim_fit *fit, const float *intensity, size_t count, double weight_m2);
/* More parameters (at most 8 in all, poses included): the reflectance of a Lambertian material
 * (kept within [1e-4, 1]), and the continuous-wave receiver's bias c0, c1, c2 (three). */
LSIM_API lsim_status lsim_fit_add_reflectance(lsim_fit *fit, const char *material);
LSIM_API lsim_status lsim_fit_add_cw_bias(lsim_fit *fit);
/* The pose of a named object (lsim_object_desc.name) as parameters: SE2 adds x, y, yaw; SE3 adds
 * x, y, z, roll, pitch, yaw (metres, radians), starting at the object's current pose. Mirrors and
 * glass may be fitted: every path is re-traced through them. */
LSIM_API lsim_status lsim_fit_add_object_pose(lsim_fit *fit, const char *object, lsim_fit_pose dof);
LSIM_API size_t lsim_fit_parameter_count(const lsim_fit *fit);
LSIM_API lsim_status lsim_fit_get_parameters(const lsim_fit *fit, double *params);
/* Start values (count = lsim_fit_parameter_count), checked against the bounds. */
LSIM_API lsim_status lsim_fit_set_parameters(lsim_fit *fit, const double *params, size_t count);
/* Parameter k's name: "sensor.x|y|z|roll|pitch|yaw", "object.NAME.x|...|yaw",
 * "material.NAME.reflectance", "bias.c0|c1|c2". */
LSIM_API lsim_status lsim_fit_parameter_name(const lsim_fit *fit, size_t k, char *name, size_t size);
/* Keep parameter k within [lower, upper] (lower < upper, both finite): L-BFGS then works on an
 * unbounded u with p = lower + (upper - lower) / (1 + exp(-u)). Reflectances are kept within
 * [1e-4, 1] without bounds. */
LSIM_API lsim_status lsim_fit_set_bounds(lsim_fit *fit, size_t k, double lower, double upper);
/* The loss of a range residual e: SQUARED e^2 (the default), HUBER (e^2 within +-scale, then
 * 2 scale |e| - scale^2) or CAUCHY (scale^2 ln(1 + e^2 / scale^2)); scale in metres (> 0). */
typedef enum lsim_fit_loss { LSIM_FIT_LOSS_SQUARED = 0, LSIM_FIT_LOSS_HUBER, LSIM_FIT_LOSS_CAUCHY } lsim_fit_loss;
LSIM_API lsim_status lsim_fit_set_loss(lsim_fit *fit, lsim_fit_loss loss, double scale_m);
/* Loss and gradient at `params` (gradient may be NULL); sets the sensor's pose to them. */
LSIM_API lsim_status lsim_fit_evaluate(lsim_fit *fit, const double *params, double *loss, double *gradient);
typedef enum lsim_fit_stop {
    LSIM_FIT_CONVERGED = 0,  /* a round's model converged without moving the parameters, or the loss stopped falling */
    LSIM_FIT_NO_DESCENT = 1, /* the simulated loss rose wherever the model led, even at 1/16 of the step */
    LSIM_FIT_ITERATIONS = 2  /* the iteration budget ran out */
} lsim_fit_stop;
typedef struct lsim_fit_result {
    int iterations;                 /* L-BFGS iterations */
    int evaluations;                /* scans */
    double initial_loss, final_loss; /* m^2 */
    double rms_residual_m;          /* range residuals, over the beams used at the end */
    size_t beams_used, silhouette_beams; /* at the end */
    size_t bounced_beams;           /* of beams_used: paths through mirrors or glass */
    size_t unmatched_beams;         /* left out: the re-traced path is not the return the scan reported */
    double wall_ms;
    int lbfgs_status;               /* liblbfgs's return code of the last round (0 or a documented stop) */
    lsim_fit_stop stop;             /* why the fit stopped */
} lsim_fit_result;
/* Each beam's part in the last evaluation (lsim_fit_evaluate, or the end of lsim_fit_run), in the
 * sensor's beam order (beams = the sensor's beam count): status, the range residual
 * r_sim - r_real in metres (0 unless USED) and, if jacobian is not NULL, d r_sim / d p_k at
 * jacobian[i * parameter_count + k] (0 unless USED): for a Gauss-Newton solver of one's own, or to
 * see where a fit pulls. Any output may be NULL. */
typedef enum lsim_fit_beam {
    LSIM_FIT_BEAM_NONE = 0,       /* no return in the simulation or in the real scan */
    LSIM_FIT_BEAM_USED = 1,
    LSIM_FIT_BEAM_SILHOUETTE = 2, /* at a silhouette (or grazing): no derivative */
    LSIM_FIT_BEAM_UNMATCHED = 3   /* the reported range is not on the re-traced path */
} lsim_fit_beam;
LSIM_API lsim_status lsim_fit_get_residuals(const lsim_fit *fit, size_t beams, uint8_t *status, float *residual,
                                            double *jacobian);
/* Run at most max_iterations (1..10000) from the current parameters; the sensor ends at the fit.
 * progress (may be NULL) is called after each L-BFGS iteration with its number (over all rounds)
 * and the loss of the round's path models there (docs/fitting.md: the simulated loss is known only
 * at the end of a round). */
LSIM_API lsim_status lsim_fit_run(lsim_fit *fit, int max_iterations, void (*progress)(void *user, int iteration, double loss),
                                  void *user, lsim_fit_result *result);

/* ---------------------------------------------------------------------------------------------- */
/* Progress of long runs (the run functions below take one: scan frames, calibrate, validate, fit,
 * dataset, bench), reported on stderr. */
typedef enum lsim_progress_mode {
    LSIM_PROGRESS_OFF = 0,
    LSIM_PROGRESS_AUTO = 1,  /* a bar on a terminal, plain lines otherwise */
    LSIM_PROGRESS_LINES = 2, /* plain lines (at most one every 2 s), never a bar */
    LSIM_PROGRESS_BAR = 3    /* a bar on a terminal (after 1 s), nothing otherwise (the CLI's long runs) */
} lsim_progress_mode;

/* ---------------------------------------------------------------------------------------------- */
/* Point files: output checks before a scan, a scan written with progress, files read back,
 * pictures (what `lidarsim scan` and `lidarsim render` do) */
/* Output formats by name. lsim_format_name: "pcd", "pcd-ascii", "ply", "kitti", "csv", "las",
 * "mcap", "pcap" or "auto" (a static string; "unknown" for a value outside lsim_format). */
LSIM_API const char *lsim_format_name(lsim_format format);
/* The format a point file at `path` is written in: `requested` itself, or for LSIM_FORMAT_AUTO the
 * path's extension (.pcd, .ply, .bin = KITTI, .csv, .las, .mcap, .pcap; any case). Errors:
 * LSIM_ERR_INVALID_ARGUMENT naming the path and the valid extensions when the extension is unknown
 * or missing ("-", standard output, has none: the format must be given), a value outside
 * lsim_format, or a NULL argument. */
LSIM_API lsim_status lsim_format_resolve(lsim_context *ctx, const char *path, lsim_format requested, lsim_format *out);
/* Whether a point cloud of format `requested` (AUTO: from the extension) can go to `path`, checked
 * before a long run; its format is resolved into *out (may be NULL). Refused, with
 * LSIM_ERR_INVALID_ARGUMENT and a message naming the path and what to write instead: KITTI or LAS
 * to standard output ("-"; KITTI is three files, LAS completes its header at the end), LAS to a
 * device or FIFO (it cannot seek), a KITTI path not ending in .bin, and lsim_format_resolve's
 * refusals. Whether the file can be created is lsim_path_check_writable's. */
LSIM_API lsim_status lsim_points_check_output(lsim_context *ctx, const char *path, lsim_format requested,
                                              lsim_format *out);
/* Whether an output file can be written at `path`, checked before a long run so that a missing or
 * read-only directory is reported at once: `path` is not a directory, and a temporary file can be
 * made beside it (removed at once; nothing is left). "-" (standard output), devices and FIFOs are
 * not opened (a FIFO's reader would see an empty stream). Errors: LSIM_ERR_IO naming the path and
 * what to do ("'P' is a directory; give a file name", "the directory does not exist: create it
 * first", ...), LSIM_ERR_INVALID_ARGUMENT for an empty or NULL path. */
LSIM_API lsim_status lsim_path_check_writable(lsim_context *ctx, const char *path);
/* Remove a point file written earlier (lsim_points_write*, lsim_scene_scan_write*) when a later step
 * of the same run failed, so that a run's outputs appear all or none: the file (for a symlink, the
 * file it points to; the link stays), and for KITTI (`format`; AUTO: from the extension, .bin) the
 * .label and .labels.yaml beside the .bin. Any other file (a PNG) is removed alone.
 * "-", devices, FIFOs, directories and missing files are left alone (LSIM_OK).
 * LSIM_ERR_INVALID_ARGUMENT for a NULL or empty path. */
LSIM_API lsim_status lsim_points_file_remove(lsim_context *ctx, const char *path, lsim_format format);
/* lsim_scene_scan_write_frames (the same file, bytes and statistics) that reports its progress on
 * standard error in frames, labelled "scan", once it has run for a second (fractions of a frame as
 * its slices of beams are computed, then written: one long frame shows 0.4/1): LSIM_PROGRESS_OFF nothing;
 * BAR a redrawn bar with rate and ETA on a terminal and nothing otherwise (`lidarsim scan`); AUTO the
 * bar on a terminal, plain lines otherwise; LINES plain lines (at most one every 2 s). A failed run
 * ends the bar's line, so that the caller's message starts on its own line. */
LSIM_API lsim_status lsim_scene_scan_write_progress(lsim_scene *scene, const lsim_sensor *sensor,
                                                    const lsim_scan_options *options, unsigned frames, const char *path,
                                                    lsim_format format, lsim_progress_mode progress,
                                                    lsim_scan_stats *out_stats);

/* Read a point file of the formats lidarsim writes: CSV (a header line naming the columns), PCD
 * (ascii or binary), PLY (ascii or binary little-endian), LAS 1.0 to 1.4 (point formats 0 to 10,
 * any writer's: x, y, z; intensity / 65535 as reflectivity; return number and count; GPS time as
 * time; the extra bytes named label, instance, epw, ring and range, as lidarsim writes them; LAZ
 * is refused), or a KITTI .bin (x, y, z, reflectivity as float32; label and instance from the
 * .label beside it when there is one). Columns are matched to
 * fields by name (lsim_field_name; other columns are ignored) and converted to the field's type
 * (lsim_field_get_type; integers clamped into their range, NaN to 0). `fields` (LSIM_FIELD_BIT mask)
 * picks the fields to read, 0: every field the file holds; x, y and z are always read and must be
 * there; a field asked for that the file lacks is absent (lsim_points_fields, lsim_points_column
 * gives NULL). A frame of a SemanticKITTI tree (`DIR/velodyne/NNNNNN.bin`, or `DIR/points/NNNNNN.EXT`)
 * without label columns takes its label and instance, when asked for, from `DIR/labels/NNNNNN.label`,
 * which must hold as many points. *out is a new point buffer in the file's row order (stats zero,
 * sensor pose identity, viewpoint a PCD's VIEWPOINT or identity; errors of later calls on it go
 * to ctx), destroyed with lsim_points_destroy; it can be
 * written (lsim_points_write_fields with its fields), drawn (lsim_points_render) or read column by
 * column. MCAP files are not read. Errors (*out NULL): LSIM_ERR_IO (cannot open: the path and the
 * system's reason), LSIM_ERR_PARSE ("FILE:LINE: ..." for a malformed file, a missing x, y or z, a
 * non-number; a malformed VIEWPOINT; a KITTI .bin whose size is not a multiple of 16 bytes or whose
 * .label (beside it, or in a dataset's labels/) holds another number of points; a LAS header, VLR
 * or point count that disagrees with the file, naming it),
 * LSIM_ERR_INVALID_ARGUMENT (NULL argument, a .mcap path),
 * LSIM_ERR_OUT_OF_MEMORY. */
LSIM_API lsim_status lsim_points_read(lsim_context *ctx, const char *path, uint32_t fields, lsim_points **out);

/* Real recordings (docs/formats.md "pcap (Ouster, Velodyne)"): a pcap (or pcapng) of an Ouster's
 * lidar packets with the unit's metadata JSON (every lidar profile: LEGACY, RNG19_RFL8_SIG16_NIR16
 * and its _DUAL, RNG15_RFL8_NIR8, FUSA_RNG15_RFL8_NIR8_DUAL), or of a Velodyne's data packets with
 * its laser table (JSON, ROS YAML, VeloView XML; NULL: the built-in table of the model the
 * packets' product id names), read one frame at a time into points in the sensor frame, as a
 * lidarsim scan of that unit gives them: x, y, z, range (from the beam's origin), intensity,
 * reflectivity, ring (0 the lowest beam), azimuth and elevation (the beam's, degrees), time
 * (seconds after the frame's first firing), return_index and num_returns. */
typedef struct lsim_recording_options {
    int64_t frame;   /* the frame to read, from 0 (default 0) */
    int partial;     /* 0 (default): frames counts complete frames only (a recording started or stopped
                      * mid-revolution has an incomplete first or last one); 1: every frame */
    uint32_t fields; /* LSIM_FIELD_BIT mask of the fields to fill, 0: all a recording gives; x, y, z always */
} lsim_recording_options;
LSIM_API void lsim_recording_options_init(lsim_recording_options *options);
/* Errors (*out NULL): LSIM_ERR_IO (cannot open), LSIM_ERR_PARSE naming the file and the record (not a
 * capture file, a damaged or cut one, a packet of another size than the metadata's layout, a column
 * or azimuth out of range, a calibration of another unit), LSIM_ERR_INVALID_ARGUMENT (no
 * calibration for a recording that needs one: an Ouster's metadata), LSIM_ERR_NOT_FOUND (fewer
 * frames than asked for: the message says how many there are). */
LSIM_API lsim_status lsim_points_read_recording(lsim_context *ctx, const char *path, const char *calibration,
                                                const lsim_recording_options *options, lsim_points **out);
/* The frames a recording holds, as lsim_points_read_recording counts them (options->frame unused). */
LSIM_API lsim_status lsim_recording_count_frames(lsim_context *ctx, const char *path, const char *calibration,
                                                 const lsim_recording_options *options, uint64_t *frames);

/* Pictures of points (`lidarsim render`): a bird's-eye view (x up, y left, metres), a range image
 * (azimuth, +azimuth left, and elevation, degrees) or a 90-degree perspective view from the sensor
 * along +x. The sensor is where the points' viewpoint puts it (a world-frame scan's pose, a PCD's
 * VIEWPOINT read back; the origin for points in the sensor frame): the bird's-eye view is centred
 * on it (axes of the points' frame), the others look from it. Points coloured by a field (viridis
 * between its 2nd and 98th percentile with a colour bar and its units, or by semantic label with
 * SemanticKITTI's colours, lightened to stand out on the dark plot, and a legend of the classes
 * present), under a title, with axes and ticks. */
typedef enum lsim_render_view {
    LSIM_RENDER_BEV = 0,        /* bird's-eye */
    LSIM_RENDER_RANGE = 1,      /* range image */
    LSIM_RENDER_PERSPECTIVE = 2 /* perspective from the sensor */
} lsim_render_view;
/* Picture sizes, pixels per side. */
#define LSIM_RENDER_MIN_SIDE 200
#define LSIM_RENDER_MAX_SIDE 8192
typedef struct lsim_render_options {
    lsim_render_view view; /* default LSIM_RENDER_BEV */
    /* The field that colours the points (default LSIM_FIELD_INTENSITY, on a log10 scale);
     * LSIM_FIELD_LABEL: by semantic class, with a legend; any other field: linear colour bar. */
    lsim_field color;
    int width, height;     /* pixels, LSIM_RENDER_MIN_SIDE..LSIM_RENDER_MAX_SIDE (default 1024 x 768) */
    /* Metres: the bird's-eye view's half width (0, the default: 50 m); the range and perspective
     * views leave out points farther than this (0: none). */
    double extent_m;
    /* NULL (default): "VIEW view, coloured by FIELD"; either is followed by "(N of M points in
     * view)": the points drawn of all of them */
    const char *title;
} lsim_render_options;
LSIM_API void lsim_render_options_init(lsim_render_options *options);
/* Where a picture's parts landed, pixels, [x0, x1) x [y0, y1). */
typedef struct lsim_render_layout {
    int plot_x0, plot_y0, plot_x1, plot_y1; /* the plot area (dark grey background) */
    int key_x0, key_y0, key_x1, key_y1;     /* colour bar (scalar field) or legend (labels) */
    int title_y0, title_y1;                 /* the title's band */
    double value_lo, value_hi;              /* the colour bar's range in field units (scalar fields) */
    size_t drawn;                           /* points inside the view */
    int classes;                            /* distinct labels drawn (LSIM_FIELD_LABEL) */
} lsim_render_layout;
/* Draw `points` (non-finite ones skipped) and write the picture as a PNG at `png_path`, atomically
 * (nothing is left on failure). The points must hold x, y, z and options->color. `options` NULL:
 * the defaults; `layout` may be NULL. Errors, in the points' context: LSIM_ERR_INVALID_ARGUMENT
 * (a size, view or extent out of range, naming it), LSIM_ERR_NOT_FOUND (the points lack the colour
 * field or x, y, z: named), LSIM_ERR_IO (the PNG cannot be written), LSIM_ERR_OUT_OF_MEMORY. */
LSIM_API lsim_status lsim_points_render(const lsim_points *points, const char *png_path,
                                        const lsim_render_options *options, lsim_render_layout *layout);


/* ---------------------------------------------------------------------------------------------- */
/* Calibrated noise from real scans, and its validation (`lidarsim calibrate`, `lidarsim validate`) */
/* Calibrating materials from real scans of benchmark boards and validating the calibration
 * (docs/calibration.md; `lidarsim calibrate`, `lidarsim validate`). Both runs write every output
 * atomically and together: all of them appear, or none (nor an output folder the run created).
 * The report (options' report_path) is written after them, atomically on its own: a report that
 * cannot be written is an error while the outputs stay in place. An output that is an input (the
 * config, a scan) or another output (the calibration, the report, a picture of the view or output
 * folder) is refused before any work (LSIM_ERR_INVALID_ARGUMENT naming both).
 * While a run writes, its temporary files and staging folder are registered in its context, so
 * that a SIGINT / SIGTERM handler can remove them (lsim_context_remove_partial_outputs). */

/* Remove the temporary files and the staging folder of the outputs a run of this context is
 * writing now (lsim_calibrate_run with a view folder, lsim_validate_run), and the output folder
 * that run created, for a termination-signal handler that then ends the process. Async-signal-
 * safe (unlink and rmdir only; no message is set); call it in the thread that runs the run (the
 * run holds SIGINT, SIGTERM and SIGHUP back in its thread while it changes the set, so the handler
 * never sees it half-changed). LSIM_OK, also when nothing is being written;
 * LSIM_ERR_INVALID_ARGUMENT for a NULL context. Where the file system has no O_TMPFILE (files
 * then written under a temporary name first), a file being written when the signal came can
 * keep the staging folder from being removed. */
LSIM_API lsim_status lsim_context_remove_partial_outputs(lsim_context *ctx);

/* 1 when `name` can name a calibrated material or a sensor in a calibration file: 1 to 63
 * characters of letters, digits, '_', '-', '.' (it appears in a scene's `FILE#name`); else 0. */
LSIM_API int lsim_calibration_name_valid(const char *name);
/* The BRDF a calibration config names (as its `brdf` column or key, and `lidarsim calibrate
 * --brdf`): "ON"/"oren-nayar", "CT"/"cook-torrance", "L"/"lambertian", case-insensitive. 1 and
 * *out set (LSIM_MATERIAL_OREN_NAYAR, _COOK_TORRANCE, _LAMBERTIAN) when it is one; else 0. */
LSIM_API int lsim_calibration_brdf_parse(const char *text, lsim_material_type *out);

/* What a run prints when it succeeds. */
typedef enum lsim_report_format {
    LSIM_REPORT_NONE = 0, /* nothing */
    LSIM_REPORT_TEXT = 1, /* the text summary (`lidarsim calibrate`, `lidarsim validate`) */
    LSIM_REPORT_JSON = 2  /* calibrate: the JSON summary (`lidarsim calibrate --json`) */
} lsim_report_format;

/* Options of lsim_calibrate_run; lsim_calibrate_options_init sets the defaults given here. A
 * double that is NAN means "not given". */
typedef struct lsim_calibrate_options {
    /* One material instead of a config file (config_path NULL): */
    const char *scan_path;    /* its scan: `range_m,intensity,angle_rad` lines or a ROS LaserScan dump */
    const char *name;         /* its name (lsim_calibration_name_valid) */
    double width_m;           /* the board width in metres, (0, 100] (0: not given, an error) */
    double distance_m;        /* hand-measured distance in metres, reported beside the fitted one (0: not measured) */
    lsim_material_type brdf;  /* LSIM_MATERIAL_OREN_NAYAR (default), _COOK_TORRANCE or _LAMBERTIAN */
    double roughness;         /* starting roughness of the fit (NAN: the BRDF's default) */
    double ior;               /* index of refraction for cook-torrance, [1, 10] (NAN: 1.5) */
    /* Either form: */
    double bin_width_deg;     /* incidence-angle bin width, 0.05..45 (NAN: the YAML's bin_width_deg, else 2) */
    const char *sensor;       /* sensor recorded in the file (NULL: the YAML's sensor, else rplidar-a1) */
    double direction_deg;     /* expected direction of the board centre, sensor frame, within +-720
                               * (NAN: each material's, default 180) */
    double window_deg;        /* half-width of the window searched for the board, (0, 180] (NAN: 80) */
    uint64_t seed;            /* seed of the RANSAC line search (default 0) */
    const char *view_dir;     /* also draw each material's calibration view, VIEW_DIR/NAME_view.png,
                               * 900 px (NULL: none); the folder is made when missing */
    lsim_report_format report; /* after success: TEXT (default) per-material summary lines, JSON, NONE */
    const char *report_path;  /* where the report goes (NULL: standard output); written atomically */
    lsim_progress_mode progress; /* a progress bar over the materials on stderr (default OFF) */
} lsim_calibrate_options;

LSIM_API void lsim_calibrate_options_init(lsim_calibrate_options *options);
/* Calibrate the materials of `config_path` (the thesis's data.config or YAML; scan paths relative
 * to its folder), or the one material of options->scan_path when config_path is NULL, and write
 * the calibration file `out_path` (YAML; NULL: none, e.g. for a JSON report only). Every output
 * path is checked before any scan is read. With a view folder, `out_path` must be a regular file
 * (or not exist yet): it is replaced together with the views, keeping the mode the file had (a
 * link is followed); without one it is written as any output (standard output for "-").
 * Errors: LSIM_ERR_INVALID_ARGUMENT (a bad option,
 * named), LSIM_ERR_IO (a file cannot be read or written), LSIM_ERR_PARSE (a config or scan line,
 * "material NAME (CONFIG:LINE): SCAN:LINE: ..."), LSIM_ERR_NOT_FOUND ("material NAME ...: board
 * not found ..."), with the context's message naming the file and what to do; nothing is
 * written then. */
LSIM_API lsim_status lsim_calibrate_run(lsim_context *ctx, const char *config_path, const char *out_path,
                                        const lsim_calibrate_options *options);

/* Options of lsim_validate_run; lsim_validate_options_init sets the defaults given here. */
typedef struct lsim_validate_options {
    double bin_width_deg;     /* incidence bin width, 0.05..45 (NAN: the config's bin_width_deg, else 2) */
    uint64_t seed;            /* simulation seed (default 1) */
    int threads;              /* threads, 0..1024, 0 = all cores (default 0) */
    int holdout;              /* 1: calibrate on the even revolutions, compare with the odd ones and compare
                               * the real halves by the same tests; 0 (default): compare with the scan
                               * calibrated from, as the thesis */
    lsim_report_format report; /* TEXT (default): one verdict line per material; NONE */
    const char *report_path;  /* where the verdicts go (NULL: standard output); written atomically */
    lsim_progress_mode progress; /* a progress bar over the materials on stderr (default OFF) */
} lsim_validate_options;

/* What a validation found. */
typedef struct lsim_validate_result {
    size_t materials; /* materials validated */
    size_t failed;    /* of them, with a FAIL verdict (`lidarsim validate` exits 3 then) */
} lsim_validate_result;

LSIM_API void lsim_validate_options_init(lsim_validate_options *options);
/* For each material of `config_path` (as lsim_calibrate_run's): calibrate from its real scan,
 * simulate the setup with the calibration and with a BRDF-only model, and compare per incidence
 * bin. Writes OUT_DIR/validation.csv, OUT_DIR/calibration.yaml, OUT_DIR/NAME_validation.png and
 * OUT_DIR/NAME_view.png (all or none; OUT_DIR is made when missing and checked before any work),
 * then the report. A scan ending in a partial revolution is noted on stderr. `result` (may be
 * NULL) receives the counts; FAIL verdicts are not an error (LSIM_OK). Errors as
 * lsim_calibrate_run's ("NAME: ..." for a material; "...; nothing was written to OUT_DIR"). */
LSIM_API lsim_status lsim_validate_run(lsim_context *ctx, const char *config_path, const char *out_dir,
                                       const lsim_validate_options *options, lsim_validate_result *result);


/* ---------------------------------------------------------------------------------------------- */
/* File-driven tools: fit files, beam patterns from a wall scan, labelled datasets
 * (`lidarsim fit`, `lidarsim pattern from-scan`, `lidarsim dataset`) */
/* Fit files (`lidarsim fit`): the parameters a fit file names (the sensor's pose, named objects'
 * poses, Lambertian reflectances, the CW receiver's bias) fitted to a real scan with lsim_fit_run,
 * and written into a copy of the scene file. The fit file's keys: `lidarsim fit --help` and
 * examples/cw/README.md (scene:, scan:, parameters:, loss:, max_iterations:, intensity_weight:;
 * paths relative to the fit file). */
#define LSIM_FIT_FILE_MAX_PARAMETERS 8 /* the fit's own limit: at most 8 values in all */
#define LSIM_FIT_FILE_NAME_MAX 256     /* a parameter name's buffer (lsim_fit_parameter_name's names) */

typedef struct lsim_fit_file_options {
    int max_iterations;          /* L-BFGS iterations 1..10000; 0 (default): the fit file's (100 unless given) */
    lsim_progress_mode progress; /* one line per iteration ("iteration N: loss L m^2"), or with AUTO/BAR on a
                                    terminal one redrawn line with a bar; on stdout (stderr when the
                                    output is "-"). Default OFF */
    int report;                  /* 1: print the result table (parameters initial -> fitted, loss, rms range
                                    residual, beams, iterations, "wrote OUT") on the same stream as the
                                    progress once the fitted scene is written. Default 0 */
} lsim_fit_file_options;

typedef struct lsim_fit_file_result {
    lsim_fit_result fit;         /* the run's result (lsim_fit_run) */
    int max_iterations;          /* the iteration budget used (options', else the fit file's) */
    size_t beams;                /* the sensor's beams (the real scan's rows) */
    size_t parameter_count;      /* 1..LSIM_FIT_FILE_MAX_PARAMETERS */
    char names[LSIM_FIT_FILE_MAX_PARAMETERS][LSIM_FIT_FILE_NAME_MAX]; /* "sensor.x", "object.door.yaw",
                                    "material.white.reflectance", "bias.c0" (lsim_fit_parameter_name) */
    double initial[LSIM_FIT_FILE_MAX_PARAMETERS]; /* start values, in the fit's units: metres, radians,
                                                     reflectance 0..1, bias */
    double fitted[LSIM_FIT_FILE_MAX_PARAMETERS];  /* fitted values, same units */
} lsim_fit_file_result;

/* Defaults: max_iterations 0 (the fit file's), progress OFF, report 0. */
LSIM_API void lsim_fit_file_options_init(lsim_fit_file_options *options);
/* Read the fit file `fit_path`, load its scene and real scan, run the fit and write the scene file
 * with the fitted values to `out_path` ("-": standard output), atomically (nothing is left on
 * failure); relative file names inside are rewritten to resolve from out_path's folder. options
 * may be NULL (defaults); result (may be NULL) is filled on success (zeroed on failure).
 * Errors: LSIM_ERR_INVALID_ARGUMENT for the arguments only: a NULL path, max_iterations out of
 * range, or out_path naming the fit file, its scene or its scan ("-o X is the scene file; give the
 * fitted scene a name of its own"); LSIM_ERR_IO when out_path cannot be written (checked before
 * any work: "cannot write the fitted scene: ...") or a file cannot be read; LSIM_ERR_PARSE (and
 * NOT_FOUND, STATE, ...) for the fit file's content, "FIT:LINE:COL: KEY: ..." naming what is valid
 * (a start value outside its bounds, no such object or material, a scan with fewer rows than
 * beams); a failed run reads "the fit failed: ...". */
LSIM_API lsim_status lsim_fit_file_run(lsim_context *ctx, const char *fit_path, const char *out_path,
                                       const lsim_fit_file_options *options, lsim_fit_file_result *result);

/* Patterns from scans (`lidarsim pattern from-scan`, the raster paper §3.3): a scan of a flat wall,
 * taken in the sensor's frame, turned into a pattern file (beam table) whose beams point where the
 * scan's points are, so that `sensor: {file: PATTERN.csv}` reproduces the capture's directions.
 * Each point with a return (finite x, y, z, not all 0; range > 0 when there is a range column)
 * becomes one row in the scan's order: azimuth_deg = atan2(y, x), elevation_deg =
 * atan2(z, hypot(x, y)), plus time_s and ring when the scan has `time` / `ring` columns. The wall
 * plane is fitted by (total) least squares. */
#define LSIM_PATTERN_PLANAR_RMS_M 0.02 /* rms off the fitted plane (m) above which it was not a flat wall;
                                          also the tolerance of wall_distance_m */

typedef struct lsim_pattern_options {
    double wall_distance_m; /* the wall's known distance from the sensor (m): warn when the fitted plane
                               is more than LSIM_PATTERN_PLANAR_RMS_M off it; 0 (default): not known */
    int report;             /* 1: print "OUT: N beams (of M rows)...", the wall line and any time shift on
                               stdout. Default 0 */
    int warnings;           /* 1: print the warnings (points not planar, wall not at wall_distance_m) on
                               stderr, as "lidarsim pattern: warning: ...". Default 1 */
} lsim_pattern_options;

typedef struct lsim_pattern_scan_info {
    size_t rows;          /* rows in the scan */
    size_t beams;         /* points with a return: the pattern's rows */
    int has_time, has_ring;
    double time_shift_s;  /* subtracted from every time so that the earliest is >= 0 (0: none) */
    double distance_m;    /* the fitted wall plane: distance from the sensor's origin (m) */
    double normal[3];     /* its unit normal, pointing from the sensor towards the wall */
    double rms_m;         /* rms distance of the points from the plane (m) */
    double max_m;         /* the largest distance of a point from the plane (m) */
    int planar;           /* 1 if rms_m <= LSIM_PATTERN_PLANAR_RMS_M */
    int distance_matches; /* 1 if wall_distance_m was not given or distance_m is within
                             LSIM_PATTERN_PLANAR_RMS_M of it */
} lsim_pattern_scan_info;

/* Defaults: wall_distance_m 0, report 0, warnings 1. */
LSIM_API void lsim_pattern_options_init(lsim_pattern_options *options);
/* Read `scan_path` (CSV with a header line, PCD or PLY with x, y, z columns in the sensor frame),
 * write the pattern file `out_path` atomically (columns azimuth_deg,elevation_deg[,time_s,ring]) and
 * fill *info (may be NULL). options may be NULL (defaults). A non-planar capture is written all
 * the same (info->planar 0, and a warning). Errors, with no output file (an existing one is left
 * as it was): LSIM_ERR_INVALID_ARGUMENT for the arguments only (a NULL path, a negative
 * wall_distance_m, out_path naming the scan itself); LSIM_ERR_IO for an unreadable scan or an
 * unwritable output; LSIM_ERR_PARSE for a malformed scan, a missing x/y/z column, fewer than 3
 * points with a return, points on one line (no plane) or a ring outside 0..65535. */
LSIM_API lsim_status lsim_pattern_from_scan(lsim_context *ctx, const char *scan_path, const char *out_path,
                                            const lsim_pattern_options *options, lsim_pattern_scan_info *info);

/* Datasets (`lidarsim dataset`): random scenes from a config (sensor, object library, layout,
 * jitter, trajectory, moving actors; examples/dataset/README.md), every frame scanned noisy and
 * clean and written as a SemanticKITTI tree (docs/datasets.md), each frame atomically and
 * recorded in a manifest, so that a run stopped at any point resumes with the missing frames only.
 * Frame k is a function of (config, seed, k) alone: the same bytes whatever the split into shards
 * and ranks, the threads or the resumes. */
typedef struct lsim_dataset lsim_dataset;

/* Read and check a dataset config (YAML). Errors: LSIM_ERR_IO when it cannot be read,
 * LSIM_ERR_PARSE "PATH:LINE:COL: KEY: what to do" (missing mesh files, impossible ranges, unknown
 * keys, a placement that cannot fit). On success *out is the caller's (lsim_dataset_destroy); it
 * reports errors into ctx. */
LSIM_API lsim_status lsim_dataset_load(lsim_context *ctx, const char *config_path, lsim_dataset **out);
LSIM_API void lsim_dataset_destroy(lsim_dataset *dataset);

typedef struct lsim_dataset_run_options {
    size_t frames;               /* frames in all; 0 (default): the config's `frames` */
    int seed_given;              /* 1: seed instead of the config's `seed` */
    uint64_t seed;
    unsigned shard, shards;      /* write only shard `shard` of `shards`: blocks of consecutive frames of a
                                    sequence dealt out to the shards (default 0 of 1: every frame) */
    unsigned rank, ranks;        /* within the shard, rank `rank` of `ranks` (MPI; default 0 of 1) */
    int threads;                 /* threads, 0..1024; 0 (default): all cores. Frames run side by side, one
                                    a thread, each on its own copy of its sequence's scene (a thread builds
                                    a sequence's scene once for the frames of it it takes); with fewer runs
                                    of frames to do than threads, each frame's scan takes the threads left */
    lsim_progress_mode progress; /* on stderr; default OFF */
    size_t stop_after;           /* return after writing this many frames (0, default: no limit); a later
                                    run resumes */
    lsim_format points_format;   /* also write each frame's noisy points as sequences/SS/points/NNNNNN.EXT
                                    with every field the format holds (lsim_format_fields), in the frame's
                                    all-or-none write: LSIM_FORMAT_PCD (binary), _PLY, _LAS or _CSV, whatever
                                    the config says; LSIM_FORMAT_AUTO (0, default): the config's
                                    `points_format` (none when it has none). Other formats:
                                    LSIM_ERR_INVALID_ARGUMENT. dataset.json records it: a resume with another
                                    format is refused */
} lsim_dataset_run_options;

typedef struct lsim_dataset_run_stats {
    size_t frames;      /* frames of the dataset */
    size_t mine;        /* frames this shard and rank own */
    size_t done_before; /* of those, finished when the run began: listed in the manifest, and their files
                           the size and CRC-32 the manifest gives */
    size_t written;     /* frames written by this run */
    size_t points;      /* noisy points written by this run */
    double seconds;     /* wall time of the run */
    size_t redone;      /* of `mine`, frames the manifest listed whose files were missing, resized or changed
                           (or listed by an older lidarsim, without sizes and CRCs): written again */
    size_t first_redone; /* the first of those (frame number); SIZE_MAX when none */
    size_t empty;       /* frames written by this run with no points: the sensor saw nothing (has the
                           trajectory left the layout?) */
    size_t first_empty; /* the first of those (frame number); SIZE_MAX when none */
    size_t cleaned;     /* temporary files of killed runs removed (NAME.tmp.XXXXXX of the tree's files) */
} lsim_dataset_run_stats;

/* Defaults: as the fields say (every frame, one writer, all cores, no progress). */
LSIM_API void lsim_dataset_run_options_init(lsim_dataset_run_options *options);
/* Write the frames of `dataset` this shard and rank own into `out_dir` (created with missing
 * parents), skipping those its manifest lists whose files are whole (each file's size and CRC-32,
 * recorded in the manifest, are checked: a frame with a file missing, resized or changed is written
 * again). Temporary files killed runs left in out_dir's tree are removed first (only lidarsim's own
 * "NAME.tmp.XXXXXX" names; with other writers running in out_dir, only those of this writer's frames).
 * Every file is fsync'ed before its rename, its folder after it, and the manifest line after that.
 * Frames run side by side (options->threads) and the manifest lists them in frame order: the tree
 * and the manifest are the same bytes for any thread count.
 * options may be NULL (defaults); stats (may be NULL) is filled also on failure (the frames before the failed one
 * are kept and recorded; later frames other threads finished may be on disk unrecorded, and a rerun writes
 * them again). Errors (in the
 * dataset's context): LSIM_ERR_INVALID_ARGUMENT for shard >= shards, rank >= ranks, frames out of
 * range, threads outside 0..1024, or when out_dir holds a different dataset (its dataset.json names the seed, frames,
 * config or points format that differ: a resume must not mix datasets); LSIM_ERR_IO naming the file that cannot be
 * written; a NULL dataset is LSIM_ERR_INVALID_ARGUMENT with no message (no context to hold one). */
LSIM_API lsim_status lsim_dataset_run(const lsim_dataset *dataset, const char *out_dir,
                                      const lsim_dataset_run_options *options, lsim_dataset_run_stats *stats);


/* ---------------------------------------------------------------------------------------------- */
/* Benchmarks and the live viewer (`lidarsim bench`, `lidarsim view`) */

/* Benchmarks (`lidarsim bench`, docs/performance.md): one run function for all of them; the
 * options say which one and hold its settings, and its report goes to standard output (exactly what
 * `lidarsim bench` prints) or to a file. Times depend on the machine; the other figures (beams,
 * points, echoes, mismatches) do not. */
typedef enum lsim_bench_kind {
    LSIM_BENCH_FRAME = 0,    /* full lidarsim frames (rays, trace, shade, noise, points) vs raw Embree
                              * (rtcIntersect1 per ray) on the same rays and closed ~1M-triangle mesh, per beam
                              * count: a table row or a JSON line each (`lidarsim bench`) */
    LSIM_BENCH_BLOOMING = 1, /* beam divergence and blooming at the pbr paper's size (16,384 beams, 4096 x 308
                              * px, 68-px kernel, 1,200 range bins): Alg. 1 vs Alg. 2, one JSON line */
    LSIM_BENCH_PULSES = 2,   /* pulses per second of a VLP-16 inside the mesh, one ray a pulse and with
                              * sub-rays: a table (or JSON lines) of two rows */
    LSIM_BENCH_FIT = 3,      /* the cw paper's fitting experiments on the scenes of scenes_dir: a table */
    LSIM_BENCH_DATASET = 4   /* whole `lidarsim dataset` runs of config, spawned as processes of `program`
                              * and timed from spawn to exit: one JSON line */
} lsim_bench_kind;

/* The benchmark's name as `lidarsim bench` spells it ("frame" for LSIM_BENCH_FRAME, which is
 * `lidarsim bench` itself; "blooming", "pulses", "fit", "dataset"); NULL for an unknown kind. */
LSIM_API const char *lsim_bench_kind_name(lsim_bench_kind kind);

#define LSIM_BENCH_MAX_SIZES 16 /* beam counts one LSIM_BENCH_FRAME run takes at most */

/* What to benchmark and how (lsim_bench_options_init fills the defaults). Fields not used by the
 * chosen kind are ignored. */
typedef struct lsim_bench_options {
    lsim_bench_kind kind;
    int threads;                 /* FRAME, BLOOMING, PULSES: threads 0..1024, 0 = all cores (default 0) */
    int repeat;                  /* repetitions 1..1000, the best kept; default by kind: FRAME 5, BLOOMING 3,
                                  * PULSES 5, FIT 3, DATASET 1 */
    int json;                    /* FRAME, PULSES: 1 = one JSON object a line instead of the table (default 0);
                                  * BLOOMING and DATASET always print JSON, FIT a table */
    lsim_progress_mode progress; /* FRAME: a bar counting beams on stderr (default LSIM_PROGRESS_OFF; the CLI
                                  * uses LSIM_PROGRESS_BAR) */
    const char *report_path;     /* NULL or "-": standard output, each row flushed as it is made; a path: the
                                  * report written there atomically when the run succeeds (nothing on failure) */
    /* LSIM_BENCH_FRAME */
    size_t beams[LSIM_BENCH_MAX_SIZES]; /* beam counts, each 128..100000000 (rounded up to whole columns of
                                  * the 128-channel pattern); default 1000, 10000, 100000, 1000000, 10000000 */
    int beam_count;              /* how many of beams[] are used, 1..LSIM_BENCH_MAX_SIZES (default 5) */
    size_t triangles;            /* mesh size in triangles, 64..100000000 (default 1000000) */
    int engine;                  /* lsim_engine_kind tracing the frames: LSIM_ENGINE_EMBREE (default) or
                                  * LSIM_ENGINE_RASTER (a cube map rendered in the first frame and reused) */
    int moving;                  /* 1: the sensor drives at 10 m/s and turns at 30 deg/s during every frame */
    uint32_t fields;             /* LSIM_FIELD_BIT mask of the point fields the frame fills (0: all, default) */
    int noise;                   /* 1: range and intensity noise on (default), 0: off */
    /* LSIM_BENCH_PULSES */
    int rings;                   /* sub-ray rings 1..8 of the second case (default 2: 19 rays a pulse) */
    /* LSIM_BENCH_FIT */
    const char *scenes_dir;      /* the experiments' scenes (default "examples/cw", from the working folder) */
    const char *baselines_dir;   /* NULL (default): none; a folder: also write expN_source.csv, expN_target.csv
                                  * and expN_poses.txt of experiments 1 and 2 there (bench/pcl_compare.py) */
    /* LSIM_BENCH_DATASET */
    const char *config;          /* the dataset config (default "examples/dataset/dataset.yaml") */
    long frames;                 /* frames of each run, 2..1000000 (default 500) */
    const char *program;         /* the lidarsim binary the runs spawn (required; the CLI gives its own path) */
    int mpi;                     /* 1: `program` is built with MPI: also time mpirun -n 2 when mpirun is on the
                                  * PATH (default 0) */
} lsim_bench_options;

/* Defaults for every field (above) of a `kind` benchmark. */
LSIM_API void lsim_bench_options_init(lsim_bench_options *options, lsim_bench_kind kind);

/* Run the benchmark and print its report (the format `lidarsim bench` prints: docs/performance.md).
 * Errors set ctx's message: LSIM_ERR_INVALID_ARGUMENT for an option out of range (naming the
 * field, its value and the range), or a DATASET run without `program`; LSIM_ERR_IO for a report
 * path that cannot be written, a scene of the fit that does not load, or a spawned dataset run
 * that fails (the message gives the command to repeat by hand); LSIM_ERR_OUT_OF_MEMORY for a
 * mesh too large; LSIM_ERR_ENGINE for a frame that fails, and for BLOOMING when Alg. 1 and
 * Alg. 2 disagree on any beam (its JSON line is still printed on standard output; a report file
 * is not written). */
LSIM_API lsim_status lsim_bench_run(lsim_context *ctx, const lsim_bench_options *options);

/* The live viewer (`lidarsim view`, docs/viewer.md): the scene's triangles (flat shaded,
 * coloured by label or material), the sensor (a marker and its axes), the beams as lines from
 * the sensor to each hit (coloured by intensity) and the points (by intensity or label), in a
 * GLFW window with an OpenGL 3.3 core context. Keys move the sensor and re-scan the frame. With
 * a screenshot path, one frame is rendered off-screen into a PNG and the viewer returns at once.
 * Needs a display (DISPLAY or WAYLAND_DISPLAY; headless: under xvfb-run). */
typedef struct lsim_view_options {
    const char *scene;        /* scene file (required) */
    const char *screenshot;   /* PNG to write (atomically), then return; NULL: the interactive window */
    int width, height;        /* window or screenshot size in pixels, 16..8192 each (default 1280 x 800) */
    int has_camera;           /* 1: the camera at eye looking at target; 0 (default): 35 m behind and above
                               * the sensor (60 deg up), looking at it */
    double eye[3], target[3]; /* world, metres */
    int has_sensor_position;  /* 1: put the sensor at sensor_position (world, m) before the first scan */
    double sensor_position[3];
    int has_sensor_yaw;       /* 1: the sensor's yaw is sensor_yaw_deg (degrees) before the first scan */
    double sensor_yaw_deg;
    long max_beams;           /* beam lines drawn at most, 0..100000000 (every k-th beam; default 5000; 0: none) */
    int colour_by_label;      /* 1: points by label; 0: by intensity (default) */
    int colour_by_material;   /* 1: triangles by material; 0: by label (default) */
    int hide_beams;           /* 1: start with the beam lines off */
    int threads;              /* scan threads 0..1024 (0: all cores, default) */
    int quiet;                /* 1: no key help, no line per scan, no "wrote FILE" line (default 0) */
} lsim_view_options;

/* Defaults for every field (scene and screenshot NULL). */
LSIM_API void lsim_view_options_init(lsim_view_options *options);

/* Load the scene, scan its sensor's frame and show it until the window is closed (Esc), or write
 * the screenshot and print "wrote FILE (WxH)" on standard output unless quiet. Errors set ctx's
 * message: LSIM_ERR_INVALID_ARGUMENT (no scene, a size, beam or thread count out of range), the
 * scene loader's FILE:LINE message, LSIM_ERR_IO for no display (the message names xvfb-run and
 * DISPLAY), a window or OpenGL 3.3 context GLFW cannot make, or a PNG that cannot be written
 * (nothing is left at its path). GLFW is process-wide: call it from the main thread, one view at
 * a time. */
LSIM_API lsim_status lsim_view_run(lsim_context *ctx, const lsim_view_options *options);


/* ---------------------------------------------------------------- compare (docs/compare.md) */

/* Per-beam agreement of two frames of one sensor (`lidarsim compare REAL SIM`): a real frame and a
 * simulated one, or any two. Beams are matched by (ring, column) when both point sets hold ring and
 * azimuth (the column: the azimuth binned by the sensor's column count, centred on each ring's
 * beams) or ring and time; else by beam direction (each point's azimuth/elevation, or the direction
 * of x, y, z: the nearest of the other frame within half the angular step, both ways). A beam is a
 * "hit" when it returned (a point with a finite range > 0; several echoes: the first). */
typedef enum lsim_compare_match {
    LSIM_COMPARE_MATCH_AUTO = 0,      /* by beam when both have ring and azimuth or time, else by direction */
    LSIM_COMPARE_MATCH_BEAM = 1,      /* by (ring, column): both must hold ring and azimuth or time */
    LSIM_COMPARE_MATCH_DIRECTION = 2  /* by beam direction */
} lsim_compare_match;

typedef struct lsim_compare_options {
    lsim_compare_match match; /* default AUTO */
    int columns;  /* columns per frame for matching by beam, 0 (default): inferred from the azimuth steps */
    int rings;    /* rings of the sensor, 0 (default): the larger ring + 1 of the two; both must agree */
} lsim_compare_options;
LSIM_API void lsim_compare_options_init(lsim_compare_options *options);

/* Differences sim - real of one quantity over the beams both hit; NaN where count is 0. */
typedef struct lsim_compare_errors {
    uint64_t count;
    double median;     /* signed */
    double median_abs, mean_abs, rmse, p95_abs;
} lsim_compare_errors;

/* The agreement of a group of beams (all, one ring, one range band). */
typedef struct lsim_compare_stats {
    uint64_t both_hit, real_only, sim_only, both_miss; /* both_miss: known only when matched by beam */
    double precision; /* of sim's hits: both_hit / (both_hit + sim_only); NaN when none */
    double recall;    /* of real's hits: both_hit / (both_hit + real_only) */
    double f1;        /* 2 P R / (P + R) */
    lsim_compare_errors range;        /* metres */
    lsim_compare_errors intensity;    /* where both hold intensity (else count 0) */
    lsim_compare_errors reflectivity; /* where both hold reflectivity */
    double chamfer_m; /* symmetric mean nearest-neighbour distance of the hit points (metres; all only: NaN in a
                       * ring or band, and when either has no hit) */
} lsim_compare_stats;

/* Range bands of a beam (the real range where real hit, else the sim's): 0-10, 10-20, 20-40,
 * 40-80, 80+ m. */
#define LSIM_COMPARE_BANDS 5
typedef enum lsim_compare_group {
    LSIM_COMPARE_ALL = 0, LSIM_COMPARE_RING = 1, LSIM_COMPARE_BAND = 2
} lsim_compare_group;

typedef struct lsim_compare lsim_compare;
/* Compare `real` and `sim` (points of lsim_points_read, _read_recording or a scan, in the sensor
 * frame). Errors (*out NULL): LSIM_ERR_INVALID_ARGUMENT (NULL argument, an option out of range,
 * matching by beam without ring and azimuth or time, a point set without x/y/z, frames of
 * different sensors: other ring or column counts, a ring beyond --rings, no beam matched),
 * LSIM_ERR_OUT_OF_MEMORY. */
LSIM_API lsim_status lsim_compare_points(lsim_context *ctx, const lsim_points *real, const lsim_points *sim,
                                         const lsim_compare_options *options, lsim_compare **out);
/* How the beams were matched: LSIM_COMPARE_MATCH_BEAM or _DIRECTION; rings and columns (0 for
 * direction); tolerance_deg the direction match's half step (0 for beam). Any pointer may be NULL. */
LSIM_API lsim_status lsim_compare_get_layout(const lsim_compare *cmp, lsim_compare_match *match, int *rings,
                                             int *columns, double *tolerance_deg);
/* Statistics of a group: ALL (index 0), RING (0..rings-1; by direction: the points' rings when
 * both hold ring, else none), BAND (0..LSIM_COMPARE_BANDS-1). LSIM_ERR_INVALID_ARGUMENT for an
 * index out of range. */
LSIM_API lsim_status lsim_compare_get_stats(const lsim_compare *cmp, lsim_compare_group group, int index,
                                            lsim_compare_stats *out);
/* Write the report into folder `dir` (created when missing), all files or none: summary.json
 * (every statistic, by ring and by band), errors.png (histogram of sim - real range of the beams
 * both hit) and, matched by beam, range_images.png (real, sim and sim - real ranges by ring and
 * column). `real_name`, `sim_name` (may be NULL) go into the JSON. LSIM_ERR_IO naming the path. */
LSIM_API lsim_status lsim_compare_write_report(const lsim_compare *cmp, const char *dir, const char *real_name,
                                               const char *sim_name);
LSIM_API void lsim_compare_destroy(lsim_compare *cmp);

/* ---------------------------------------------------------------- twin (docs/twin.md) */

/* A digital twin from a real recording (`lidarsim twin`): frames and the sensor's pose per frame
 * in, an ordinary scene out that any sensor scans. Each frame's returns go on the sensor's beam
 * grid (ring by column), each moved to the world by the pose at its own firing time (the
 * trajectory through the poses, so a moving sensor's sweep is undone); neighbouring returns become
 * triangles except across depth edges; a return that another frame's beam saw through is a moving
 * object and is left out; where the frames see one surface its two measurements are averaged.
 * Each surface gets a Lambertian reflectance inverted through lidarsim's intensity model from the
 * recording's reflectivity (Ouster's calibrated channel: reflectivity / cos(incidence)) or its
 * intensity (intensity R^2 / cos), in `reflectance_levels` materials; the recording's sensor
 * (its calibration file) rides the recorded trajectory, and its ray drop measured frame against
 * frame (where the other frames' surfaces predict an echo and the real beam returned none, by
 * range, incidence and reflectance) becomes its `noise.drop` table. */
typedef struct lsim_twin_options {
    /* The recording: a pcap (Ouster or Velodyne packets) with its unit's `calibration` (as
     * lsim_points_read_recording takes it), or a folder of frames (a SemanticKITTI sequence:
     * `velodyne/NNNNNN.bin` or `points/NNNNNN.{pcd,ply,las,csv}`, with `poses.txt` in it), whose
     * sensor is `calibration` (a unit's file) or `sensor` (a preset name). */
    const char *calibration;
    const char *sensor;
    const char *poses;          /* KITTI poses: a 3 x 4 matrix per line, one per frame from 0 (NULL: the folder's poses.txt) */
    const int64_t *frames;      /* frames to build from (NULL: every frame the poses cover) */
    size_t frame_count;
    double pose_time;           /* where in its frame each pose holds, 0..1 of the period (default 0.5, mid-sweep, as
                                 * KISS-ICP and Ouster's SLAM give them; 0: the frame's first firing, as lidarsim's
                                 * datasets and scans write them) */
    int reflectance_levels;     /* materials the reflectances are put in, 1..256 (default 48: log-spaced, 0.01..1) */
    double shadow_angle_deg;    /* no triangle edge within this of its beam (a depth edge), 0.1..45 (default 3) */
    int drop_model;             /* 1 (default): measure the ray drop and give the sensor its table; 0: none */
    int partial;                /* 1: count a pcap's incomplete first and last frames too (lsim_recording_options) */
    int naive;                  /* 1: the baseline: every frame at its pose (no sweep undone), no moving objects left
                                 * out, nothing averaged, one material (Lambertian 0.5), no drop table */
    lsim_progress_mode progress;
} lsim_twin_options;
LSIM_API void lsim_twin_options_init(lsim_twin_options *options);

typedef struct lsim_twin_stats {
    uint64_t frames, points;    /* frames built from, their returns */
    uint64_t transient;         /* returns left out as moving (seen through by another frame) */
    uint64_t fused;             /* returns averaged with another frame's surface */
    uint64_t triangles;
    int materials;
    uint64_t drop_beams;        /* beams the drop table was measured on (0: none) */
    double drop_rate;           /* their overall drop rate */
} lsim_twin_stats;

/* Build the twin of `recording` into folder `dir` (created when missing), all files or none:
 * scene.yaml (the sensor on its trajectory, materials, meshes), surface_NN.ply, trajectory.csv,
 * the unit's calibration copied as sensor.json / sensor.yaml / sensor.xml, and twin.json (what was
 * built, the drop table). Scan frame k as recorded with scan_time k / rate. stats may be NULL.
 * Errors: LSIM_ERR_INVALID_ARGUMENT (an option out of range, a frame the poses do not cover, a
 * recording without ring and time that its sensor cannot place), LSIM_ERR_PARSE (a poses file
 * naming its line), LSIM_ERR_IO, LSIM_ERR_NOT_FOUND (a frame beyond the recording), and the
 * readers' errors. */
LSIM_API lsim_status lsim_twin_build(lsim_context *ctx, const char *recording, const lsim_twin_options *options,
                                     const char *dir, lsim_twin_stats *stats);



#ifdef __cplusplus
}
#endif

#endif /* LIDARSIM_H */
