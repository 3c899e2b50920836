/*  test_vw_ops.c - services/viewer/vw_ops.c: each page op becomes the SSL
    simulation protocol request a team would send, and the gateway's
    answers decode to the first error. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/config/config.h"
#include "services/viewer/vw_ops.h"
#include "ssl_simulation_config.pb-c.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_custom_sslsim_realism_preset.pb-c.h"
#include "google/protobuf/any.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

static vw_ops_ctx_t s_ctx;
static uint8_t s_buf[VW_OPS_DATAGRAM_MAX];

static void
s_setup (void)
{
    memset (&s_ctx, 0, sizeof s_ctx);
    sim_config_defaults (&s_ctx.cfg);
    s_ctx.resume_speed = 2.0;
}

static SimulatorCommand *
s_command (const vw_op_t *op)
{
    bool sync = true;
    char why[160];
    int len = vw_ops_encode (op, &s_ctx, s_buf, sizeof s_buf, &sync, why, sizeof why);
    cr_assert_gt (len, 0, "%s", why);
    cr_assert (!sync);
    SimulatorCommand *cmd = simulator_command__unpack (NULL, (size_t) len, s_buf);
    cr_assert_not_null (cmd, "not a SimulatorCommand");
    return cmd;
}

TestSuite (vw_ops, .init = s_setup);

Test (vw_ops, teleport_ball_with_velocity)
{
    vw_op_t op = { .kind = VW_OP_TELEPORT_BALL, .x = 1, .y = -1, .vx = 3, .has_v = true };
    SimulatorCommand *cmd = s_command (&op);
    const TeleportBall *b = cmd->control->teleport_ball;
    cr_assert_not_null (b);
    cr_expect (b->has_x && b->has_y && b->has_z);
    cr_expect_float_eq (b->x, 1.0, 1e-6);
    cr_expect_float_eq (b->y, -1.0, 1e-6);
    cr_expect_float_eq (b->z, 0.0, 1e-6);
    cr_expect_float_eq (b->vx, 3.0, 1e-6);
    simulator_command__free_unpacked (cmd, NULL);
}

Test (vw_ops, teleport_and_remove_a_robot)
{
    vw_op_t op = { .kind = VW_OP_TELEPORT_ROBOT,
                   .team = SIM_TEAM_YELLOW,
                   .robot = 4,
                   .x = 2,
                   .y = 1,
                   .has_x = true,
                   .has_y = true,
                   .o = 1,
                   .has_o = true,
                   .present = true };
    SimulatorCommand *cmd = s_command (&op);
    cr_assert_eq (cmd->control->n_teleport_robot, 1);
    const TeleportRobot *t = cmd->control->teleport_robot[0];
    cr_expect_eq (t->id->team, TEAM__YELLOW);
    cr_expect_eq (t->id->id, 4);
    cr_expect (t->has_present && t->present && t->has_orientation);
    cr_expect_float_eq (t->x, 2.0, 1e-6);
    simulator_command__free_unpacked (cmd, NULL);
    op.present = false;
    cmd = s_command (&op);
    t = cmd->control->teleport_robot[0];
    cr_expect (t->has_present && !t->present);
    cr_expect (!t->has_x, "a removed robot has no position");
    simulator_command__free_unpacked (cmd, NULL);
}

Test (vw_ops, pause_resume_speed)
{
    vw_op_t op = { .kind = VW_OP_PAUSE };
    SimulatorCommand *cmd = s_command (&op);
    cr_expect (cmd->control->has_simulation_speed);
    cr_expect_float_eq (cmd->control->simulation_speed, 0.0, 1e-9);
    simulator_command__free_unpacked (cmd, NULL);
    op.kind = VW_OP_RESUME;
    cmd = s_command (&op);
    cr_expect_float_eq (cmd->control->simulation_speed, 2.0, 1e-6, "the speed before the pause");
    simulator_command__free_unpacked (cmd, NULL);
    op = (vw_op_t) { .kind = VW_OP_SPEED, .value = 0.25 };
    cmd = s_command (&op);
    cr_expect_float_eq (cmd->control->simulation_speed, 0.25, 1e-6);
    simulator_command__free_unpacked (cmd, NULL);
}

Test (vw_ops, reset_is_the_start_formation)
{
    s_ctx.robot_count = 1;
    s_ctx.robots[0].team = SIM_TEAM_BLUE;
    s_ctx.robots[0].id = 14; /* added by hand: leaves */
    vw_op_t op = { .kind = VW_OP_RESET };
    SimulatorCommand *cmd = s_command (&op);
    cr_assert_eq (cmd->control->n_teleport_robot, 23, "22 in formation, one removed");
    int present = 0;
    for (size_t i = 0; i < cmd->control->n_teleport_robot; i++)
        present += cmd->control->teleport_robot[i]->present;
    cr_expect_eq (present, 22);
    cr_expect_float_eq (cmd->control->teleport_ball->x, 0.0, 1e-9);
    simulator_command__free_unpacked (cmd, NULL);
}

