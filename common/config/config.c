/*  config.c - the configuration engine: finding keys in the tables,
    defaults, one key by name, the keys a process keeps as its own, and
    validation of a whole struct (spec/config.md). It walks the tables of config_keys.c (the string keys' checks are config_checks.c); one key's
    parse and format rules live in config_value.c, so a value the loader
    refuses is refused here too, with the same words.
*/
#include "config_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/base/sim_log.h"
#include "common/base/sim_team.h"

/* The port of "HOST:PORT", or 0 when there is none (the key's own check
   names a bad value). */
static int
s_addr_port (const char *hostport)
{
    const char *colon = strrchr (hostport, ':');
    long port = 0;
    return colon && sim_cfg_parse_long (colon + 1, &port) && port > 0 && port <= 65535 ? (int) port : 0;
}

/* ---- defaults ----------------------------------------------------------- */

void
sim_config_defaults (sim_config_t *cfg)
{
    /* zero first: padding and unused array slots must compare equal */
    memset (cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < sim_cfg_keys_count; i++)
        sim_cfg_key_default (&sim_cfg_keys[i], cfg);
    for (int team = 0; team < 2; team++)
        for (size_t i = 0; i < sim_cfg_team_keys_count; i++)
            sim_cfg_key_default (&sim_cfg_team_keys[i], &cfg->team[team]);
}

/* ---- finding keys ------------------------------------------------------- */

int
sim_cfg_team_section (const char *section, const char **sub)
{
    for (int team = 0; team < 2; team++) {
        size_t len = strlen (sim_team_name ((sim_team_t) team));
        if (strncasecmp (section, sim_team_name ((sim_team_t) team), len) != 0)
            continue;
        if (section[len] == '\0') {
            *sub = "";
            return team;
        }
        if (section[len] == '.') {
            *sub = section + len + 1;
            return team;
        }
    }
    return -1;
}

const sim_cfg_key_t *
sim_cfg_find_key (const sim_cfg_key_t *keys, size_t count, const char *section, const char *key,
                  size_t *index)
{
    for (size_t i = 0; i < count; i++)
        if (strcasecmp (keys[i].section, section) == 0 && strcasecmp (keys[i].key, key) == 0) {
            if (index)
                *index = i;
            return &keys[i];
        }
    return NULL;
}

bool
sim_cfg_section_known (const sim_cfg_key_t *keys, size_t count, const char *section)
{
    for (size_t i = 0; i < count; i++)
        if (strcasecmp (keys[i].section, section) == 0)
            return true;
    return false;
}

/* ---- one key by name ---------------------------------------------------- */

/* The table row of [section] key and the struct it lives in: a team
   section ("blue", "yellow.drive") uses the team table at that team's
   specs, anything else the global table. NULL when there is no such key. */
static const sim_cfg_key_t *
s_resolve (const char *section, const char *key, sim_config_t *cfg, void **base)
{
    const char *sub;
    int team = sim_cfg_team_section (section, &sub);
    if (team >= 0) {
        *base = &cfg->team[team];
        return sim_cfg_find_key (sim_cfg_team_keys, sim_cfg_team_keys_count, sub, key, NULL);
    }
    *base = cfg;
    return sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, section, key, NULL);
}

int
sim_config_set (sim_config_t *cfg, const char *section, const char *key, const char *value, char *err,
                size_t errlen)
{
    void *base;
    const sim_cfg_key_t *row = s_resolve (section, key, cfg, &base);
    if (!row) {
        sim_cfg_err (err, errlen, "[%s] %s: unknown key", section, key);
        return -1;
    }
    char why[400];
    if (sim_cfg_key_parse (row, base, value, why, sizeof why) != 0) {
        sim_cfg_err (err, errlen, "[%s] %s: %s", section, key, why);
        return -1;
    }
    return 0;
}

int
sim_config_get (const sim_config_t *cfg, const char *section, const char *key, char *buf, size_t size)
{
    void *base;
    /* s_resolve only computes an address; nothing is written through it */
    const sim_cfg_key_t *row = s_resolve (section, key, (sim_config_t *) cfg, &base);
    if (!row || size == 0)
        return -1;
    char value[SIM_STRING_MAX + 512];
    if (!sim_cfg_key_format (row, base, value, sizeof value)) {
        buf[0] = '\0';
        return 1;
    }
    if (strlen (value) >= size)
        return -1;
    memcpy (buf, value, strlen (value) + 1);
    return 0;
}

sim_config_t *
sim_cfg_defaults_new (void)
{
    sim_config_t *cfg = malloc (sizeof *cfg);
    if (cfg)
        sim_config_defaults (cfg);
    return cfg;
}

/* ---- local keys --------------------------------------------------------- */

static void
s_keep_local (const sim_cfg_key_t *keys, size_t count, void *dst, const void *src)
{
    for (size_t i = 0; i < count; i++)
        if (keys[i].flags & SIM_CFG_LOCAL)
            sim_cfg_key_copy (&keys[i], dst, src);
}

