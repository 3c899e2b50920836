/*  config_dump.c - a configuration written out: the INI dump that
    `ssl-sim presets` prints and physics publishes (it loads back to the
    same bytes), the annotated dump behind configs/ssl-sim.ini, and the
    Markdown key reference of docs/config.md. All three walk the key
    tables in one order, so a new key shows up everywhere at once.
*/
#include "config_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/sim_team.h"

static const char *const s_header =
    "; ssl-sim built-in defaults, printed by `ssl-sim presets`.\n"
    "; Edit a copy and start with `ssl-sim run --config <copy>`.\n"
    ";\n"
    "; --realism choices:\n"
    ";   none               perfect vision: no noise or loss, only the 35 ms delay\n"
    ";   realistic          default; fitted to ten 2026 tournament games\n"
    ";   go26               German Open 2026 venue: many false balls from robot LEDs\n"
    ";   rc26               RoboCup 2026 venue: few false balls, ~2.3 cm camera offset\n"
    ";   vp26               TIGERs' vision-processor: its source, clocks, geometry and\n"
    ";                      artefacts (alias: vision_processor)\n"
    ";   erforce_friendly   ER-Force's \"Friendly\" values (alias: friendly)\n"
    ";   erforce_realistic  ER-Force's \"Realistic\" values\n"
    ";   erforce_rc2021     ER-Force's \"RC2021\" values, glued dribbler (alias: rc2021)\n"
    ";\n"
    "; --ball-preset choices:\n"
    ";   default  2026 fit with speed-dependent rolling (alias: measured)\n"
    ";   go26     German Open 2026 carpet\n"
    ";   rc26     RoboCup 2026 carpet\n"
    ";   erforce  ball constants advertised by ER-Force's simulator\n"
    ";   tigers   TIGERs' published ball parameters (Sumatra BallParameters)\n"
    ";   grsim    grSim-like ball\n"
    ";\n"
    "; --robot-limits choices:\n"
    ";   default  limits fitted to 2026 games (alias: measured)\n"
    ";   tigers   TIGERs Mannheim, from TIGERs' bot parameter database (kick caps too)\n"
    ";   erforce  ER-Force fleet\n"
    ";   kiks     KIKS fleet\n"
    ";   fast     fastest fleet seen in the logs\n"
    ";   grsim    grSim's loose limits\n"
    ";   zjunlict, immortals, roboteam (RoboTeam Twente), luhbots: those teams\n"
    ";            as TIGERs' bot parameter database gives them (kick caps too)\n"
    ";\n"
    "; --division choices: a (12 x 9 m), b (9 x 6 m)\n"
    "; --cameras choices: 1 (one central camera), 2 (default), 4 (one per quadrant)\n"
    "; A preset flag replaces its whole section; anything a preset sets can\n"
    "; also be written out in this file instead.\n";

/* One "; help [unit] (range)" comment line for the annotated dump. */
static void
s_dump_help (sim_out_t *out, const sim_cfg_key_t *key)
{
    char range[96];
    char choices[96];
    sim_cfg_range_text (key, range, sizeof range);
    if (key->type == SIM_CFG_ENUM) {
        sim_cfg_enum_list (key->names, choices, sizeof choices);
        snprintf (range, sizeof range, "%s", choices);
    }
    sim_out (out, "; %s", key->help);
    if (key->unit && key->unit[0])
        sim_out (out, " [%s]", key->unit);
    if (range[0] && key->type != SIM_CFG_ENUM)
        sim_out (out, " (%s)", range);
    sim_out (out, "\n");
}

/* Every key of `keys` whose table section is `section`, read from base. */
static void
s_dump_keys (sim_out_t *out, const sim_cfg_key_t *keys, size_t count, const char *section, const void *base,
             bool annotated)
{
    char value[SIM_STRING_MAX + 512];
    for (size_t i = 0; i < count; i++) {
        const sim_cfg_key_t *key = &keys[i];
        if (strcmp (key->section, section) != 0)
            continue;
        if (annotated)
            s_dump_help (out, key);
        if (sim_cfg_key_format (key, base, value, sizeof value))
            sim_out (out, "%s = %s\n", key->key, value);
        else if (key->unset_note)
            sim_out (out, "; %s\n", key->unset_note);
    }
}

