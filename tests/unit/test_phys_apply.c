/*  test_phys_apply.c - the physics service's edge (services/physics/
    phys_apply.c): real protobuf-c SimulatorCommand and RobotControl
    messages applied to a world and its effective configuration, checked
    in the world's state, in the configuration, in the change flags and in
    the protocol errors produced (protocol.md §4-§6, docs/protocol.md).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/base/sim_utf8.h"
#include "common/config/config.h"
#include "engine/world/phys_apply.h"
#include "engine/physics/phys_world.h"
#include "google/protobuf/any.pb-c.h"
#include "ssl_simulation_config.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_custom_erforce_realism.pb-c.h"
#include "ssl_simulation_custom_sslsim_realism_preset.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "tests/support/sim_from_config.h"
#include "tests/support/sim_msg.h"

/* Wire floats carry about 7 digits: a metre value comes back within this. */
#define WIRE_EPS 1e-6

/* The one place a test world is made, so a change of phys_world_new's
   signature is a change here only. */
static phys_world_t *
s_world_new (const sim_config_t *cfg)
{
    return sim_fc_world_new (cfg);
}

/* A world with the default configuration (11 robots a team) and the
   configuration it was made from, which phys_apply_command edits. */
typedef struct {
    sim_config_t cfg;
    phys_world_t *world;
    sim_errors_t errors;
    phys_changes_t changes;
} fixture_t;

static void
s_setup (fixture_t *f)
{
    memset (f, 0, sizeof *f);
    sim_config_defaults (&f->cfg);
    f->world = s_world_new (&f->cfg);
    cr_assert_not_null (f->world);
    sim_errors_init (&f->errors);
}

static void
s_teardown (fixture_t *f)
{
    phys_world_destroy (&f->world);
}

static void
s_command (fixture_t *f, const SimulatorCommand *cmd)
{
    sim_errors_init (&f->errors);
    memset (&f->changes, 0, sizeof f->changes);
    phys_apply_command (f->world, &f->cfg, cmd, &f->errors, &f->changes);
}

/* The error codes produced, comma separated ("" for none). */
static const char *
s_codes (const sim_errors_t *errors)
{
    static char out[1024];
    out[0] = '\0';
    for (size_t i = 0; i < errors->count; i++) {
        if (i)
            strncat (out, ",", sizeof out - strlen (out) - 1);
        strncat (out, errors->items[i].code, sizeof out - strlen (out) - 1);
    }
    return out;
}

static void
s_steps (phys_world_t *w, int n)
{
    for (int i = 0; i < n; i++)
        phys_world_step (w);
}

static sim_robot_state_t
s_robot (const fixture_t *f, sim_team_t team, unsigned id)
{
    sim_robot_state_t r;
    cr_assert_eq (phys_world_robot (f->world, team, id, &r), 0, "robot %u of team %d is absent", id, team);
    return r;
}

/* ---- SimulatorControl ---------------------------------------------------- */

Test (phys_apply, teleport_ball_moves_it_and_reports_partial_coordinates)
{
    fixture_t f;
    s_setup (&f);
    sim_msg_ball_tp_t m;
    SimulatorCommand *cmd = sim_msg_ball_tp (&m);
    m.tb.has_x = m.tb.has_y = m.tb.has_vx = m.tb.has_vy = true;
    m.tb.x = 1.5f;
    m.tb.y = -0.75f;
    m.tb.vx = 0.5f;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect (!f.changes.config && !f.changes.rig, "a teleport is no configuration change");
    sim_ball_state_t b;
    phys_world_ball (f.world, &b);
    cr_expect (fabs (b.x - 1.5) < WIRE_EPS && fabs (b.y + 0.75) < WIRE_EPS, "ball at (%.6f, %.6f)", b.x, b.y);
    cr_expect (fabs (b.vx - 0.5) < WIRE_EPS && fabs (b.vy) < WIRE_EPS, "ball velocity (%.6f, %.6f)", b.vx,
               b.vy);

    /* x without y: PARTIAL_COORD, the ball stays */
    sim_msg_ball_tp (&m);
    m.tb.has_x = true;
    m.tb.x = -3.0f;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "PARTIAL_COORD");
    cr_expect (strstr (f.errors.items[0].message, "teleport_ball"), "message '%s'",
               f.errors.items[0].message);
    phys_world_ball (f.world, &b);
    cr_expect (fabs (b.x - 1.5) < WIRE_EPS, "a refused teleport moved the ball to x = %.3f", b.x);

    /* a value beyond the limit: UNSUPPORTED naming the field, as a
       command's answer does (docs/protocol.md) */
    sim_msg_ball_tp (&m);
    m.tb.has_x = m.tb.has_y = m.tb.has_vx = m.tb.has_vy = true;
    m.tb.vx = 1e30f;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect (strstr (f.errors.items[0].message, "teleport_ball: vx is not a number within"), "message '%s'",
               f.errors.items[0].message);
    s_teardown (&f);
}