Test (vw_ops, step_is_one_frame_of_whole_substeps)
{
    vw_op_t op = { .kind = VW_OP_STEP };
    bool sync = false;
    char why[160];
    int len = vw_ops_encode (&op, &s_ctx, s_buf, sizeof s_buf, &sync, why, sizeof why);
    cr_assert_gt (len, 0);
    cr_expect (sync);
    SimulationSyncRequest *req = simulation_sync_request__unpack (NULL, (size_t) len, s_buf);
    cr_assert_not_null (req);
    double n = req->sim_step / s_ctx.cfg.sim.substep;
    cr_expect_float_eq (n, round (n), 1e-3, "whole substeps");
    cr_expect_float_eq (req->sim_step, 1.0 / s_ctx.cfg.vision.frame_rate, s_ctx.cfg.sim.substep);
    simulation_sync_request__free_unpacked (req, NULL);
}

Test (vw_ops, realism_and_cameras_are_simulator_config)
{
    vw_op_t op = { .kind = VW_OP_REALISM };
    snprintf (op.preset, sizeof op.preset, "none");
    SimulatorCommand *cmd = s_command (&op);
    cr_assert (cmd->config && cmd->config->realism_config);
    cr_assert_eq (cmd->config->realism_config->n_custom, 1);
    /* the preset by name, so physics sets every key of it (the ones
       ErForce's RealismConfig has no field for too) */
    const Google__Protobuf__Any *any = cmd->config->realism_config->custom[0];
    cr_expect_str_eq (any->type_url, "type.googleapis.com/sslsim.RealismPreset");
    Sslsim__RealismPreset *p = sslsim__realism_preset__unpack (NULL, any->value.len, any->value.data);
    cr_assert_not_null (p);
    cr_expect_str_eq (p->name, "none");
    sslsim__realism_preset__free_unpacked (p, NULL);
    simulator_command__free_unpacked (cmd, NULL);
    snprintf (op.preset, sizeof op.preset, "no-such-preset");
    bool sync;
    char why[256] = "";
    cr_expect_eq (vw_ops_encode (&op, &s_ctx, s_buf, sizeof s_buf, &sync, why, sizeof why), -1);
    cr_expect_not_null (strstr (why, "no-such-preset"));
    op = (vw_op_t) { .kind = VW_OP_CAMERAS, .count = 4 };
    cmd = s_command (&op);
    cr_assert (cmd->config && cmd->config->geometry);
    cr_expect_eq (cmd->config->geometry->n_calib, 4);
    cr_expect_eq (cmd->config->geometry->field->field_length, 12000);
    cr_expect (cmd->config->geometry->calib[0]->has_derived_camera_world_tz);
    simulator_command__free_unpacked (cmd, NULL);
}

/* The page's realism list offers every preset and nothing else: each
   canonical name of the configuration's preset table (the names before
   its aliases) is an option of <select id="realism">, and each option a
   preset. */
Test (vw_ops, the_page_offers_every_realism_preset)
{
    FILE *f = fopen (SSL_SIM_SRC "/services/viewer/www/index.html", "r");
    cr_assert_not_null (f, "no page in %s", SSL_SIM_SRC);
    static char page[1 << 16];
    size_t n = fread (page, 1, sizeof page - 1, f);
    fclose (f);
    page[n] = '\0';
    char *select = strstr (page, "<select id=\"realism\"");
    cr_assert_not_null (select);
    char *end = strstr (select, "</select>");
    cr_assert_not_null (end);
    *end = '\0';
    int options = 0;
    for (char *o = strstr (select, "value=\""); o; o = strstr (o, "value=\"")) {
        o += strlen ("value=\"");
        char name[64];
        size_t len = strcspn (o, "\"");
        cr_assert_lt (len, sizeof name);
        memcpy (name, o, len);
        name[len] = '\0';
        sim_realism_t r;
        cr_expect_eq (sim_config_realism_preset (name, &r), 0, "option %s is no preset", name);
        options++;
    }
    char names[512];
    snprintf (names, sizeof names, "%s", sim_config_realism_names ());
    char *aliases = strstr (names, " (aliases");
    if (aliases)
        *aliases = '\0';
    int presets = 0;
    for (char *save = NULL, *name = strtok_r (names, ", ", &save); name;
         name = strtok_r (NULL, ", ", &save)) {
        char want[80];
        snprintf (want, sizeof want, "value=\"%s\"", name);
        cr_expect_not_null (strstr (select, want), "the page does not offer %s", name);
        presets++;
    }
    cr_expect_eq (options, presets);
}