static void
s_dump_global (sim_out_t *out, const sim_config_t *cfg, const char *section, bool annotated)
{
    sim_out (out, "\n[%s]\n", section);
    s_dump_keys (out, sim_cfg_keys, sim_cfg_keys_count, section, cfg, annotated);
}

/* Whether every key of `section` holds its default in cfg: a section
   added after the presets text was fixed ([tournament]) is written only
   when it says something, so that text stays what users start from. */
static bool
s_at_defaults (const sim_config_t *cfg, const char *section)
{
    sim_config_t *defaults = (sim_config_t *) calloc (1, sizeof (sim_config_t));
    if (!defaults)
        return false;
    bool same = true;
    for (size_t i = 0; i < sim_cfg_keys_count && same; i++) {
        const sim_cfg_key_t *key = &sim_cfg_keys[i];
        if (strcmp (key->section, section) != 0)
            continue;
        char a[SIM_STRING_MAX + 512], b[SIM_STRING_MAX + 512];
        sim_cfg_key_default (key, defaults);
        bool has_a = sim_cfg_key_format (key, cfg, a, sizeof a);
        bool has_b = sim_cfg_key_format (key, defaults, b, sizeof b);
        same = has_a == has_b && (!has_a || strcmp (a, b) == 0);
    }
    free (defaults);
    return same;
}

static char *
s_dump (const sim_config_t *cfg, bool with_header, bool annotated)
{
    sim_out_t out = { NULL, 0, 0, false };
    if (with_header)
        sim_out (&out, "%s", s_header);
    else
        sim_out (&out, "; ssl-sim configuration\n");

    s_dump_global (&out, cfg, "sim", annotated);
    s_dump_global (&out, cfg, "ball", annotated);
    s_dump_global (&out, cfg, "contact", annotated);

    for (int team = 0; team < 2; team++)
        for (size_t s = 0; s < sim_cfg_team_subsections_count; s++) {
            const char *sub = sim_cfg_team_subsections[s];
            sim_out (&out, "\n");
            if (strcmp (sub, "wheel_angles") == 0 && team == 0)
                sim_out (&out, "; CCW from robot +x, protocol order; the wire message is "
                               "clockwise (negated)\n");
            sim_out (&out, "[%s%s%s]\n", sim_team_name ((sim_team_t) team), sub[0] ? "." : "", sub);
            s_dump_keys (&out, sim_cfg_team_keys, sim_cfg_team_keys_count, sub, &cfg->team[team], annotated);
        }

    s_dump_global (&out, cfg, "vision", annotated);
    const sim_vision_cfg_t *vision = &cfg->vision;
    if (vision->camera_count <= 0)
        sim_out (&out, "\n; Explicit cameras replace the auto-placement, e.g.\n"
                       "; [camera 0]\n; id = 0\n; x = 2.4\n; y = 0.0\n; z = 6.4\n");
    for (int i = 0; i < vision->camera_count && i < SIM_MAX_CAMERAS; i++) {
        sim_out (&out, "\n[camera %d]\n", i);
        s_dump_keys (&out, sim_cfg_camera_keys, sim_cfg_camera_keys_count, "camera", &vision->cameras[i],
                     annotated);
    }
    if (vision->outage_count <= 0)
        sim_out (&out,
                 "%s; Scripted vision outages (sim seconds), e.g.\n"
                 "; [outage 0]\n; start = 120.0\n; duration = 310.0\n",
                 vision->camera_count <= 0 ? ";\n" : "\n");
    for (int i = 0; i < vision->outage_count && i < SIM_MAX_OUTAGES; i++) {
        sim_out (&out, "\n[outage %d]\n", i);
        s_dump_keys (&out, sim_cfg_outage_keys, sim_cfg_outage_keys_count, "outage", &vision->outages[i],
                     annotated);
    }

    s_dump_global (&out, cfg, "realism", annotated);
    sim_out (&out, "\n; Field sizes: 0 = the division's size (docs/config.md, [field])");
    s_dump_global (&out, cfg, "field", annotated);
    s_dump_global (&out, cfg, "run", annotated);
    s_dump_global (&out, cfg, "network", annotated);
    s_dump_global (&out, cfg, "viewer", annotated);
    if (!s_at_defaults (cfg, "tournament"))
        s_dump_global (&out, cfg, "tournament", annotated);
    sim_out (&out, "\n; Bus endpoints: empty = an automatic ipc:// path in the runtime directory");
    s_dump_global (&out, cfg, "bus", annotated);

    if (out.oom) {
        free (out.buf);
        return NULL;
    }
    return out.buf;
}

