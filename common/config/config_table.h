/*  config_table.h - the shape of the configuration tables: one row per key
    (config_keys.c, config_keys_team.c), per command-line flag and per sub-command
    (config_flags.c). Private to the config_*.c files and to
    tests/unit/test_config.c, which checks the tables against each other;
    everything else uses config.h.

    The rows are data only. A key is declared exactly once, in one of four
    tables: the global keys (offset into sim_config_t), the robot-spec keys
    (offset into sim_robot_specs_t, used for [blue*] and [yellow*] at each
    team's offset), and the keys of the numbered [camera N] and [outage N]
    sections. A flag that sets a key names it, so its help text can show
    the key's default without restating it.
*/
#ifndef SIM_CONFIG_TABLE_H_INCLUDED
#define SIM_CONFIG_TABLE_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

#include "sim_config.h"

/* ---- keys --------------------------------------------------------------- */

typedef enum {
    SIM_CFG_FLOAT,
    SIM_CFG_INT,
    SIM_CFG_U64,
    SIM_CFG_BOOL,
    SIM_CFG_ENUM,
    SIM_CFG_STRING,
    SIM_CFG_LIST
} sim_cfg_type_t;

/* sim_cfg_range_t.flags */
enum {
    SIM_CFG_MIN_EXCL = 1,   /* value must be > min (else >= min) */
    SIM_CFG_MAX_EXCL = 2,   /* value must be < max (else <= max) */
    SIM_CFG_ZERO_UNSET = 4, /* 0 is accepted as "unset" whatever the range */
};

/* sim_cfg_key_t.flags */
enum {
    /* The key describes this host or process, not the simulation: a
       service keeps its own value when it adopts the effective
       configuration physics publishes (sim_config_keep_local). */
    SIM_CFG_LOCAL = 1,
};

typedef struct {
    double min, max;
    unsigned flags;
} sim_cfg_range_t;

typedef struct {
    const char *name;
    int value;
} sim_cfg_enum_name_t;

/* A string value check beyond its length; 0 or -1 with a reason in why. */
typedef int (sim_cfg_check_fn) (const char *value, char *why, size_t whylen);

typedef struct {
    const char *section; /* global: "ball"; team table: "" or "limits" */
    const char *key;
    sim_cfg_type_t type;
    size_t offset;        /* into the table's base struct */
    size_t size;          /* STRING: buffer size; LIST: max items */
    size_t count_offset;  /* LIST: offset of the int item count */
    double def;           /* numbers, bools, enums */
    const char *def_text; /* STRING */
    sim_cfg_range_t range;
    const sim_cfg_enum_name_t *names; /* ENUM; first entry per value is canonical */
    sim_cfg_check_fn *check;          /* STRING */
    const char *unit;
    const char *help;
    const char *unset_note; /* dump comment written instead of an unset value */
    unsigned flags;         /* SIM_CFG_LOCAL */
} sim_cfg_key_t;

/* The bytes of a key's field in its base struct (a list's values, not its
   count at count_offset). */
size_t sim_cfg_key_size (const sim_cfg_key_t *key);

/* The four key tables (config_keys.c, config_keys_team.c) and their
   lengths. */
extern const sim_cfg_key_t sim_cfg_keys[];
extern const size_t sim_cfg_keys_count;
extern const sim_cfg_key_t sim_cfg_team_keys[];
extern const size_t sim_cfg_team_keys_count;
extern const sim_cfg_key_t sim_cfg_camera_keys[];
extern const size_t sim_cfg_camera_keys_count;
extern const sim_cfg_key_t sim_cfg_outage_keys[];
extern const size_t sim_cfg_outage_keys_count;

/* The team sub-sections in dump order ("" is the team section itself);
   a team's section is its sim_team_name (common/base/sim_team.h). */
extern const char *const sim_cfg_team_subsections[];
extern const size_t sim_cfg_team_subsections_count;

/* String checks the key table refers to (config_value.c). */
sim_cfg_check_fn sim_cfg_check_log_level, sim_cfg_check_addr, sim_cfg_check_ipv4, sim_cfg_check_ball_preset,
    sim_cfg_check_limits_preset, sim_cfg_check_addr_list, sim_cfg_check_trusted_list;

/* ---- command-line flags ------------------------------------------------- */

typedef enum {
    SIM_CFG_FLAG_KEY,      /* sets (section, key) from the argument or `fixed` */
    SIM_CFG_FLAG_CONFIG,   /* loads a file, before every other flag */
    SIM_CFG_FLAG_STEP_MS,  /* [sim] substep in milliseconds */
    SIM_CFG_FLAG_CAMERAS,  /* auto-placed cameras, dropping explicit ones */
    SIM_CFG_FLAG_SEED,     /* [sim] seed, or "random" */
    SIM_CFG_FLAG_LAUNCHER, /* handled by the launcher, not a configuration flag */
} sim_cfg_flag_kind_t;

/* sim_cfg_flag_t.flags */
enum {
    SIM_CFG_SHOW_DEFAULT = 1, /* help ends with "(default X)", X from the key table */
    SIM_CFG_SHOW_RANGE = 2,   /* help ends with the key's range */
    SIM_CFG_POSITIVE = 4,     /* the value must be seconds > 0, though the key
                                   also takes 0 for "unset" */
};

typedef struct {
    const char *name; /* "--speed" */
    const char *arg;  /* help's name of the value ("X"); NULL: takes none;
                                   "" for an enum key: its canonical names, a|b */
    sim_cfg_flag_kind_t kind;
    const char *section, *key;     /* the key it sets or shows the default of */
    const char *fixed;             /* KEY without an argument: the value it sets */
    double scale;                  /* help default = key default * scale (0: 1) */
    const char *(*choices) (void); /* preset names for "{names}" in help */
    const char *help;              /* "{names}": choices without aliases;
                                   "{section.key}": that key's default */
    unsigned flags;                /* SIM_CFG_SHOW_* */
} sim_cfg_flag_t;

/* A sub-command of the usage text. */
typedef struct {
    const char *synopsis; /* "run [--single-process] [OPTIONS]" */
    const char *help;
} sim_cfg_command_t;

/* The flag and sub-command tables (config_flags.c) and their lengths. */
extern const sim_cfg_flag_t sim_cfg_flags[];
extern const size_t sim_cfg_flags_count;
extern const sim_cfg_command_t sim_cfg_commands[];
extern const size_t sim_cfg_commands_count;

#endif