Test (phys_apply, teleport_robot_places_it_and_refuses_bad_ids)
{
    fixture_t f;
    s_setup (&f);
    sim_msg_robot_tp_t b;
    SimulatorCommand *cmd = sim_msg_robot_tp (&b, SIM_MSG_YELLOW, 3);
    sim_msg_robot_xy (&b.tr, -1.0, 2.0);
    b.tr.has_orientation = true;
    b.tr.orientation = 0.5f;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    sim_robot_state_t r = s_robot (&f, SIM_TEAM_YELLOW, 3);
    cr_expect (fabs (r.x + 1.0) < WIRE_EPS && fabs (r.y - 2.0) < WIRE_EPS
                   && fabs (r.orientation - 0.5) < WIRE_EPS,
               "yellow 3 at (%.6f, %.6f, %.6f)", r.x, r.y, r.orientation);
    /* blue 3 is another robot */
    r = s_robot (&f, SIM_TEAM_BLUE, 3);
    cr_expect (fabs (r.x + 1.0) > 0.1 || fabs (r.y - 2.0) > 0.1, "blue 3 moved with yellow 3");

    /* present = false removes it */
    b.tr.has_present = true;
    b.tr.present = false;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    sim_robot_state_t gone;
    cr_expect_eq (phys_world_robot (f.world, SIM_TEAM_YELLOW, 3, &gone), -1, "present = false left yellow 3");
    cr_expect_eq (phys_world_robot_count (f.world), 21);

    /* no team, an id above 255, no id at all: UNSUPPORTED each, and the
       other teleports of the message still apply */
    sim_msg_robot_tp_t no_team, too_big, no_id, good;
    sim_msg_robot_tp (&no_team, SIM_MSG_NO_TEAM, 1);
    sim_msg_robot_tp (&too_big, SIM_MSG_BLUE, 256);
    sim_msg_robot_tp (&no_id, SIM_MSG_BLUE, 2);
    no_id.tr.id = NULL;
    sim_msg_robot_tp (&good, SIM_MSG_BLUE, 0);
    sim_msg_robot_xy (&no_team.tr, 0, 0);
    sim_msg_robot_xy (&too_big.tr, 0, 0);
    sim_msg_robot_xy (&no_id.tr, 0, 0);
    sim_msg_robot_xy (&good.tr, 0.25, 0.25);
    TeleportRobot *mixed[] = { &no_team.tr, &good.tr, &too_big.tr, &no_id.tr };
    b.control.n_teleport_robot = 4;
    b.control.teleport_robot = mixed;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED,UNSUPPORTED,UNSUPPORTED");
    r = s_robot (&f, SIM_TEAM_BLUE, 0);
    cr_expect (fabs (r.x - 0.25) < WIRE_EPS && fabs (r.y - 0.25) < WIRE_EPS, "blue 0 at (%.3f, %.3f)", r.x,
               r.y);

    /* a non-finite coordinate is refused, the robot stays */
    good.tr.x = NAN;
    b.control.n_teleport_robot = 1;
    b.control.teleport_robot = mixed + 1;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect (strstr (f.errors.items[0].message, "teleport_robot blue 0: x is not a number within"),
               "message '%s'", f.errors.items[0].message);
    r = s_robot (&f, SIM_TEAM_BLUE, 0);
    cr_expect (fabs (r.x - 0.25) < WIRE_EPS, "a NaN teleport moved blue 0 to x = %.3f", r.x);
    s_teardown (&f);
}

Test (phys_apply, simulation_speed_changes_the_configuration_once)
{
    fixture_t f;
    s_setup (&f);
    sim_msg_control_t m;
    SimulatorCommand *cmd = sim_msg_control (&m);
    m.control.has_simulation_speed = true;
    m.control.simulation_speed = 2.0f;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect_eq (f.cfg.run.speed, 2.0);
    cr_expect (f.changes.config, "a new speed must be republished");
    /* the same speed again: nothing to republish */
    s_command (&f, cmd);
    cr_expect (!f.changes.config, "an unchanged speed flagged a configuration change");
    /* negative, NaN: refused, speed kept */
    m.control.simulation_speed = -1.0f;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    m.control.simulation_speed = NAN;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    /* beyond SIM_SPEED_MAX (1e30 was taken, issue 24): refused; the
       limit itself is taken */
    m.control.simulation_speed = 1e30f;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    m.control.simulation_speed = INFINITY;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect_eq (f.cfg.run.speed, 2.0);
    cr_expect (!f.changes.config);
    m.control.simulation_speed = (float) SIM_SPEED_MAX;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect_eq (f.cfg.run.speed, SIM_SPEED_MAX);
    s_teardown (&f);
}

/* ---- SimulatorConfig ------------------------------------------------------ */

Test (phys_apply, vision_port_replaces_the_port_only)
{
    fixture_t f;
    s_setup (&f);
    snprintf (f.cfg.run.vision_addr, sizeof f.cfg.run.vision_addr, "224.5.23.2:10006");
    sim_msg_config_t m;
    SimulatorCommand *cmd = sim_msg_config (&m);
    m.config.has_vision_port = true;
    m.config.vision_port = 10099;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect_str_eq (f.cfg.run.vision_addr, "224.5.23.2:10099");
    cr_expect (f.changes.config && !f.changes.rig);
    m.config.vision_port = 70000;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect_str_eq (f.cfg.run.vision_addr, "224.5.23.2:10099");
    cr_expect (!f.changes.config);
    s_teardown (&f);
}

/* vision_port 62000 with --port-offset 3700 was taken: vision sent to port
   65700 mod 65536 = 164, a privileged port, and the answer said nothing.
   The port after the offset must be a UDP port, as at the start. */
Test (phys_apply, vision_port_moved_past_65535_by_the_offset_is_refused)
{
    fixture_t f;
    s_setup (&f);
    snprintf (f.cfg.run.vision_addr, sizeof f.cfg.run.vision_addr, "224.5.23.2:10006");
    f.cfg.network.port_offset = 3700;
    sim_msg_config_t m;
    SimulatorCommand *cmd = sim_msg_config (&m);
    m.config.has_vision_port = true;
    m.config.vision_port = 62000;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect (strstr (f.errors.items[0].message, "port 65700") != NULL, "%s", f.errors.items[0].message);
    cr_expect_str_eq (f.cfg.run.vision_addr, "224.5.23.2:10006");
    cr_expect (!f.changes.config);
    m.config.vision_port = 65535 - 3700; /* the last port the offset keeps */
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect_str_eq (f.cfg.run.vision_addr, "224.5.23.2:61835");
    s_teardown (&f);
}