void
sim_config_keep_local (sim_config_t *cfg, const sim_config_t *own)
{
    s_keep_local (sim_cfg_keys, sim_cfg_keys_count, cfg, own);
    for (int team = 0; team < 2; team++)
        s_keep_local (sim_cfg_team_keys, sim_cfg_team_keys_count, &cfg->team[team], &own->team[team]);
    /* the [camera N] and [outage N] tables hold no local key (checked by
       test_config), so their lists are never mixed */
}

/* ---- validation --------------------------------------------------------- */

/* Every key of `keys` (in `section`, or all when section is NULL) as the
   loader would check it: the value is written as INI text and parsed into
   a scratch copy of the base struct, so one set of rules serves both. */
static int
s_check_keys (const sim_cfg_key_t *keys, size_t count, const char *section, const void *base,
              size_t base_size, const char *title, char *err, size_t errlen)
{
    char *scratch = (char *) malloc (base_size);
    if (!scratch) {
        sim_cfg_err (err, errlen, "out of memory");
        return -1;
    }
    memcpy (scratch, base, base_size);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const sim_cfg_key_t *key = &keys[i];
        if (section && strcmp (key->section, section) != 0)
            continue;
        char value[SIM_STRING_MAX + 512];
        char why[400];
        const char *field = (const char *) base + key->offset;
        if (key->type == SIM_CFG_STRING && !memchr (field, '\0', key->size)) {
            sim_cfg_err (err, errlen, "[%s] %s: not terminated", title, key->key);
            rc = -1;
        } else if (key->type == SIM_CFG_LIST
                   && (*(const int *) ((const char *) base + key->count_offset) < 0
                       || *(const int *) ((const char *) base + key->count_offset) > (int) key->size)) {
            sim_cfg_err (err, errlen, "[%s] %s: bad item count", title, key->key);
            rc = -1;
        } else if (sim_cfg_key_format (key, base, value, sizeof value)
                   && sim_cfg_key_parse (key, scratch, value, why, sizeof why) != 0) {
            sim_cfg_err (err, errlen, "[%s] %s: %s", title, key->key, why);
            rc = -1;
        }
    }
    free (scratch);
    return rc;
}

/* The range and type checks of the loader, applied to a struct. */
static int
s_check_all_keys (const sim_config_t *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < sim_cfg_keys_count; i++) {
        /* one call per section keeps the section name in the message */
        if (i > 0 && strcmp (sim_cfg_keys[i].section, sim_cfg_keys[i - 1].section) == 0)
            continue;
        if (s_check_keys (sim_cfg_keys, sim_cfg_keys_count, sim_cfg_keys[i].section, cfg, sizeof *cfg,
                          sim_cfg_keys[i].section, err, errlen)
            != 0)
            return -1;
    }
    char title[64];
    for (int team = 0; team < 2; team++)
        for (size_t s = 0; s < sim_cfg_team_subsections_count; s++) {
            const char *sub = sim_cfg_team_subsections[s];
            snprintf (title, sizeof title, "%s%s%s", sim_team_name ((sim_team_t) team), sub[0] ? "." : "",
                      sub);
            if (s_check_keys (sim_cfg_team_keys, sim_cfg_team_keys_count, sub, &cfg->team[team],
                              sizeof cfg->team[team], title, err, errlen)
                != 0)
                return -1;
        }
    const sim_vision_cfg_t *vision = &cfg->vision;
    if (vision->camera_count < 0 || vision->camera_count > SIM_MAX_CAMERAS || vision->outage_count < 0
        || vision->outage_count > SIM_MAX_OUTAGES) {
        sim_cfg_err (err, errlen, "[vision] camera_count or outage_count out of range");
        return -1;
    }
    for (int i = 0; i < vision->camera_count; i++) {
        snprintf (title, sizeof title, "camera %d", i);
        if (s_check_keys (sim_cfg_camera_keys, sim_cfg_camera_keys_count, NULL, &vision->cameras[i],
                          sizeof vision->cameras[i], title, err, errlen)
            != 0)
            return -1;
    }
    for (int i = 0; i < vision->outage_count; i++) {
        snprintf (title, sizeof title, "outage %d", i);
        if (s_check_keys (sim_cfg_outage_keys, sim_cfg_outage_keys_count, NULL, &vision->outages[i],
                          sizeof vision->outages[i], title, err, errlen)
            != 0)
            return -1;
    }
    return 0;
}

bool
sim_config_substep_whole (double substep)
{
    /* the substep is counted in whole nanoseconds (physics.md §2) */
    double ns = substep * 1e9;
    return ns >= 1 && fabs (ns - round (ns)) <= 1e-3;
}

/* Note the keys a failed cross-key check read, the one its message is
   about first (sim_cfg_blame_t). */
static void
s_blame (sim_cfg_blame_t *blame, int team, const char *section, const char *key)
{
    if (!blame || blame->count >= SIM_CFG_BLAME_MAX)
        return;
    blame->at[blame->count].team = team;
    blame->at[blame->count].section = section;
    blame->at[blame->count].key = key;
    blame->count++;
}

int
sim_config_validate (const sim_config_t *cfg, char *err, size_t errlen)
{
    return sim_cfg_validate_blame (cfg, NULL, err, errlen);
}

