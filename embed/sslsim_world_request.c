/*  sslsim_world_request.c - what a world (sslsim_world.c) is asked to
    do: a request as the physics service applies it (phys_journal_apply),
    then what the change means for the capture schedule (its rig or
    capture jitter) and the camera model; the answer's errors; the packed
    messages of sslsim_world_command and the typed commands and teleports
    that become such requests.
*/
#include "sslsim_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "common/base/sim_team.h"
#include "engine/world/vis_def.h"

/* ---- commands ------------------------------------------------------- */

/* What a request changed beyond the world: the schedule's rig or capture
   jitter (as physics does) and the camera model's definition (as vision
   does, from the configuration physics publishes). */
static void
s_config_changed (sslsim_world_t *self, const phys_changes_t *changes)
{
    phys_policy_changed (self->schedule, &self->cfg, changes->rig, changes->config,
                         phys_world_time_ns (self->phys));
    if (changes->config && self->model) {
        vis_model_def_t def;
        vis_model_def_from_config (&def, &self->cfg);
        vis_model_set_def (self->model, &def);
    }
}

int
sslsim_world_apply_request (sslsim_world_t *self, const SimulatorCommand *cmd, int team,
                            const RobotControl *rc)
{
    Simbus__Request req = SIMBUS__REQUEST__INIT;
    Simbus__TeamControl tc = SIMBUS__TEAM_CONTROL__INIT;
    req.simulator_command = (SimulatorCommand *) cmd;
    if (rc) {
        tc.team = sim_team_number (sim_team_from_number ((uint64_t) team));
        tc.control = (RobotControl *) rc;
        req.team_control = &tc;
    }
    phys_journal_apply (self->phys, &self->cfg, &req, &self->applied);
    s_config_changed (self, &self->applied.changes);
    /* the order a RobotControlResponse lists them: the team's, then the
       command's */
    return (int) (self->applied.robot_errors.count + self->applied.errors.count);
}

const char *
sslsim_world_error (const sslsim_world_t *world, int i)
{
    if (!world || i < 0)
        return NULL;
    const sim_errors_t *r = &world->applied.robot_errors, *c = &world->applied.errors;
    if ((size_t) i < r->count)
        return r->items[i].message;
    i -= (int) r->count;
    if ((size_t) i < c->count)
        return c->items[i].message;
    return NULL;
}

int
sslsim_world_command (sslsim_world_t *world, sslsim_msg_t kind, const void *bytes, size_t len)
{
    if (!world)
        return SSLSIM_EINVAL;
    sslsim_world_t *self = world;
    if (!bytes && len)
        return sslsim_world_fail (self, SSLSIM_EINVAL, "NULL bytes with length %zu", len);
    const uint8_t *data = bytes ? bytes : (const uint8_t *) "";
    int rc = SSLSIM_OK;
    switch (kind) {
    case SSLSIM_MSG_SIMULATOR_COMMAND: {
        SimulatorCommand *cmd = simulator_command__unpack (NULL, len, data);
        if (!cmd)
            return sslsim_world_fail (self, SSLSIM_EDECODE, "%zu bytes are not a SimulatorCommand", len);
        rc = sslsim_world_apply_request (self, cmd, 0, NULL);
        simulator_command__free_unpacked (cmd, NULL);
        break;
    }
    case SSLSIM_MSG_ROBOT_CONTROL_BLUE:
    case SSLSIM_MSG_ROBOT_CONTROL_YELLOW: {
        RobotControl *ctl = robot_control__unpack (NULL, len, data);
        if (!ctl)
            return sslsim_world_fail (self, SSLSIM_EDECODE, "%zu bytes are not a RobotControl", len);
        rc = sslsim_world_apply_request (self, NULL, kind == SSLSIM_MSG_ROBOT_CONTROL_YELLOW, ctl);
        robot_control__free_unpacked (ctl, NULL);
        break;
    }
    case SSLSIM_MSG_SIMULATOR_CONFIG: {
        SimulatorConfig *config = simulator_config__unpack (NULL, len, data);
        if (!config)
            return sslsim_world_fail (self, SSLSIM_EDECODE, "%zu bytes are not a SimulatorConfig", len);
        SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
        cmd.config = config;
        rc = sslsim_world_apply_request (self, &cmd, 0, NULL);
        simulator_config__free_unpacked (config, NULL);
        break;
    }
    default:
        return sslsim_world_fail (self, SSLSIM_EINVAL, "unknown message kind %d", (int) kind);
    }
    return rc;
}