Test (phys_apply, geometry_field_and_cameras)
{
    fixture_t f;
    s_setup (&f);
    uint32_t generation = f.cfg.rig_generation;
    /* mm on the wire, m inside */
    sim_msg_field_t g;
    SimulatorCommand *cmd = sim_msg_field (&g, 9000, 6000, 1000, 180, 300);
    g.field.has_penalty_area_depth = g.field.has_penalty_area_width = true;
    g.field.penalty_area_depth = 1000;
    g.field.penalty_area_width = 2000;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect (f.changes.config && !f.changes.rig, "a field without cameras is no new rig");
    const sim_field_t *w = phys_world_field (f.world);
    cr_expect (fabs (w->length - 9.0) < 1e-12 && fabs (w->width - 6.0) < 1e-12
                   && fabs (w->goal_width - 1.0) < 1e-12,
               "world field %.3f x %.3f, goal %.3f", w->length, w->width, w->goal_width);
    cr_expect (fabs (w->penalty_area_depth - 1.0) < 1e-12 && fabs (w->penalty_area_width - 2.0) < 1e-12);
    cr_expect (fabs (f.cfg.field.length - 9.0) < 1e-12 && fabs (f.cfg.field.boundary_width - 0.3) < 1e-12,
               "the configuration must hold the field the world accepted");

    /* non-positive sizes: UNSUPPORTED, world and configuration keep 9 m */
    g.field.field_length = -5;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect (!f.changes.config);
    cr_expect (fabs (phys_world_field (f.world)->length - 9.0) < 1e-12);
    cr_expect (fabs (f.cfg.field.length - 9.0) < 1e-12);

    /* cameras with a derived position replace the rig; one without is skipped */
    SSLGeometryCameraCalibration cams[2] = { SSL__GEOMETRY_CAMERA_CALIBRATION__INIT,
                                             SSL__GEOMETRY_CAMERA_CALIBRATION__INIT };
    cams[0].camera_id = 4;
    cams[0].has_derived_camera_world_tx = cams[0].has_derived_camera_world_ty = true;
    cams[0].has_derived_camera_world_tz = true;
    cams[0].derived_camera_world_tx = 1500;
    cams[0].derived_camera_world_ty = -500;
    cams[0].derived_camera_world_tz = 4000;
    cams[1].camera_id = 5;
    SSLGeometryCameraCalibration *cptrs[] = { &cams[0], &cams[1] };
    g.geometry.field = NULL;
    g.geometry.n_calib = 2;
    g.geometry.calib = cptrs;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect (f.changes.config && f.changes.rig);
    cr_expect_eq (f.cfg.rig_generation, generation + 1);
    cr_assert_eq (f.cfg.vision.camera_count, 1);
    const sim_camera_cfg_t *c = &f.cfg.vision.cameras[0];
    cr_expect (c->id == 4 && fabs (c->x - 1.5) < 1e-12 && fabs (c->y + 0.5) < 1e-12
                   && fabs (c->z - 4.0) < 1e-12,
               "camera %d at (%.3f, %.3f, %.3f)", c->id, c->x, c->y, c->z);
    s_teardown (&f);
}

Test (phys_apply, robot_specs_merge_or_are_refused)
{
    fixture_t f;
    s_setup (&f);
    sim_msg_specs_t m;
    SimulatorCommand *cmd = sim_msg_specs (&m, SIM_MSG_BLUE, 1);
    m.spec.has_mass = true;
    m.spec.mass = 3.1f;
    double radius = phys_world_robot_specs (f.world, SIM_TEAM_BLUE, 1)->radius;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect (f.changes.config);
    const sim_robot_specs_t *s = phys_world_robot_specs (f.world, SIM_TEAM_BLUE, 1);
    cr_expect (fabs (s->mass - 3.1) < WIRE_EPS, "blue 1 mass %.3f", s->mass);
    cr_expect_eq (s->radius, radius, "a mass update changed the radius");
    /* the team default follows, and so does the configuration */
    cr_expect (fabs (phys_world_team_specs (f.world, SIM_TEAM_BLUE)->mass - 3.1) < WIRE_EPS);
    cr_expect (fabs (f.cfg.team[SIM_TEAM_BLUE].mass - 3.1) < WIRE_EPS);
    cr_expect (fabs (f.cfg.team[SIM_TEAM_YELLOW].mass - 3.1) > 0.1, "yellow took blue's mass");

    /* a dribbler beyond the radius: INVALID_SPEC, nothing merged */
    m.spec.has_mass = false;
    m.spec.has_center_to_dribbler = true;
    m.spec.center_to_dribbler = 0.5f;
    double dribbler = phys_world_robot_specs (f.world, SIM_TEAM_BLUE, 1)->center_to_dribbler;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "INVALID_SPEC");
    cr_expect_eq (phys_world_robot_specs (f.world, SIM_TEAM_BLUE, 1)->center_to_dribbler, dribbler);
    /* a spec without a team: UNSUPPORTED */
    m.rid.has_team = false;
    s_command (&f, cmd);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    s_teardown (&f);
}

/* A RealismConfig with one RealismConfigErForce packed into `buf`. */
typedef struct {
    uint8_t buf[256];
    Google__Protobuf__Any any;
    Google__Protobuf__Any *anys[1];
    RealismConfig realism;
    sim_msg_config_t config;
} realism_cmd_t;

static SimulatorCommand *
s_realism_cmd (realism_cmd_t *m, const RealismConfigErForce *er, const char *type_url)
{
    google__protobuf__any__init (&m->any);
    m->any.type_url = (char *) type_url;
    cr_assert_leq (realism_config_er_force__get_packed_size (er), sizeof m->buf);
    m->any.value = (ProtobufCBinaryData) { realism_config_er_force__pack (er, m->buf), m->buf };
    m->anys[0] = &m->any;
    realism_config__init (&m->realism);
    m->realism.n_custom = 1;
    m->realism.custom = m->anys;
    SimulatorCommand *cmd = sim_msg_config (&m->config);
    m->config.config.realism_config = &m->realism;
    return cmd;
}

Test (phys_apply, realism_applies_whole_or_not_at_all)
{
    fixture_t f;
    s_setup (&f);
    RealismConfigErForce er = REALISM_CONFIG_ER_FORCE__INIT;
    er.has_stddev_ball_p = er.has_vision_delay = er.has_simulate_dribbling = true;
    er.stddev_ball_p = 0.002f;
    er.vision_delay = 30000000; /* ns on the wire */
    er.simulate_dribbling = true;
    realism_cmd_t m;
    s_command (&f, s_realism_cmd (&m, &er, "type.googleapis.com/sslsim.RealismConfigErForce"));
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect (f.changes.config);
    cr_expect (fabs (f.cfg.realism.stddev_ball_p - 0.002) < WIRE_EPS);
    cr_expect (fabs (f.cfg.realism.vision_delay - 0.03) < 1e-12, "vision_delay %.6f s",
               f.cfg.realism.vision_delay);
    /* simulated dribbling: the dribbler no longer glues the ball */
    cr_expect (!f.cfg.team[SIM_TEAM_BLUE].dribbler.glue && !f.cfg.team[SIM_TEAM_YELLOW].dribbler.glue);

    /* one value out of range: the whole entry is refused, nothing changes */
    sim_realism_t before = f.cfg.realism;
    er.stddev_ball_p = 0.004f;
    er.has_robot_command_loss = true;
    er.robot_command_loss = 5.0f;
    s_command (&f, s_realism_cmd (&m, &er, "type.googleapis.com/sslsim.RealismConfigErForce"));
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect (!f.changes.config);
    cr_expect (memcmp (&before, &f.cfg.realism, sizeof before) == 0,
               "a refused realism entry changed the config");

    /* an entry of another type: UNSUPPORTED */
    er.has_robot_command_loss = false;
    s_command (&f, s_realism_cmd (&m, &er, "type.googleapis.com/other.Realism"));
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED");
    cr_expect (strstr (f.errors.items[0].message, "other.Realism"), "message '%s'",
               f.errors.items[0].message);
    s_teardown (&f);
}

