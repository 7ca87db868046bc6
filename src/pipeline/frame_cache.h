/* What the pipeline keeps for a scene from one frame to the next: the engine built over the
 * scene's objects and the frame workspace.
 *
 * Who owns the engine: the pipeline. The engines (src/geometry/) read the scene's objects; the
 * scene (src/scene/, below them) knows no engine. It keeps which engine to build and the raster
 * settings, counts the changes a built engine does not follow (scene->engine_changes), and holds
 * this cache as an opaque pointer with the function that frees it (scene->frame_cache,
 * frame_cache_free), so the engine goes with the scene. lsim_scene_commit, or the first frame,
 * builds the engine; a frame after a change destroys it and builds the next (never tracing a stale
 * one), and a frame after none reuses it and allocates nothing. The tools that trace the scene's
 * engine themselves (the fit's path walk, bench pulses) ask for it here after a commit. Every
 * function runs under the scene's lock (lsim_scene_lock), which the callers hold or take. */
#ifndef LSIM_PIPELINE_FRAME_CACHE_H
#define LSIM_PIPELINE_FRAME_CACHE_H

#include "lidarsim.h"
#include "geometry/engine.h"

struct lsim_frame_workspace; /* pipeline/frame.h */

/* The scene's engine, built now if there is none or the scene changed since it was built (the
 * old one destroyed first); *built = 1 when this call built it (its time is scene->build_ms). */
lsim_status lsim_scene_engine_ready(lsim_scene *scene, lsim_engine **engine, int *built);

/* The engine the last commit built, or NULL when none was built or the scene changed since. */
lsim_engine *lsim_scene_engine(const lsim_scene *scene);

/* The scene's frame workspace, created on first use and kept for the next frame. */
lsim_status lsim_scene_workspace(lsim_scene *scene, struct lsim_frame_workspace **out);

#endif