static bool
s_finite (const double *v, int n)
{
    /* one comparison: NaN and the infinities fail it too */
    for (int i = 0; i < n; i++)
        if (!(fabs (v[i]) <= 3.4e38))
            return false;
    return true;
}

int
sslsim_robot_commands_check (const sslsim_robot_command_t *cmds, int n, char *err, size_t err_len)
{
    if (n < 0 || (n > 0 && !cmds)) {
        snprintf (err, err_len, "%d commands at %p", n, (const void *) cmds);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const sslsim_robot_command_t *c = &cmds[i];
        double v[6] = { c->forward, c->left, c->angular, c->kick_speed, c->kick_angle, c->dribbler_speed };
        for (int k = 0; k < 6; k++)
            if (!isfinite (v[k])) {
                snprintf (err, err_len, "command %d (team %d id %d): a value is not finite", i, c->team,
                          c->id);
                return -1;
            }
        if (c->team != 0 && c->team != 1) {
            snprintf (err, err_len, "command %d: team %d is neither 0 (blue) nor 1 (yellow)", i, c->team);
            return -1;
        }
        if (c->id < 0 || c->id > 255) {
            snprintf (err, err_len, "command %d: robot id %d is not in 0..255", i, c->id);
            return -1;
        }
    }
    return 0;
}

/* v as the float of a RobotCommand field: a finite value beyond the float
   range becomes the largest float of its sign, a command too large like
   any other (the robot limits or refuses it), where the bare conversion
   would make it an infinity. Values within the range convert unchanged. */
static float
s_command_float (double v)
{
    return (float) (v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v);
}

/* One team's commands as the RobotControl a team would send. */
typedef struct {
    RobotControl rc;
    RobotCommand cmd[SSLSIM_MAX_ROBOTS];
    RobotCommand *ptr[SSLSIM_MAX_ROBOTS];
    RobotMoveCommand move[SSLSIM_MAX_ROBOTS];
    MoveLocalVelocity local[SSLSIM_MAX_ROBOTS];
} s_team_msg_t;

static void
s_add_command (s_team_msg_t *m, const sslsim_robot_command_t *c)
{
    size_t k = m->rc.n_robot_commands++;
    /* the generated initialisers as constants, not three calls per robot */
    m->cmd[k] = (RobotCommand) ROBOT_COMMAND__INIT;
    m->local[k] = (MoveLocalVelocity) MOVE_LOCAL_VELOCITY__INIT;
    m->move[k] = (RobotMoveCommand) ROBOT_MOVE_COMMAND__INIT;
    m->local[k].forward = s_command_float (c->forward);
    m->local[k].left = s_command_float (c->left);
    m->local[k].angular = s_command_float (c->angular);
    m->move[k].command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    m->move[k].local_velocity = &m->local[k];
    m->cmd[k].id = (uint32_t) c->id;
    m->cmd[k].move_command = &m->move[k];
    m->cmd[k].has_kick_speed = true;
    m->cmd[k].kick_speed = s_command_float (c->kick_speed);
    m->cmd[k].has_kick_angle = true;
    m->cmd[k].kick_angle = s_command_float (c->kick_angle);
    m->cmd[k].has_dribbler_speed = true;
    m->cmd[k].dribbler_speed = s_command_float (c->dribbler_speed);
    m->ptr[k] = &m->cmd[k];
}

int
sslsim_world_apply_commands (sslsim_world_t *self, const sslsim_robot_command_t *cmds, int n)
{
    s_team_msg_t msg;
    int errors = 0;
    for (int team = 0; team < 2; team++) {
        robot_control__init (&msg.rc);
        msg.rc.robot_commands = msg.ptr;
        for (int i = 0; i < n; i++) {
            if (cmds[i].team != team)
                continue;
            s_add_command (&msg, &cmds[i]);
            /* a team's message holds at most SSLSIM_MAX_ROBOTS: send and go on */
            if (msg.rc.n_robot_commands == SSLSIM_MAX_ROBOTS) {
                errors += sslsim_world_apply_request (self, NULL, team, &msg.rc);
                msg.rc.n_robot_commands = 0;
            }
        }
        if (msg.rc.n_robot_commands > 0)
            errors += sslsim_world_apply_request (self, NULL, team, &msg.rc);
    }
    return errors;
}

