/*  fuzz_support.c - physics and the bus receivers for the harnesses (see
    fuzz_support.h). */
#include "fuzz_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "common/bus/sim_bus.h"
#include "common/bus/sim_bus_codec.h"
#include "common/bus/sim_lane.h"
#include "common/base/sim_log.h"
#include "common/base/sim_team.h"
#include "common/config/sim_schedule_config.h"
#include "common/bus/sim_udp.h"
#include "services/gateway/gw_cap.h"
#include "services/gateway/gw_pending.h"
#include "services/gateway/gw_sync.h"
#include "services/gateway/gw_translate.h"
#include "services/gateway/gw_wire.h"
#include "engine/world/phys_apply.h"
#include "engine/world/phys_def.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

/* A check that holds whatever the input: a failure is a finding. */
#define FZ_CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf (stderr, "fuzz check failed: %s: ", #cond); \
            fprintf (stderr, __VA_ARGS__); \
            fprintf (stderr, "\n"); \
            abort (); \
        } \
    } while (0)

void
fz_init (void)
{
    sim_log_set_service ("fuzz");
    sim_log_set_level (SIM_LOG_ERROR);
}

void
fz_physics_init (fz_physics_t *self)
{
    memset (self, 0, sizeof *self);
    sim_config_defaults (&self->cfg);
    self->config_serial = 1;
    phys_world_def_t def;
    phys_world_def_from_config (&def, &self->cfg);
    char why[192] = "";
    self->world = phys_world_new (&def, why, sizeof why);
    sim_schedule_def_t sdef;
    sim_schedule_def_from_config (&sdef, &self->cfg);
    self->schedule = sim_schedule_new (&sdef);
    self->feedback = malloc (sizeof *self->feedback);
    FZ_CHECK (self->world && self->schedule && self->feedback, "cannot make the default world: %s", why);
}

void
fz_physics_fini (fz_physics_t *self)
{
    phys_world_destroy (&self->world);
    sim_schedule_destroy (&self->schedule);
    free (self->feedback);
    self->feedback = NULL;
}

/* What physics publishes after a change, read back by a service that
   adopts it: a configuration physics accepted must load everywhere.
   Returns 0, or -1 with the loader's message in err. */
static int
s_config_loads (const sim_config_t *cfg, uint64_t serial, char *err, size_t errlen)
{
    sim_bus_config_msg_t msg;
    Simbus__Envelope *env = sim_bus_config_encode (&msg, cfg, serial);
    FZ_CHECK (env != NULL, "the effective configuration cannot be dumped");
    size_t len = 0;
    void *record = sim_lane_pack (SIM_TOPIC_CONFIG, env, &len);
    sim_bus_config_msg_release (&msg);
    FZ_CHECK (record != NULL, "the effective configuration does not fit a lane record");
    size_t env_len = 0;
    const void *packed = sim_lane_envelope (record, len, &env_len);
    Simbus__Envelope *back = sim_bus_decode (packed, env_len, NULL);
    FZ_CHECK (back && back->body_case == SIMBUS__ENVELOPE__BODY_CONFIG, "the configuration envelope is lost");
    sim_config_t own, adopted;
    sim_config_defaults (&own);
    adopted = own;
    uint64_t adopted_serial = 0;
    int rc = sim_bus_config_decode (back->config, &own, &adopted, &adopted_serial);
    if (rc != 0) {
        sim_config_t probe;
        sim_config_defaults (&probe);
        sim_config_load_string (&probe, back->config->ini, "effective configuration", err, errlen);
    }
    simbus__envelope__free_unpacked (back, NULL);
    free (record);
    return rc == 0 ? 0 : -1;
}

static void
s_publish_config (fz_physics_t *self)
{
    char err[256] = "";
    if (s_config_loads (&self->cfg, self->config_serial, err, sizeof err) == 0)
        return;
    FZ_CHECK (false, "the effective configuration physics accepted does not load: %s", err);
}