Test (vw_ops, answers_decode_to_the_first_error)
{
    SimulatorError e1 = SIMULATOR_ERROR__INIT, e2 = SIMULATOR_ERROR__INIT, *errs[] = { &e1, &e2 };
    e1.code = (char *) "FORBIDDEN";
    e1.message = (char *) "not yours";
    e2.code = (char *) "OTHER";
    SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
    uint8_t buf[512];
    char code[64], message[128];
    size_t len = simulator_response__pack (&r, buf);
    cr_expect_eq (vw_ops_decode (buf, len, false, code, sizeof code, message, sizeof message), 0);
    r.n_errors = 2;
    r.errors = errs;
    len = simulator_response__pack (&r, buf);
    cr_expect_eq (vw_ops_decode (buf, len, false, code, sizeof code, message, sizeof message), 1);
    cr_expect_str_eq (code, "FORBIDDEN");
    cr_expect_str_eq (message, "not yours");
    RobotControlResponse rr = ROBOT_CONTROL_RESPONSE__INIT;
    rr.n_errors = 1;
    rr.errors = errs;
    SimulationSyncResponse s = SIMULATION_SYNC_RESPONSE__INIT;
    s.robot_control_response = &rr;
    len = simulation_sync_response__pack (&s, buf);
    cr_expect_eq (vw_ops_decode (buf, len, true, code, sizeof code, message, sizeof message), 1);
    cr_expect_str_eq (code, "FORBIDDEN");
    uint8_t junk[] = { 0xff, 0xff, 0xff };
    cr_expect_eq (vw_ops_decode (junk, sizeof junk, false, code, sizeof code, message, sizeof message), -1);
}

/* found by fuzz_viewer_ws: an error whose code begins with a NUL byte
   (protobuf strings may hold any byte) decoded to an empty code, and the
   page got "code":"" */
Test (vw_ops, an_error_without_a_readable_code_is_unknown)
{
    static const uint8_t answer[] = { 0x0a, 0x35, 0x0a, 0x12, 0x00, 0x00, 0x00, 0x37, 0x54, 0x45, 0x5f,
                                      0x4e, 0x4f, 0x50, 0x22, 0x6f, 0x70, 0x22, 0x3a, 0x22, 0x73, 0x74,
                                      0x65, 0x70, 0x22, 0x2c, 0x22, 0x69, 0x64, 0x20, 0x34, 0x20, 0x6f,
                                      0x66, 0x20, 0x79, 0x65, 0x6c, 0x6c, 0x6f, 0x77, 0x20, 0x6e, 0x65,
                                      0x65, 0x64, 0x73, 0x20, 0x78, 0x20, 0x65, 0x6e, 0x64, 0x20, 0x79 };
    char code[64] = "", message[256] = "";
    cr_assert_eq (vw_ops_decode (answer, sizeof answer, false, code, sizeof code, message, sizeof message),
                  1);
    cr_expect_str_eq (code, "UNKNOWN");
    SimulatorError e = SIMULATOR_ERROR__INIT;
    e.code = (char *) "";
    SimulatorError *errs[] = { &e };
    SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
    r.n_errors = 1;
    r.errors = errs;
    uint8_t buf[64];
    size_t len = simulator_response__pack (&r, buf);
    cr_assert_eq (vw_ops_decode (buf, len, false, code, sizeof code, message, sizeof message), 1);
    cr_expect_str_eq (code, "UNKNOWN", "an empty code");
}

/* seek and jump move a log's timeline (ssl-sim play): a simulator has none,
   so they are refused with a reason, never sent */
Test (vw_ops, timeline_ops_have_no_request)
{
    const vw_op_kind_t kinds[] = { VW_OP_SEEK, VW_OP_JUMP };
    for (int i = 0; i < 2; i++) {
        vw_op_t op = { .kind = kinds[i] };
        bool sync = false;
        char why[160] = "";
        cr_expect_eq (vw_ops_encode (&op, &s_ctx, s_buf, sizeof s_buf, &sync, why, sizeof why), -1);
        cr_expect (strstr (why, "ssl-sim play") != NULL, "%s", why);
    }
}