/* A RealismConfig of ssl-sim's RealismPreset `name` (NULL: no name),
   followed by `er` when it is not NULL. */
typedef struct {
    sim_msg_preset_t preset;
    uint8_t buf[256];
    Google__Protobuf__Any er;
} preset_cmd_t;

static SimulatorCommand *
s_preset_cmd (preset_cmd_t *m, const char *name, const RealismConfigErForce *er)
{
    SimulatorCommand *cmd = sim_msg_realism_preset (&m->preset, name);
    if (er) {
        google__protobuf__any__init (&m->er);
        m->er.type_url = "type.googleapis.com/sslsim.RealismConfigErForce";
        m->er.value = (ProtobufCBinaryData) { realism_config_er_force__pack (er, m->buf), m->buf };
        m->preset.anys[1] = &m->er;
        m->preset.realism.n_custom = 2;
    }
    return cmd;
}

/* What `ssl-sim run --realism NAME` starts with, in the keys a realism
   preset decides, equals f's. */
static void
s_expect_started_with (const fixture_t *f, const char *name)
{
    sim_config_t start;
    sim_config_defaults (&start);
    char *argv[] = { "--realism", (char *) name };
    char err[512];
    cr_assert_eq (sim_config_from_args (&start, 2, argv, err, sizeof err), 0, "%s", err);
    cr_expect (memcmp (&start.realism, &f->cfg.realism, sizeof start.realism) == 0,
               "[realism] after the switch to %s is not the one a start with it has", name);
    cr_expect_str_eq (f->cfg.run.realism, start.run.realism);
    for (int team = 0; team < 2; team++)
        cr_expect_eq (f->cfg.team[team].dribbler.glue, start.team[team].dribbler.glue);
}

/* A named preset replaces every key of [realism], the ones ErForce's
   message has no field for too (docs/vision.md "Realism at runtime"). */