void
fz_physics_request (fz_physics_t *self, const Simbus__Request *req)
{
    sim_errors_t errors, robot_errors;
    sim_errors_init (&errors);
    sim_errors_init (&robot_errors);
    phys_feedback_t *feedback = self->feedback;
    feedback->count = 0;
    phys_changes_t changes = { false, false };
    if (req->simulator_command)
        phys_apply_command (self->world, &self->cfg, req->simulator_command, &errors, &changes);
    if (req->team_control && req->team_control->control) {
        sim_team_t team = sim_team_from_number (req->team_control->team);
        phys_apply_robot_control (self->world, team, req->team_control->control, &robot_errors, feedback);
    }
    if (changes.rig) {
        sim_schedule_def_t def;
        sim_schedule_def_from_config (&def, &self->cfg);
        sim_schedule_reset_rig (self->schedule, &def, phys_world_time_ns (self->world));
    }
    if (changes.config) {
        self->config_serial++;
        s_publish_config (self);
    }
    uint64_t steps = req->has_substeps ? req->substeps : 0;
    if (steps > FZ_STEPS_MAX)
        steps = FZ_STEPS_MAX;
    if (steps == 0)
        steps = 1; /* the clock runs on in realtime: the applied state meets the core */
    for (uint64_t i = 0; i < steps; i++) {
        phys_world_step (self->world);
        uint64_t t = phys_world_time_ns (self->world);
        if (t >= sim_schedule_next_due (self->schedule)) {
            sim_snapshot_t snap;
            phys_world_snapshot (self->world, &snap);
            uint32_t mask, frames[SIM_MAX_CAMERAS];
            sim_schedule_advance (self->schedule, t, sim_schedule_delay_ns (self->cfg.realism.vision_delay),
                                  &mask, frames);
        }
    }
    Simbus__Reply reply = SIMBUS__REPLY__INIT;
    reply.id = req->id;
    reply.n_errors = errors.count;
    reply.errors = errors.ptrs;
    reply.n_robot_errors = robot_errors.count;
    reply.robot_errors = robot_errors.ptrs;
    reply.n_feedback = feedback->count;
    reply.feedback = feedback->ptrs;
    reply.time_ns = phys_world_time_ns (self->world);
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REPLY, &reply);
    size_t len = 0;
    void *record = sim_lane_pack ("R", &env, &len);
    free (record);
}

int
fz_forward (fz_physics_t *self, Simbus__Request *req)
{
    Simbus__Envelope env;
    sim_bus_wrap (&env, SIMBUS__ENVELOPE__BODY_REQUEST, req);
    size_t len = 0;
    void *record = sim_lane_pack ("Q", &env, &len);
    /* a request made from one datagram always fits a lane record */
    FZ_CHECK (record != NULL, "a request of a datagram does not fit a lane record");
    size_t env_len = 0;
    const void *packed = sim_lane_envelope (record, len, &env_len);
    Simbus__Envelope *back = sim_bus_decode (packed, env_len, NULL);
    free (record);
    if (!back)
        return -1;
    FZ_CHECK (back->body_case == SIMBUS__ENVELOPE__BODY_REQUEST, "a request came back as body %d",
              (int) back->body_case);
    fz_physics_request (self, back->request);
    simbus__envelope__free_unpacked (back, NULL);
    return 0;
}

/* ---- the receivers of everything else ----------------------------------- */

/* The gateway's answers to a command's and a robot control's reply. */
static void
s_gateway_plain_answers (const Simbus__Reply *reply, uint8_t *buf)
{
    SimulatorResponse sr = SIMULATOR_RESPONSE__INIT;
    sr.n_errors = reply->n_errors;
    sr.errors = reply->errors;
    if (simulator_response__get_packed_size (&sr) <= GW_DATAGRAM_MAX)
        simulator_response__pack (&sr, buf);
    RobotControlResponse rr = ROBOT_CONTROL_RESPONSE__INIT;
    rr.n_errors = reply->n_robot_errors;
    rr.errors = reply->robot_errors;
    rr.n_feedback = reply->n_feedback;
    rr.feedback = reply->feedback;
    if (robot_control_response__get_packed_size (&rr) <= GW_DATAGRAM_MAX)
        robot_control_response__pack (&rr, buf);
}