int
sim_cfg_validate_blame (const sim_config_t *cfg, sim_cfg_blame_t *blame, char *err, size_t errlen)
{
    if (blame)
        blame->count = 0;
    if (s_check_all_keys (cfg, err, errlen) != 0)
        return -1;
    if (!sim_config_substep_whole (cfg->sim.substep)) {
        sim_cfg_err (err, errlen,
                     "[sim] substep (%.17g s) must be a whole number of "
                     "nanoseconds, at least 1 ns",
                     cfg->sim.substep);
        s_blame (blame, -1, "sim", "substep");
        return -1;
    }
    for (int team = 0; team < 2; team++) {
        const sim_robot_specs_t *specs = &cfg->team[team];
        const char *name = sim_team_name ((sim_team_t) team);
        if (!(specs->center_to_dribbler < specs->radius)) {
            sim_cfg_err (err, errlen, "[%s] center_to_dribbler (%g) must be below radius (%g)", name,
                         specs->center_to_dribbler, specs->radius);
            s_blame (blame, team, "", "center_to_dribbler");
            s_blame (blame, team, "", "radius");
            return -1;
        }
        double seated = specs->center_to_dribbler + cfg->ball.radius - specs->dribbler.seat_depth;
        /* the default is exactly equal; allow for rounding of the sum */
        if (specs->shoot_radius < seated - 1e-9) {
            sim_cfg_err (err, errlen,
                         "[%s] shoot_radius (%g) must be at least center_to_dribbler "
                         "+ ball radius - seat_depth (%g)",
                         name, specs->shoot_radius, seated);
            s_blame (blame, team, "", "shoot_radius");
            s_blame (blame, team, "", "center_to_dribbler");
            s_blame (blame, -1, "ball", "radius");
            s_blame (blame, team, "dribbler", "seat_depth");
            return -1;
        }
    }
    const sim_network_cfg_t *net = &cfg->network;
    const struct {
        const char *section, *key;
        int port;
    } ports[] = { { "network", "control_port", net->control_port },
                  { "network", "blue_port", net->blue_port },
                  { "network", "yellow_port", net->yellow_port },
                  { "network", "legacy_port", net->legacy_port },
                  { "network", "legacy_status_port_blue", net->legacy_status_port_blue },
                  { "network", "legacy_status_port_yellow", net->legacy_status_port_yellow },
                  { "network", "truth_port", net->truth_port },
                  { "run", "vision_addr", s_addr_port (cfg->run.vision_addr) },
                  { "network", "referee_addr", s_addr_port (net->referee_addr) },
                  { "viewer", "addr", s_addr_port (cfg->viewer.addr) } };
    for (size_t i = 0; i < sizeof ports / sizeof ports[0]; i++) {
        int port = ports[i].port;
        if (port > 0 && !sim_config_port_fits (cfg, port)) {
            sim_cfg_err (err, errlen, "[network] port_offset %d moves port %d of [%s] %s outside 1..65535",
                         net->port_offset, port, ports[i].section, ports[i].key);
            s_blame (blame, -1, "network", "port_offset");
            s_blame (blame, -1, ports[i].section, ports[i].key);
            return -1;
        }
    }
    /* the gateway binds these three on one address: two the same would
       fail at its start as if another program held the port */
    for (size_t i = 0; i < 3; i++)
        for (size_t j = i + 1; j < 3; j++)
            if (ports[i].port == ports[j].port) {
                sim_cfg_err (err, errlen, "[%s] %s (%d) is also [%s] %s: the gateway binds each on its own",
                             ports[j].section, ports[j].key, ports[j].port, ports[i].section, ports[i].key);
                s_blame (blame, -1, ports[j].section, ports[j].key);
                s_blame (blame, -1, ports[i].section, ports[i].key);
                return -1;
            }
    if (cfg->realism.vision_processing_time > cfg->realism.vision_delay)
        sim_warn ("[realism] vision_processing_time (%g s) exceeds vision_delay (%g s)",
                  cfg->realism.vision_processing_time, cfg->realism.vision_delay);
    return 0;
}

/* ---- small public helpers ----------------------------------------------- */

/* The one port rule (docs/operations.md, "Several simulators on one
   computer"): every port, however it was given, moves by the offset. */
int
sim_config_port (const sim_config_t *cfg, int base_port)
{
    return base_port + cfg->network.port_offset;
}

bool
sim_config_port_fits (const sim_config_t *cfg, int base_port)
{
    int port = sim_config_port (cfg, base_port);
    return port >= 1 && port <= 65535;
}

const char *
sim_config_mode_name (sim_mode_t mode)
{
    switch (mode) {
    case SIM_MODE_REALTIME:
        return "realtime";
    case SIM_MODE_FAST:
        return "fast";
    case SIM_MODE_SYNC:
        return "sync";
    }
    return "?";
}

const char *
sim_config_division_name (sim_division_t division)
{
    switch (division) {
    case SIM_DIVISION_A:
        return "a";
    case SIM_DIVISION_B:
        return "b";
    }
    return "?";
}