int
sslsim_world_robot_commands (sslsim_world_t *world, const sslsim_robot_command_t *cmds, int n)
{
    if (!world)
        return SSLSIM_EINVAL;
    if (sslsim_robot_commands_check (cmds, n, world->last_error, sizeof world->last_error))
        return SSLSIM_EINVAL;
    return sslsim_world_apply_commands (world, cmds, n);
}

void
sslsim_actions_commands (const int *teams, const int *ids, int n, const double *actions,
                         sslsim_robot_command_t *cmds)
{
    for (int j = 0; j < n; j++, actions += 6)
        cmds[j] = (sslsim_robot_command_t) { teams[j],   ids[j],     actions[0], actions[1],
                                             actions[2], actions[3], actions[4], actions[5] };
}

int
sslsim_world_actions (sslsim_world_t *world, const int *teams, const int *ids, int n, const double *actions)
{
    if (!world)
        return SSLSIM_EINVAL;
    if (n < 0 || n > 4 * SSLSIM_MAX_ROBOTS || (n > 0 && (!teams || !ids || !actions)))
        return sslsim_world_fail (world, SSLSIM_EINVAL, "%d actions (0..%d) with teams, ids and values", n,
                                  4 * SSLSIM_MAX_ROBOTS);
    sslsim_robot_command_t cmds[4 * SSLSIM_MAX_ROBOTS];
    sslsim_actions_commands (teams, ids, n, actions, cmds);
    return sslsim_world_robot_commands (world, cmds, n);
}

int
sslsim_world_teleport_ball (sslsim_world_t *world, double x, double y, double vx, double vy)
{
    if (!world)
        return SSLSIM_EINVAL;
    const double v[4] = { x, y, vx, vy };
    if (!s_finite (v, 4))
        return sslsim_world_fail (world, SSLSIM_EINVAL, "teleport_ball (%g, %g, %g, %g): not finite floats",
                                  x, y, vx, vy);
    TeleportBall tb = TELEPORT_BALL__INIT;
    tb.has_x = tb.has_y = tb.has_z = tb.has_vx = tb.has_vy = tb.has_vz = true;
    tb.x = (float) x;
    tb.y = (float) y;
    tb.vx = (float) vx;
    tb.vy = (float) vy;
    SimulatorControl ctl = SIMULATOR_CONTROL__INIT;
    ctl.teleport_ball = &tb;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &ctl;
    return sslsim_world_apply_request (world, &cmd, 0, NULL);
}

int
sslsim_world_teleport_robot (sslsim_world_t *world, int team, int id, double x, double y, double orientation,
                             int present)
{
    if (!world)
        return SSLSIM_EINVAL;
    const double v[3] = { x, y, orientation };
    if (!s_finite (v, 3) || (team != 0 && team != 1) || id < 0 || id > 255)
        return sslsim_world_fail (world, SSLSIM_EINVAL,
                                  "teleport_robot team %d id %d (%g, %g, %g): bad team, id or value", team,
                                  id, x, y, orientation);
    RobotId rid = ROBOT_ID__INIT;
    rid.has_id = rid.has_team = true;
    rid.id = (uint32_t) id;
    rid.team = sim_team_league (sim_team_from_number ((uint64_t) team));
    TeleportRobot tr = TELEPORT_ROBOT__INIT;
    tr.id = &rid;
    tr.has_present = true;
    tr.present = present != 0;
    if (present) {
        tr.has_x = tr.has_y = tr.has_orientation = tr.has_v_x = tr.has_v_y = tr.has_v_angular = true;
        tr.x = (float) x;
        tr.y = (float) y;
        tr.orientation = (float) orientation;
    }
    TeleportRobot *ptr = &tr;
    SimulatorControl ctl = SIMULATOR_CONTROL__INIT;
    ctl.n_teleport_robot = 1;
    ctl.teleport_robot = &ptr;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &ctl;
    return sslsim_world_apply_request (world, &cmd, 0, NULL);
}