/* The physics reply a message carries, or NULL. */
static const Simbus__Reply *
s_reply_of (const Simbus__Envelope *env)
{
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_REPLY:
        return env->reply;
    case SIMBUS__ENVELOPE__BODY_STEP_DONE:
        return env->step_done->reply;
    case SIMBUS__ENVELOPE__BODY_FRAMES_DONE:
        return env->frames_done->reply;
    default:
        return NULL;
    }
}

/* True when every frame of `req` is a wrapper packet whose detection
   frame decodes (or has none: it is left out of the answer). */
static bool
s_frames_decode (const gw_request_t *req)
{
    for (size_t i = 0; i < req->frame_count; i++) {
        const uint8_t *detection;
        size_t n;
        if (!gw_wire_bytes_field (zchunk_data (req->frames[i]), zchunk_size (req->frames[i]), 1, &detection,
                                  &n))
            continue;
        SSLDetectionFrame *frame = ssl__detection_frame__unpack (NULL, n, detection);
        if (!frame)
            return false;
        ssl__detection_frame__free_unpacked (frame, NULL);
    }
    return true;
}

/* The pending table's id of the input's `id`: 1, 2 and 3 name its three
   requests (the table numbers its ids from the wall clock, so that a
   restarted gateway never reuses one; the corpus keeps small ids). */
static uint64_t
s_ours (const uint64_t ids[3], uint64_t id)
{
    return id >= 1 && id <= 3 ? ids[id - 1] : id;
}

/* The gateway with one pending request of each kind (the input's ids 1, 2,
   3): a reply or a step's end is matched, kept and answered as s_on_bus
   does. */
static void
s_gateway (Simbus__Envelope *env)
{
    gw_pending_t *pending = gw_pending_new (4);
    FZ_CHECK (pending != NULL, "out of memory");
    struct sockaddr_in from;
    memset (&from, 0, sizeof from);
    gw_request_t *command = gw_pending_add (pending, GW_REQ_COMMAND, GW_PORT_CONTROL, &from, 0);
    gw_request_t *robots = gw_pending_add (pending, GW_REQ_ROBOTS, GW_PORT_BLUE, &from, 0);
    gw_request_t *sync = gw_pending_add (pending, GW_REQ_SYNC, GW_PORT_YELLOW, &from, 0);
    FZ_CHECK (command && robots && sync, "out of memory");
    const uint64_t ids[3] = { command->id, robots->id, sync->id };
    sync->team_robot_control = true;
    uint8_t *buf = malloc (SIM_UDP_MAX);
    FZ_CHECK (buf != NULL, "out of memory");

    if (env->body_case == SIMBUS__ENVELOPE__BODY_FRAMES_DONE) {
        const Simbus__FramesDone *done = env->frames_done;
        gw_request_t *p = gw_pending_find (pending, s_ours (ids, done->step_id));
        if (p && p->kind == GW_REQ_SYNC) {
            gw_pending_keep_frames (p, done->wrapper, done->n_wrapper);
            p->frames_done = true;
        }
    }
    /* the same message once more, for a second reply to the same step */
    Simbus__Envelope *again = NULL;
    size_t size = simbus__envelope__get_packed_size (env);
    if (size <= SIM_UDP_MAX) {
        simbus__envelope__pack (env, buf);
        again = simbus__envelope__unpack (NULL, size, buf);
        /* the field-0 defect of issue 11 (README.md): protobuf-c keeps an
           `80 00` key as an unknown field and packs it as `00 00` */
        FZ_CHECK (again || !fz_strict (), "an envelope does not decode after packing it again");
    }
    bool repacks = again != NULL;
    const Simbus__Reply *reply = s_reply_of (env);
    gw_request_t *p = reply ? gw_pending_find (pending, s_ours (ids, reply->id)) : NULL;
    if (p && p->kind != GW_REQ_SYNC) {
        s_gateway_plain_answers (reply, buf);
        simbus__envelope__free_unpacked (env, NULL);
    } else if (p) {
        gw_pending_set_reply (p, env, reply); /* takes env */
        /* a second reply for the same step (issue 11's lane datagram):
           the first counts, the copy is freed */
        if (again && s_reply_of (again))
            gw_pending_set_reply (p, again, s_reply_of (again));
        else if (again)
            simbus__envelope__free_unpacked (again, NULL);
        again = NULL;
    } else
        simbus__envelope__free_unpacked (env, NULL);
    if (again)
        simbus__envelope__free_unpacked (again, NULL);

    sim_errors_t errors;
    size_t len = 0, left_out = 0;
    gw_sync_answer (sync, &errors, buf, SIM_UDP_MAX, &len, &left_out);
    FZ_CHECK (len <= GW_DATAGRAM_MAX, "a sync answer of %zu bytes", len);
    /* what an untrusted source would get of it (gw_answers): its errors
       cut to a third of the answer, never over that cap */
    ssize_t cut_len = gw_cap_errors (&errors, sync->port, true, len / 3);
    FZ_CHECK (cut_len < 0 || (size_t) cut_len <= len / 3, "a cut answer of %zd bytes over its cap %zu",
              cut_len, len / 3);
    /* frames are spliced as vision sent them: the answer decodes when
       every frame kept had a detection frame that decodes */
    if (len > 0 && (repacks || fz_strict ()) && s_frames_decode (sync)) {
        SimulationSyncResponse *back = simulation_sync_response__unpack (NULL, len, buf);
        FZ_CHECK (back != NULL, "the spliced sync answer (%zu bytes) does not decode", len);
        simulation_sync_response__free_unpacked (back, NULL);
    }
    free (buf);
    gw_pending_destroy (&pending);
}