Test (phys_apply, a_realism_preset_replaces_every_key_as_a_start_with_it)
{
    fixture_t f;
    s_setup (&f);
    cr_assert_gt (f.cfg.realism.robot_marker_height_error, 0, "the default has a parallax");
    preset_cmd_t m;
    s_command (&f, s_preset_cmd (&m, "none", NULL));
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect (f.changes.config && !f.changes.rig);
    s_expect_started_with (&f, "none");
    cr_expect_eq (f.cfg.realism.robot_marker_height_error, 0);
    cr_expect_eq (f.cfg.realism.ball_loss_burst_rate, 0);
    cr_expect_eq (f.cfg.realism.calibration_warp_stddev, 0);

    /* every preset, by name or alias, case-insensitive */
    const char *names[] = { "go26", "rc26", "vp26", "ERFORCE_rc2021", "friendly", "Default", "realistic" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        s_command (&f, s_preset_cmd (&m, names[i], NULL));
        cr_expect_str_eq (s_codes (&f.errors), "", "%s", names[i]);
        s_expect_started_with (&f, names[i]);
    }
    /* the ball area goes with the preset: go26 sends none (SSL-Vision at
       GO 2026 did not), the others do */
    s_command (&f, s_preset_cmd (&m, "go26", NULL));
    cr_expect_not (f.cfg.realism.report_ball_area);
    s_command (&f, s_preset_cmd (&m, "realistic", NULL));
    cr_expect (f.cfg.realism.report_ball_area);

    /* an unknown name, no name, or a file name: refused, nothing changed */
    sim_config_t before = f.cfg;
    const char *bad[] = { "fog", NULL, "configs/realism/noisy-venue.ini", "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s_command (&f, s_preset_cmd (&m, bad[i], NULL));
        cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED", "%s", bad[i] ? bad[i] : "(no name)");
        cr_expect (!f.changes.config);
        cr_expect (memcmp (&before, &f.cfg, sizeof before) == 0, "a refused preset changed the config");
    }
    cr_expect (strstr (f.errors.items[0].message, "unknown realism preset"), "message '%s'",
               f.errors.items[0].message);
    /* the choices it lists are whole, to their closing parenthesis */
    s_command (&f, s_preset_cmd (&m, "fog", NULL));
    cr_expect (strstr (f.errors.items[0].message, "rc2021))"), "message '%s'", f.errors.items[0].message);
    /* the name is the client's: quoted cut between whole characters, so the
       answer (and a page showing it) stays UTF-8; 39 ASCII bytes then a
       two-byte character would be cut inside it at 40 */
    s_command (&f, s_preset_cmd (&m, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9", NULL));
    const char *msg = f.errors.items[0].message;
    cr_expect (sim_utf8_valid (msg, strlen (msg)), "the refusal is not UTF-8: '%s'", msg);

    /* a preset, then ErForce's keys on top of it in the same message */
    RealismConfigErForce er = REALISM_CONFIG_ER_FORCE__INIT;
    er.has_stddev_ball_p = true;
    er.stddev_ball_p = 0.002f;
    s_command (&f, s_preset_cmd (&m, "none", &er));
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect (fabs (f.cfg.realism.stddev_ball_p - 0.002) < WIRE_EPS);
    cr_expect_eq (f.cfg.realism.stddev_robot_p, 0);
    s_teardown (&f);
}

/* ErForce's keys change only themselves: the keys only a file (or a
   preset) sets keep their values. */
Test (phys_apply, erforce_realism_keys_leave_the_file_only_keys)
{
    fixture_t f;
    s_setup (&f);
    sim_realism_t before = f.cfg.realism;
    RealismConfigErForce er = REALISM_CONFIG_ER_FORCE__INIT;
    er.has_stddev_robot_p = er.has_object_position_offset = true;
    er.stddev_robot_p = 0;
    er.object_position_offset = 0;
    realism_cmd_t m;
    s_command (&f, s_realism_cmd (&m, &er, "type.googleapis.com/RealismConfigErForce"));
    cr_expect_str_eq (s_codes (&f.errors), "");
    sim_realism_t want = before;
    want.stddev_robot_p = 0;
    want.object_position_offset = 0;
    cr_expect (memcmp (&want, &f.cfg.realism, sizeof want) == 0, "a key ErForce did not set changed");
    cr_expect_eq (f.cfg.realism.robot_marker_height_error, before.robot_marker_height_error);
    s_teardown (&f);
}

/* What the run reports as its realism stays a preset's name only while the
   table is that preset's (docs/vision.md "Realism at runtime"). */
Test (phys_apply, the_realism_name_says_when_erforce_keys_changed_the_preset)
{
    fixture_t f;
    s_setup (&f);
    char label[64];
    sim_config_realism_label (&f.cfg, label, sizeof label);
    cr_expect_str_eq (label, "realistic");
    RealismConfigErForce er = REALISM_CONFIG_ER_FORCE__INIT;
    er.has_stddev_robot_p = true;
    er.stddev_robot_p = 0.002f;
    realism_cmd_t m;
    s_command (&f, s_realism_cmd (&m, &er, "type.googleapis.com/RealismConfigErForce"));
    cr_expect_str_eq (s_codes (&f.errors), "");
    sim_config_realism_label (&f.cfg, label, sizeof label);
    cr_expect_str_eq (label, "realistic+custom");

    preset_cmd_t p;
    s_command (&f, s_preset_cmd (&p, "go26", NULL));
    sim_config_realism_label (&f.cfg, label, sizeof label);
    cr_expect_str_eq (label, "go26", "a preset switch gives the whole table back");
    /* a preset with keys on top in the same message, and keys alone */
    s_command (&f, s_preset_cmd (&p, "rc26", &er));
    sim_config_realism_label (&f.cfg, label, sizeof label);
    cr_expect_str_eq (label, "rc26+custom");
    cr_expect_str_eq (f.cfg.run.realism, "rc26", "[run] realism keeps the preset the table started from");
    s_command (&f, s_preset_cmd (&p, "rc26", NULL));
    sim_config_realism_label (&f.cfg, label, sizeof label);
    cr_expect_str_eq (label, "rc26");
    /* a key set to the value the preset has already: still the preset */
    er.has_stddev_robot_p = false;
    er.has_object_position_offset = true;
    er.object_position_offset = 0;
    s_command (&f, s_realism_cmd (&m, &er, "type.googleapis.com/RealismConfigErForce"));
    sim_config_realism_label (&f.cfg, label, sizeof label);
    cr_expect_str_eq (label, "rc26");
    s_teardown (&f);
}

/* ---- RobotControl ---------------------------------------------------------- */

/* Apply a RobotControl of `n` commands for `team`; errors into f. */
static void
s_control (fixture_t *f, sim_team_t team, RobotCommand **cmds, size_t n, phys_feedback_t *feedback)
{
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = n;
    rc.robot_commands = cmds;
    sim_errors_init (&f->errors);
    if (feedback)
        feedback->count = 0;
    phys_apply_robot_control (f->world, team, &rc, &f->errors, feedback);
}

/* Steps a command acts for: the default command_timeout is 0.1 s, after
   which the robot brakes (physics.md §6.4). */
#define DRIVE_STEPS 80

/* Put robot (team, id) at (x, y) facing `orientation`, at rest. */
static void
s_place (fixture_t *f, sim_team_t team, unsigned id, double x, double y, double orientation)
{
    phys_robot_teleport_t t = { .team = team,
                                .id = id,
                                .has_x = true,
                                .has_y = true,
                                .has_orientation = true,
                                .has_vx = true,
                                .has_vy = true,
                                .has_omega = true,
                                .x = x,
                                .y = y,
                                .orientation = orientation };
    cr_assert_eq (phys_world_teleport_robot (f->world, &t), PHYS_OK);
}

Test (phys_apply, local_and_global_velocities_drive_in_their_frames)
{
    fixture_t f;
    s_setup (&f);
    /* blue 0 faces +y: "forward" in its own frame is +y on the field */
    s_place (&f, SIM_TEAM_BLUE, 0, 0.0, -2.0, M_PI / 2);
    s_place (&f, SIM_TEAM_BLUE, 1, 2.0, -2.0, M_PI / 2);
    sim_msg_robot_cmd_t a, b;
    sim_msg_robot_cmd (&a, 0);
    sim_msg_local (&a, 1.0, 0, 0);
    sim_msg_robot_cmd (&b, 1);
    sim_msg_global (&b, 1.0, 0, 0); /* field frame: +x whatever it faces */
    RobotCommand *cmds[] = { &a.cmd, &b.cmd };
    phys_feedback_t fb;
    s_control (&f, SIM_TEAM_BLUE, cmds, 2, &fb);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_assert_eq (fb.count, 2, "one feedback entry per applied command");
    cr_expect (fb.ptrs[0]->id == 0 && fb.ptrs[1]->id == 1);
    cr_expect (fb.ptrs[0]->has_dribbler_ball_contact && !fb.ptrs[0]->dribbler_ball_contact,
               "no ball at blue 0's dribbler");
    s_steps (f.world, DRIVE_STEPS);
    sim_robot_state_t r0 = s_robot (&f, SIM_TEAM_BLUE, 0), r1 = s_robot (&f, SIM_TEAM_BLUE, 1);
    /* 0.08 s at up to 3.5 m/s^2 (the default limit): under way, on its line */
    cr_expect (r0.vy > 0.1 && fabs (r0.vx) < 0.02, "local forward: velocity (%.3f, %.3f)", r0.vx, r0.vy);
    cr_expect (r1.vx > 0.1 && fabs (r1.vy) < 0.02, "global x: velocity (%.3f, %.3f)", r1.vx, r1.vy);
    cr_expect (fabs (r1.orientation - M_PI / 2) < 0.05, "global x turned blue 1 to %.3f", r1.orientation);
    s_teardown (&f);
}

Test (phys_apply, equal_wheel_speeds_turn_on_the_spot)
{
    fixture_t f;
    s_setup (&f);
    s_place (&f, SIM_TEAM_YELLOW, 2, 1.0, 1.0, 0.0);
    sim_msg_robot_cmd_t w;
    sim_msg_robot_cmd (&w, 2);
    sim_msg_wheels (&w, 1.0, 1.0, 1.0, 1.0);
    RobotCommand *cmds[] = { &w.cmd };
    s_control (&f, SIM_TEAM_YELLOW, cmds, 1, NULL);
    cr_expect_str_eq (s_codes (&f.errors), "");
    s_steps (f.world, DRIVE_STEPS);
    sim_robot_state_t r = s_robot (&f, SIM_TEAM_YELLOW, 2);
    /* positive along each wheel's counter-clockwise tangent */
    cr_expect_gt (r.omega, 1.0, "equal wheel speeds: omega %.3f rad/s", r.omega);
    cr_expect (hypot (r.vx, r.vy) < 0.05 && hypot (r.x - 1.0, r.y - 1.0) < 0.02,
               "equal wheel speeds moved yellow 2 to (%.3f, %.3f) at (%.3f, %.3f) m/s", r.x, r.y, r.vx, r.vy);
    s_teardown (&f);
}

Test (phys_apply, bad_commands_are_reported_and_the_rest_applies)
{
    fixture_t f;
    s_setup (&f);
    s_place (&f, SIM_TEAM_BLUE, 4, -1.0, 0.0, 0.0);
    sim_msg_robot_cmd_t above, absent, nan_speed, nan_kick, good;
    sim_msg_robot_cmd (&above, 256);
    sim_msg_local (&above, 1.0, 0, 0);
    sim_msg_robot_cmd (&absent, 40);
    sim_msg_local (&absent, 1.0, 0, 0);
    sim_msg_robot_cmd (&nan_speed, 5);
    sim_msg_local (&nan_speed, 0, NAN, 0);
    sim_msg_robot_cmd (&nan_kick, 6);
    nan_kick.cmd.has_kick_speed = true;
    nan_kick.cmd.kick_speed = INFINITY;
    sim_msg_robot_cmd (&good, 4);
    sim_msg_local (&good, 1.0, 0, 0);
    RobotCommand *cmds[] = { &above.cmd, &absent.cmd, &nan_speed.cmd, &nan_kick.cmd, &good.cmd };
    phys_feedback_t fb;
    s_control (&f, SIM_TEAM_BLUE, cmds, 5, &fb);
    cr_expect_str_eq (s_codes (&f.errors), "UNKNOWN_ROBOT,UNKNOWN_ROBOT,UNSUPPORTED,UNSUPPORTED");
    cr_expect (strstr (f.errors.items[0].message, "256"), "message '%s'", f.errors.items[0].message);
    cr_expect (strstr (f.errors.items[1].message, "robot blue 40 is not on the field"), "message '%s'",
               f.errors.items[1].message);
    /* a refused value is named as on the wire, so a team finds it */
    cr_expect (strstr (f.errors.items[2].message, "robot blue 5: move_command.local_velocity.left is not"),
               "message '%s'", f.errors.items[2].message);
    cr_expect (strstr (f.errors.items[3].message, "robot blue 6: kick_speed is not"), "message '%s'",
               f.errors.items[3].message);
    cr_assert_eq (fb.count, 1, "feedback only for the command that applied");
    cr_expect_eq (fb.ptrs[0]->id, 4);
    s_steps (f.world, DRIVE_STEPS);
    sim_robot_state_t r4 = s_robot (&f, SIM_TEAM_BLUE, 4), r5 = s_robot (&f, SIM_TEAM_BLUE, 5);
    cr_expect_gt (r4.vx, 0.1, "the good command did not apply");
    cr_expect (hypot (r5.vx, r5.vy) < 1e-9, "a refused command moved blue 5");
    /* the same ids on the yellow team: the team decides which robot */
    s_control (&f, SIM_TEAM_YELLOW, cmds + 4, 1, &fb);
    cr_expect_str_eq (s_codes (&f.errors), "");
    cr_expect_eq (fb.count, 1);
    s_teardown (&f);
}

Test (phys_apply, feedback_reports_the_ball_at_the_dribbler)
{
    fixture_t f;
    s_setup (&f);
    s_place (&f, SIM_TEAM_BLUE, 7, 0.0, 0.0, 0.0);
    /* the ball just touching blue 7's dribbler bar */
    const sim_robot_specs_t *s = phys_world_robot_specs (f.world, SIM_TEAM_BLUE, 7);
    phys_ball_teleport_t t = {
        .has_x = true, .has_y = true, .x = s->center_to_dribbler + f.cfg.ball.radius, .y = 0.0
    };
    cr_assert_eq (phys_world_teleport_ball (f.world, &t), PHYS_OK);
    s_steps (f.world, 1);
    cr_assert_gt (phys_world_ball_contact (f.world, SIM_TEAM_BLUE, 7), 0,
                  "the break beam does not see the ball");
    sim_msg_robot_cmd_t c;
    sim_msg_robot_cmd (&c, 7);
    RobotCommand *cmds[] = { &c.cmd };
    phys_feedback_t fb;
    s_control (&f, SIM_TEAM_BLUE, cmds, 1, &fb);
    cr_assert_eq (fb.count, 1);
    cr_expect (fb.ptrs[0]->has_dribbler_ball_contact && fb.ptrs[0]->dribbler_ball_contact);
    s_teardown (&f);
}

/* ---- the protocol's error table (protocol.md §6) ------------------------------
   Every error where the spec raises it, for the messages a client sends:
   the table that ran through a whole simulator over UDP in tests/system/
   test_protocol.c (control_port_errors) and test_badinput.c (absurd
   values), here at the code that raises them. */

/* Apply cmd; expect exactly `codes` (comma separated, "" for none), each
   message reading "<CODE>: ...". */
static void
s_expect_errors (fixture_t *f, const SimulatorCommand *cmd, const char *codes, const char *what)
{
    s_command (f, cmd);
    for (size_t i = 0; i < f->errors.count; i++) {
        const SimulatorError *e = &f->errors.items[i];
        size_t n = strlen (e->code);
        cr_expect (strncmp (e->message, e->code, n) == 0 && e->message[n] == ':',
                   "%s: message '%s' does not start with '%s:'", what, e->message, e->code);
    }
    cr_expect_str_eq (s_codes (&f->errors), codes, "%s: errors '%s', expected '%s'", what,
                      s_codes (&f->errors), codes);
}

/* Apply cmd; expect one error `code` whose message says `text`. */
static void
s_expect_message (fixture_t *f, const SimulatorCommand *cmd, const char *code, const char *text)
{
    s_command (f, cmd);
    cr_assert_eq (f->errors.count, 1, "expected one %s error, got '%s'", code, s_codes (&f->errors));
    cr_expect_str_eq (f->errors.items[0].code, code);
    cr_expect (strstr (f->errors.items[0].message, text), "'%s' does not say '%s'",
               f->errors.items[0].message, text);
}

Test (phys_apply, every_teleport_error_where_the_protocol_raises_it)
{
    fixture_t f;
    s_setup (&f);
    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    s_expect_errors (&f, &empty, "", "empty command");

    sim_msg_ball_tp_t bb;
    SimulatorCommand *bc = sim_msg_ball_tp (&bb);
    bb.tb.has_x = true;
    s_expect_errors (&f, bc, "PARTIAL_COORD", "ball x without y");
    s_expect_message (&f, bc, "PARTIAL_COORD", "teleport_ball: y missing");
    sim_msg_ball_tp (&bb);
    bb.tb.has_z = true;
    s_expect_errors (&f, bc, "PARTIAL_COORD", "ball z alone");
    sim_msg_ball_tp (&bb);
    bb.tb.has_vy = true;
    s_expect_errors (&f, bc, "PARTIAL_COORD", "ball vy without vx");
    sim_msg_ball_tp (&bb);
    bb.tb.has_vz = true;
    s_expect_errors (&f, bc, "PARTIAL_COORD", "ball vz without vx, vy");
    /* the message names what is missing */
    s_expect_message (&f, bc, "PARTIAL_COORD", "teleport_ball: vx, vy missing");
    sim_msg_ball_tp (&bb);
    bb.tb.has_x = bb.tb.has_y = bb.tb.has_vx = bb.tb.has_vy = bb.tb.has_by_force = true;
    bb.tb.by_force = true;
    bb.tb.vx = 1;
    s_expect_errors (&f, bc, "VELOCITY_FORCE", "ball by_force with a velocity");
    sim_msg_ball_tp (&bb);
    bb.tb.has_teleport_safely = bb.tb.teleport_safely = true;
    s_expect_errors (&f, bc, "TELEPORT_SAFELY_PARTIAL", "teleport_safely without x, y");
    sim_msg_ball_tp (&bb);
    bb.tb.has_x = bb.tb.has_y = true;
    bb.tb.x = NAN;
    s_expect_errors (&f, bc, "UNSUPPORTED", "ball at NaN");
    /* the message names the field, as a robot command's does (it said
       only "teleport_ball rejected") */
    s_expect_message (&f, bc, "UNSUPPORTED", "teleport_ball: x is not a number within +-1e+06");
    sim_msg_ball_tp (&bb);
    bb.tb.has_x = bb.tb.has_y = bb.tb.has_vx = bb.tb.has_vy = bb.tb.has_vz = true;
    bb.tb.vz = 1e7f;
    s_expect_message (&f, bc, "UNSUPPORTED", "teleport_ball: vz is not a number within +-1e+06");

    sim_msg_robot_tp_t rb;
    SimulatorCommand *rc = sim_msg_robot_tp (&rb, SIM_MSG_BLUE, 200);
    rb.tr.has_present = rb.tr.present = true;
    s_expect_errors (&f, rc, "CREATE_NOPOS_ROBOT", "create without a position");
    sim_msg_robot_tp (&rb, SIM_MSG_BLUE, 201);
    sim_msg_robot_xy (&rb.tr, 1, 1);
    s_expect_errors (&f, rc, "UNKNOWN_ROBOT", "teleport of a missing robot without present");
    sim_msg_robot_tp (&rb, SIM_MSG_BLUE, 202);
    rb.tr.has_present = true;
    rb.tr.present = false;
    s_expect_errors (&f, rc, "", "removing a robot that is not there");
    sim_msg_robot_tp (&rb, SIM_MSG_BLUE, 300);
    sim_msg_robot_xy (&rb.tr, 1, 1);
    s_expect_errors (&f, rc, "UNSUPPORTED", "robot id 300");
    sim_msg_robot_tp (&rb, SIM_MSG_NO_TEAM, 1);
    sim_msg_robot_xy (&rb.tr, 1, 1);
    s_expect_errors (&f, rc, "UNSUPPORTED", "robot without a team");
    sim_msg_robot_tp (&rb, SIM_MSG_BLUE, 0);
    rb.tr.has_x = true;
    s_expect_errors (&f, rc, "PARTIAL_COORD", "robot x without y");
    sim_msg_robot_tp (&rb, SIM_MSG_BLUE, 0);
    rb.tr.has_v_x = true;
    s_expect_errors (&f, rc, "PARTIAL_COORD", "robot v_x without v_y");
    s_expect_message (&f, rc, "PARTIAL_COORD", ": v_y missing");
    sim_msg_robot_tp (&rb, SIM_MSG_BLUE, 0);
    sim_msg_robot_xy (&rb.tr, 1, 1);
    rb.tr.has_v_x = rb.tr.has_v_y = rb.tr.has_by_force = rb.tr.by_force = true;
    rb.tr.v_y = 0.5f;
    s_expect_errors (&f, rc, "VELOCITY_FORCE", "robot by_force with a velocity");
    sim_msg_robot_tp (&rb, SIM_MSG_YELLOW, 3);
    sim_msg_robot_xy (&rb.tr, 0, 0);
    rb.tr.has_orientation = true;
    rb.tr.orientation = INFINITY;
    s_expect_message (&f, rc, "UNSUPPORTED",
                      "teleport_robot yellow 3: orientation is not a number within +-1e+06");
    s_teardown (&f);
}

Test (phys_apply, every_control_and_config_error_where_the_protocol_raises_it)
{
    fixture_t f;
    s_setup (&f);
    /* speed and vision_port: simulation_speed_changes_the_configuration_once
       and vision_port_replaces_the_port_only */
    sim_msg_config_t cb;
    SimulatorCommand *ccmd = sim_msg_config (&cb);
    SimulatorConfig *config = &cb.config;
    /* realism: unknown types and undecodable entries are UNSUPPORTED each */
    Google__Protobuf__Any anys[3];
    Google__Protobuf__Any *aptrs[3] = { &anys[0], &anys[1], &anys[2] };
    for (int i = 0; i < 3; i++)
        google__protobuf__any__init (&anys[i]);
    uint8_t junk[] = { 0xff, 0xff, 0xff };
    anys[0].type_url = "type.googleapis.com/SomethingElse";
    anys[1].type_url = "type.googleapis.com/RealismConfigErForce";
    anys[1].value = (ProtobufCBinaryData) { sizeof junk, junk };
    RealismConfigErForce er = REALISM_CONFIG_ER_FORCE__INIT;
    er.has_stddev_ball_p = true;
    uint8_t erbuf[64];
    anys[2].type_url = "type.googleapis.com/sslsim.RealismConfigErForce";
    anys[2].value = (ProtobufCBinaryData) { realism_config_er_force__pack (&er, erbuf), erbuf };
    RealismConfig realism = REALISM_CONFIG__INIT;
    realism.n_custom = 3;
    realism.custom = aptrs;
    config->realism_config = &realism;
    s_expect_errors (&f, ccmd, "UNSUPPORTED,UNSUPPORTED", "unknown and undecodable realism");
    /* a value outside its range is refused whole, and the configuration
       stays one every service can load */
    sim_realism_t before = f.cfg.realism;
    er.has_robot_command_loss = true;
    er.robot_command_loss = 5.0f;
    anys[2].value = (ProtobufCBinaryData) { realism_config_er_force__pack (&er, erbuf), erbuf };
    realism.n_custom = 1;
    realism.custom = &aptrs[2];
    s_expect_errors (&f, ccmd, "UNSUPPORTED", "robot_command_loss 5");
    er.robot_command_loss = NAN;
    anys[2].value = (ProtobufCBinaryData) { realism_config_er_force__pack (&er, erbuf), erbuf };
    s_expect_errors (&f, ccmd, "UNSUPPORTED", "robot_command_loss NaN");
    cr_expect (memcmp (&before, &f.cfg.realism, sizeof before) == 0, "a refused realism changed the config");
    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    s_expect_errors (&f, &empty, "", "a command after the refused realism");
    config->realism_config = NULL;

    /* robot specs: a bad merge is INVALID_SPEC, a bad id UNSUPPORTED */
    RobotId sid = ROBOT_ID__INIT;
    sid.has_id = sid.has_team = true;
    sid.id = 1;
    sid.team = TEAM__BLUE;
    RobotSpecs spec = ROBOT_SPECS__INIT;
    spec.id = &sid;
    spec.has_center_to_dribbler = true;
    spec.center_to_dribbler = 0.5f; /* beyond the radius */
    RobotSpecs *sptr = &spec;
    config->n_robot_specs = 1;
    config->robot_specs = &sptr;
    s_command (&f, ccmd);
    cr_expect_geq (f.errors.count, 1, "center_to_dribbler beyond the radius accepted");
    for (size_t i = 0; i < f.errors.count; i++) {
        cr_expect_str_eq (f.errors.items[i].code, "INVALID_SPEC");
        /* which field, its value and why */
        cr_expect (strstr (f.errors.items[i].message, "robot specs for blue 1: center_to_dribbler 0.5")
                       && strstr (f.errors.items[i].message, "below radius"),
                   "'%s' does not name the field and why", f.errors.items[i].message);
    }
    sid.id = 256;
    spec.has_center_to_dribbler = false;
    s_expect_errors (&f, ccmd, "UNSUPPORTED", "specs for id 256");
    s_teardown (&f);
}

/* protocol.md §4.1: the order of application, and "each failing item adds
   an error and processing continues" */
Test (phys_apply, errors_come_in_protocol_order_and_the_valid_items_apply)
{
    fixture_t f;
    s_setup (&f);
    sim_msg_ball_tp_t ob;
    sim_msg_ball_tp (&ob);
    ob.tb.has_x = true;
    sim_msg_robot_tp_t r1, r2;
    sim_msg_robot_tp (&r1, SIM_MSG_BLUE, 210);
    sim_msg_robot_xy (&r1.tr, 1, 1);
    sim_msg_robot_tp (&r2, SIM_MSG_BLUE, 3);
    sim_msg_robot_xy (&r2.tr, 2.0, -1.0);
    TeleportRobot *trs[] = { &r1.tr, &r2.tr };
    SimulatorControl oc = SIMULATOR_CONTROL__INIT;
    oc.has_simulation_speed = true;
    oc.simulation_speed = -2;
    oc.teleport_ball = &ob.tb;
    oc.n_teleport_robot = 2;
    oc.teleport_robot = trs;
    SimulatorConfig config = SIMULATOR_CONFIG__INIT;
    config.has_vision_port = true;
    config.vision_port = 1u << 20;
    SimulatorCommand all = SIMULATOR_COMMAND__INIT;
    all.control = &oc;
    all.config = &config;
    s_expect_errors (&f, &all, "UNSUPPORTED,PARTIAL_COORD,UNKNOWN_ROBOT,UNSUPPORTED", "ordered errors");
    sim_robot_state_t r = s_robot (&f, SIM_TEAM_BLUE, 3);
    cr_expect (fabs (r.x - 2.0) < WIRE_EPS && fabs (r.y + 1.0) < WIRE_EPS,
               "the valid teleport after failing items did not apply: blue 3 at (%.3f, %.3f)", r.x, r.y);
    s_teardown (&f);
}

/* Valid RobotControl messages with absurd values (test_badinput.c sent
   them over UDP): the matching error, and a huge repeated field costs a
   bounded list (sim_errors.h). */
Test (phys_apply, absurd_robot_commands_get_the_matching_error)
{
    fixture_t f;
    s_setup (&f);
    sim_msg_robot_cmd_t b;
    sim_msg_robot_cmd (&b, 0);
    sim_msg_local (&b, NAN, 0, 0);
    RobotCommand *one[] = { &b.cmd };
    s_control (&f, SIM_TEAM_BLUE, one, 1, NULL);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED", "NaN speed");
    sim_msg_robot_cmd (&b, 0);
    sim_msg_local (&b, 0, 0, 0);
    b.cmd.has_kick_speed = true;
    b.cmd.kick_speed = INFINITY;
    s_control (&f, SIM_TEAM_YELLOW, one, 1, NULL);
    cr_expect_str_eq (s_codes (&f.errors), "UNSUPPORTED", "infinite kick speed");
    b.cmd.has_kick_speed = false;
    b.cmd.id = 1u << 30;
    s_control (&f, SIM_TEAM_BLUE, one, 1, NULL);
    cr_expect_str_eq (s_codes (&f.errors), "UNKNOWN_ROBOT", "id 2^30");

    /* 12 000 commands for id 300 (one message, repeated) */
    enum { HUGE = 12000 };
    static RobotCommand *many_ptrs[HUGE];
    RobotCommand unknown = ROBOT_COMMAND__INIT;
    unknown.id = 300;
    for (int i = 0; i < HUGE; i++)
        many_ptrs[i] = &unknown;
    s_control (&f, SIM_TEAM_BLUE, many_ptrs, HUGE, NULL);
    cr_assert_eq (f.errors.count, SIM_ERRORS_MAX, "the list holds %zu errors", f.errors.count);
    cr_expect_eq (f.errors.dropped, HUGE - SIM_ERRORS_MAX);
    for (size_t i = 0; i < f.errors.count; i++)
        cr_expect_str_eq (f.errors.items[i].code, "UNKNOWN_ROBOT");
    s_teardown (&f);
}