char *
sim_config_dump (const sim_config_t *cfg, bool with_header)
{
    return s_dump (cfg, with_header, false);
}

char *
sim_config_dump_annotated (const sim_config_t *cfg)
{
    return s_dump (cfg, true, true);
}

/* ---- the key reference -------------------------------------------------- */

static void
s_doc_keys (sim_out_t *out, const sim_cfg_key_t *keys, size_t count, const char *section, const char *title,
            const void *base)
{
    sim_out (out,
             "\n### %s\n\n| Key | Type | Unit | Default | Range | Meaning |\n"
             "|---|---|---|---|---|---|\n",
             title);
    static const char *const type_names[] = { "float", "int", "u64", "bool", "enum", "string", "list" };
    for (size_t i = 0; i < count; i++) {
        const sim_cfg_key_t *key = &keys[i];
        if (strcmp (key->section, section) != 0)
            continue;
        char value[SIM_STRING_MAX + 512];
        char range[128];
        if (!sim_cfg_key_format (key, base, value, sizeof value))
            snprintf (value, sizeof value, "(unset)");
        if (key->type == SIM_CFG_ENUM)
            sim_cfg_enum_list (key->names, range, sizeof range);
        else
            sim_cfg_range_text (key, range, sizeof range);
        /* a literal | would split the markdown cell */
        for (char *p = range; *p; p++)
            if (*p == '|')
                *p = '/';
        char help[256];
        snprintf (help, sizeof help, "%s", key->help);
        for (char *p = help; *p; p++)
            if (*p == '|')
                *p = '/';
        sim_out (out, "| %s | %s | %s | %s | %s | %s |\n", key->key, type_names[key->type],
                 key->unit && key->unit[0] ? key->unit : "-", value[0] ? value : "\"\"",
                 range[0] ? range : "-", help);
    }
}

char *
sim_config_doc_markdown (void)
{
    sim_config_t *cfg = sim_cfg_defaults_new ();
    if (!cfg)
        return NULL;
    sim_out_t out = { NULL, 0, 0, false };
    sim_out (&out, "<!-- generated from the key table of common/config/config_keys.c by "
                   "sim_config_doc_markdown(); do not edit by hand -->\n");
    static const char *const globals[][2] = {
        { "sim", "[sim]" },
        { "ball", "[ball]" },
        { "contact", "[contact]" },
    };
    for (size_t i = 0; i < sizeof globals / sizeof globals[0]; i++)
        s_doc_keys (&out, sim_cfg_keys, sim_cfg_keys_count, globals[i][0], globals[i][1], cfg);
    for (size_t s = 0; s < sim_cfg_team_subsections_count; s++) {
        char title[64];
        const char *sub = sim_cfg_team_subsections[s];
        snprintf (title, sizeof title, "[blue%s%s] and [yellow%s%s]", sub[0] ? "." : "", sub,
                  sub[0] ? "." : "", sub);
        s_doc_keys (&out, sim_cfg_team_keys, sim_cfg_team_keys_count, sub, title, &cfg->team[0]);
    }
    s_doc_keys (&out, sim_cfg_keys, sim_cfg_keys_count, "vision", "[vision]", cfg);
    sim_camera_cfg_t camera = { 0 };
    sim_outage_cfg_t outage = { 0 };
    s_doc_keys (&out, sim_cfg_camera_keys, sim_cfg_camera_keys_count, "camera",
                "[camera N] (x, y and z required)", &camera);
    s_doc_keys (&out, sim_cfg_outage_keys, sim_cfg_outage_keys_count, "outage",
                "[outage N] (start and duration required)", &outage);
    static const char *const rest[][2] = {
        { "realism", "[realism]" }, { "field", "[field]" },           { "run", "[run]" },
        { "network", "[network]" }, { "tournament", "[tournament]" }, { "viewer", "[viewer]" },
        { "bus", "[bus]" },
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        s_doc_keys (&out, sim_cfg_keys, sim_cfg_keys_count, rest[i][0], rest[i][1], cfg);
    free (cfg);
    if (out.oom) {
        free (out.buf);
        return NULL;
    }
    return out.buf;
}