void
fz_receive (fz_physics_t *self, Simbus__Envelope *env)
{
    switch (env->body_case) {
    case SIMBUS__ENVELOPE__BODY_REQUEST:
        fz_physics_request (self, env->request);
        break;
    case SIMBUS__ENVELOPE__BODY_SNAPSHOT: {
        sim_snapshot_t snap;
        if (sim_bus_snapshot_decode (env->snapshot, &snap) == 0) {
            FZ_CHECK (snap.robot_count >= 0 && snap.robot_count <= SIM_SNAPSHOT_MAX_ROBOTS, "%d robots",
                      snap.robot_count);
            for (int i = 0; i < snap.robot_count; i++)
                FZ_CHECK ((snap.robots[i].team == 0 || snap.robots[i].team == 1)
                              && snap.robots[i].id <= SIM_MAX_ROBOT_ID,
                          "robot %d: team %d id %d", i, (int) snap.robots[i].team, (int) snap.robots[i].id);
        }
        break;
    }
    case SIMBUS__ENVELOPE__BODY_EVENTS:
        for (size_t i = 0; i < env->events->n_events; i++) {
            sim_event_t e;
            sim_bus_event_decode (env->events->events[i], &e);
        }
        break;
    case SIMBUS__ENVELOPE__BODY_CONFIG: {
        sim_config_t own, cfg;
        sim_config_defaults (&own);
        cfg = own;
        uint64_t serial = 0;
        if (sim_bus_config_decode (env->config, &own, &cfg, &serial) == 0) {
            /* what vision and the gateway then build from it */
            sim_schedule_def_t def;
            sim_schedule_def_from_config (&def, &cfg);
            sim_schedule_t *schedule = sim_schedule_new (&def);
            sim_schedule_destroy (&schedule);
        }
        break;
    }
    case SIMBUS__ENVELOPE__BODY_FRAMES:
        for (size_t i = 0; i < env->frames->n_wrapper; i++) {
            const uint8_t *detection;
            size_t n;
            gw_wire_bytes_field (env->frames->wrapper[i].data, env->frames->wrapper[i].len, 1, &detection,
                                 &n);
        }
        break;
    case SIMBUS__ENVELOPE__BODY_REPLY:
    case SIMBUS__ENVELOPE__BODY_STEP_DONE:
    case SIMBUS__ENVELOPE__BODY_FRAMES_DONE:
        s_gateway (env); /* takes env */
        return;
    default:
        break;
    }
    simbus__envelope__free_unpacked (env, NULL);
}

/* ---- the gateway's datagram path ---------------------------------------- */

bool
fz_strict (void)
{
    const char *strict = getenv ("SSL_SIM_FUZZ_STRICT");
    return strict && strcmp (strict, "1") == 0;
}

/* The gateway's UNREADABLE answer (gw_answer_unreadable). */
static void
s_unreadable (gw_port_kind_t port, uint8_t *buf)
{
    sim_errors_t errors;
    sim_errors_init (&errors);
    gw_translate_unreadable (port, &errors);
    SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
    r.n_errors = errors.count;
    r.errors = errors.ptrs;
    FZ_CHECK (simulator_response__get_packed_size (&r) <= GW_DATAGRAM_MAX, "UNREADABLE too big");
    simulator_response__pack (&r, buf);
}

/* s_start_sync: the request physics gets and the answer without frames. */
static int
s_sync (fz_physics_t *phys, gw_port_kind_t port, SimulationSyncRequest *sync, uint8_t *buf)
{
    char step_why[200] = "";
    int64_t n = gw_sync_substeps (sync, phys->cfg.sim.substep, step_why, sizeof step_why);
    FZ_CHECK (n >= -1 && (double) n * phys->cfg.sim.substep <= GW_MAX_STEP_S + 1e-9, "%lld substeps",
              (long long) n);
    gw_pending_t *pending = gw_pending_new (1);
    struct sockaddr_in from;
    memset (&from, 0, sizeof from);
    gw_request_t *p = gw_pending_add (pending, GW_REQ_SYNC, port, &from, 0);
    FZ_CHECK (p != NULL, "out of memory");
    gw_bus_request_t out;
    p->team_robot_control = gw_translate_sync (&out, p->id, port, sync, n, step_why, p->early);
    int rc = fz_forward (phys, &out.req);
    sim_errors_t errors;
    size_t len = 0, left_out = 0;
    gw_sync_answer (p, &errors, buf, SIM_UDP_MAX, &len, &left_out);
    gw_pending_destroy (&pending);
    return rc;
}

/* s_start_plain: the request physics gets. */
static int
s_plain (fz_physics_t *phys, gw_port_kind_t port, SimulatorCommand *command, RobotControl *robots)
{
    gw_bus_request_t out;
    gw_translate_plain (&out, 1, port, command, robots);
    return fz_forward (phys, &out.req);
}

int
fz_datagram (int port_number, const uint8_t *data, size_t size)
{
    gw_port_kind_t port = (gw_port_kind_t) port_number;
    uint8_t *buf = malloc (SIM_UDP_MAX);
    FZ_CHECK (buf != NULL, "out of memory");
    fz_physics_t phys;
    fz_physics_init (&phys);
    int rc = 0;
    gw_datagram_t d;
    memset (&d, 0, sizeof d);
    if (size > SIM_UDP_MAX)
        s_unreadable (port, buf); /* truncated by the receive */
    else
        switch (gw_translate_decode (&d, port, data, size)) {
        case GW_DATAGRAM_SYNC:
            rc = s_sync (&phys, port, d.sync, buf);
            break;
        case GW_DATAGRAM_COMMAND:
            rc = s_plain (&phys, port, d.command, NULL);
            break;
        case GW_DATAGRAM_ROBOTS:
            rc = s_plain (&phys, port, NULL, d.robots);
            break;
        case GW_DATAGRAM_UNREADABLE:
            s_unreadable (port, buf);
            break;
        }
    gw_translate_release (&d);
    fz_physics_fini (&phys);
    free (buf);
    FZ_CHECK (rc == 0, "physics cannot decode the request the gateway forwarded: never answered");
    return rc;
}
