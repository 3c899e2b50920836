/*  config.h - defaults, INI files, command-line flags and their help,
    presets and the INI dump of the effective configuration
    (spec/config.md).

    One table of (section, key, type, offset, default, range, unit, help,
    flags) in config_keys.c drives all of it, so a key is declared exactly
    once; one table of flags in config_flags.c drives the command line and
    its --help text (config_parts.h lists the parts). The structs
    themselves live in sim_config.h. Every function here fills a
    caller-owned sim_config_t; nothing keeps state between calls.

    Precedence (config.md §2, §3.7): built-in defaults, then --config FILE,
    then the flags, then the preset names of [run] or of the flags replace
    their whole tables (a flag wins over [run]).
*/
#ifndef SIM_CONFIG_MODULE_H_INCLUDED
#define SIM_CONFIG_MODULE_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

#include "sim_config.h"

/* Fill every field with the built-in default (config.md §5 values; realism
   = realistic preset). The whole struct is zeroed first, so two default
   configurations are memcmp-equal, padding included. */
void sim_config_defaults (sim_config_t *cfg);

/* Apply an INI file on top of cfg. Returns 0 on success; -1 with a message
   "FILE:LINE: [section] key: what is wrong" in err (err may be NULL).
   Unknown sections and keys are warnings (sim_warn naming file, line and
   key), not errors. A file that has any [camera N] section replaces the
   whole camera list (likewise [outage N] the outage list). The preset
   names of [run] are stored, not applied: sim_config_apply_run_presets
   (called by sim_config_from_args) applies them. On error cfg may be
   partly changed. */
int sim_config_load_file (sim_config_t *cfg, const char *path, char *err, size_t errlen);

/* Same for INI text in memory; `origin` names it in messages. Used to
   decode the effective configuration that physics publishes on the bus. */
int sim_config_load_string (sim_config_t *cfg, const char *text, const char *origin, char *err,
                            size_t errlen);

/* The full precedence (docs/config.md) on top of whatever cfg holds
   (normally sim_config_defaults): every --config FILE in order, each
   applying the presets its [run] names and then its own values on top of
   them; then every other flag in order (plus --port-offset N); then the
   presets given as flags, which win over every file and log each file
   value they replaced (sim_info); then both teams' dribbler.glue =
   !realism.simulate_dribbling (physics.md §9.8), then the cross-key checks
   of sim_config_validate. The environment variable SSL_SIM_LOG, when set to a
   valid level, replaces [run] log_level. argv[0..argc) are only options
   (no program name, no sub-command); "--flag value" and "--flag=value" are
   both accepted. A relative realism file named by [run] realism in a
   config file is also looked up next to that file; an unknown preset named
   in a file is reported at its FILE:LINE. Returns 0, or -1 with a
   message in err (unknown flag, bad value, missing argument, file errors);
   on error cfg may be partly changed. --help is not handled here. */
int sim_config_from_args (sim_config_t *cfg, int argc, char **argv, char *err, size_t errlen);

/* Whether the configuration option `arg` takes its value from the next
   word, as sim_config_from_args reads it: a flag of the table that takes
   a value, not written "--flag=value". False for a flag that takes none
   (--localhost) and for an unknown word, so a caller that splits its own
   words from the configuration's (`ssl-sim stats FILE`) leaves the next
   word to itself. */
bool sim_config_flag_takes_value (const char *arg);

/* The key the configuration option `arg` ("--seed", "--seed=3") sets:
   its section and name, and whether it is local (sim_config_keep_local
   keeps it). False for a word that sets no key (--config, a launcher's
   own flag, an unknown word). */
bool sim_config_flag_key (const char *arg, const char **section, const char **key, bool *local);

/* Apply the preset names stored in [run] realism / ball_preset /
   robot_limits / blue_robot_limits / yellow_robot_limits, in that order
   (each replaces its whole table; empty = nothing). Returns 0
   or -1 with err. */
int sim_config_apply_run_presets (sim_config_t *cfg, char *err, size_t errlen);

/* Set one key from its INI text with the loader's type and range checks.
   section is a global section ("sim", "run", ...) or a team section
   ("blue", "yellow.limits", ...); numbered sections are not reachable
   here. Returns 0, or -1 with "[section] key: reason" in err (an unknown
   key too); on error cfg is unchanged. */
int sim_config_set (sim_config_t *cfg, const char *section, const char *key, const char *value, char *err,
                    size_t errlen);

/* One key's value as the dump writes it, into buf. Returns 0; 1 when the
   key is unset and the dump leaves it out (buf ""); -1 when there is no
   such key or the text does not fit in size. */
int sim_config_get (const sim_config_t *cfg, const char *section, const char *key, char *buf, size_t size);

/* Copy every key flagged local from own into cfg: the keys that describe
   this host or process rather than the simulation (config.md, "Local
   keys"): every [bus] and [network] key, [run] log_level and [run]
   duration. A service adopting the effective configuration physics
   published calls it with its own parse. Nothing else of cfg changes
   (rig_generation included). */
void sim_config_keep_local (sim_config_t *cfg, const sim_config_t *own);

/* Whether a substep of `substep` seconds is a whole number of
   nanoseconds, at least one (what sim_config_validate asks of it). */
bool sim_config_substep_whole (double substep);

/* Everything a loader would refuse, checked on a struct: every key's type
   and range (as if the dump of cfg were loaded), then the cross-key checks
   a single range cannot express: substep a whole number of nanoseconds,
   center_to_dribbler < radius, shoot_radius >= center_to_dribbler + ball
   radius - seat_depth, every port (UDP, the viewer's HTTP) + port_offset within 1..65535,
   control_port, blue_port and yellow_port all different.
   Physics can run it on a candidate before accepting a runtime change, so
   the effective configuration it publishes always loads. Returns 0 or -1
   with "[section] key: reason" in err. Also warns when
   vision_processing_time > vision_delay. */
int sim_config_validate (const sim_config_t *cfg, char *err, size_t errlen);

/* The complete configuration as INI text; with_header adds the comment
   header of config.md §5 listing every preset. Loading the output into
   defaults gives back a configuration memcmp-equal to cfg (rig_generation
   excepted, it is runtime state and not written). Floats use the shortest
   of %.15g / %.17g that round-trips. Returns a heap string the caller
   frees, or NULL when out of memory. */
char *sim_config_dump (const sim_config_t *cfg, bool with_header);

/* Like sim_config_dump with the header, plus a comment line before every
   key giving its meaning, unit and range (the example configuration is
   made from it). Caller frees; NULL when out of memory. */
char *sim_config_dump_annotated (const sim_config_t *cfg);

/* The key reference as Markdown tables (key, type, unit, default, range,
   meaning), one per section, for docs/config.md. Caller frees; NULL when
   out of memory. */
char *sim_config_doc_markdown (void);

/* The `ssl-sim --help` text after its title line: the sub-commands and
   every flag of the flag table with its help; the defaults it shows come
   from the key table. Caller frees; NULL when out of memory. */
char *sim_config_usage (void);

/* The ssl-sim(1) manual page in man(7) roff: the sub-commands and every
   flag with the help text --help gives, `version` in its title line.
   Caller frees; NULL when out of memory. */
char *sim_config_manpage (const char *version);

/* A bash completion script for ssl-sim: its sub-commands, the flags each
   takes, the values a flag's table row names, and the NULL-terminated
   `services` after `service` and `restart`. Caller frees; NULL when out
   of memory. */
char *sim_config_bash_completion (const char *const *services);

/* Replace the whole [realism] table by a preset name (case-insensitive,
   aliases) or an INI realism file (keys under [realism] or before any
   section; missing keys = realistic). Also sets both teams'
   dribbler.glue = !simulate_dribbling (physics.md §9.8). Returns 0, or -1
   with err listing the preset names. */
int sim_config_apply_realism (sim_config_t *cfg, const char *name_or_file, char *err, size_t errlen);

/* Set the whole [realism] table to *realism and what follows from it:
   both teams' dribbler.glue = !simulate_dribbling (physics.md §9.8).
   Every way the realism changes (a start, a preset switch, a client's
   single keys) goes through here. */
void sim_config_set_realism (sim_config_t *cfg, const sim_realism_t *realism);

/* A runtime switch to the realism preset `name` (a preset name or alias,
   case-insensitive; never a file): the whole [realism] table and both
   glue flags as sim_config_apply_realism sets them, and [run] realism =
   name, so the configuration holds what a start with `--realism NAME`
   holds in every key a preset decides. Returns 0, or -1 with err
   listing the preset names (cfg unchanged). */
int sim_config_switch_realism (sim_config_t *cfg, const char *name, char *err, size_t errlen);

/* The realism the run reports (the viewer's status): [run] realism (empty:
   realistic) while the [realism] table equals that preset's in every key;
   "NAME+custom" once single keys changed it (a file's [realism] keys over
   its preset, a client's ER-Force keys at runtime); "custom" when [run]
   realism names a realism file. [run] realism itself keeps the preset the
   table started from, so a published configuration loads back to the same
   table. Writes at most outlen bytes, NUL-terminated. */
void sim_config_realism_label (const sim_config_t *cfg, char *out, size_t outlen);

/* Replace the whole [ball] table by a preset of physics.md §5.6 (default,
   measured, go26, rc26, erforce, tigers, grsim; case-insensitive). Returns 0
   or -1 with err listing the names. */
int sim_config_apply_ball_preset (sim_config_t *cfg, const char *name, char *err, size_t errlen);

/* Replace [blue.limits] and [yellow.limits] by a preset of physics.md §6.3
   (default, measured, tigers, erforce, kiks, fast, grsim). Returns 0 or -1
   with err listing the names. */
int sim_config_apply_robot_limits (sim_config_t *cfg, const char *name, char *err, size_t errlen);

/* The same for one team alone (0 blue, 1 yellow): [run] blue_robot_limits
   and yellow_robot_limits, applied after robot_limits. */
int sim_config_apply_team_robot_limits (sim_config_t *cfg, int team, const char *name, char *err,
                                        size_t errlen);

/* Fill *out with a realism / ball / limits preset by name; 0, or -1 when
   the name is unknown. The realism and ball lookups start from defaults, so
   keys a preset does not list keep their default-column value. */
int sim_config_realism_preset (const char *name, sim_realism_t *out);
int sim_config_ball_preset (const char *name, sim_ball_cfg_t *out);
int sim_config_limits_preset (const char *name, sim_limits_t *out);

/* Comma-separated canonical names of the presets (static strings). */
const char *sim_config_realism_names (void);
const char *sim_config_ball_names (void);
const char *sim_config_limits_names (void);

/* Parse a [tournament] address list: IPv4 dotted quads separated by
   commas, blanks around each allowed, "" = none. Writes up to max
   addresses (network byte order) to out when out is not NULL. Returns
   how many, or -1 with the reason in why (a bad or empty item, more than
   max). The key checks, tournament mode (sim_tournament) and the
   trusted sources (sim_trust: the gateway's and the grSim port's) use it. */
int sim_config_addr_list (const char *text, uint32_t *out, int max, char *why, size_t whylen);

/* A port of the configuration as ssl-sim uses it: moved by [network]
   port_offset. The one rule for every port, whether it comes from a
   default, a file, a flag (--vision-addr, --viewer-addr, `stats
   --listen`) or a SimulatorControl's vision_port, and whether ssl-sim
   binds it, sends to it or listens on it (the referee's too): one file
   and one offset make a second complete setup (docs/operations.md,
   "Several simulators on one computer"). The [bus] tcp endpoints are not
   ports of this kind (the automatic ipc ones move with the runtime
   directory). */
int sim_config_port (const sim_config_t *cfg, int base_port);

/* Whether base_port moved by port_offset (sim_config_port) is a UDP port,
   1..65535: the rule the configuration's ports are validated by, and a
   SimulatorConfig's vision_port at runtime. */
bool sim_config_port_fits (const sim_config_t *cfg, int base_port);

/* "realtime", "fast", "sync" (static strings; "?" for a bad value). */
const char *sim_config_mode_name (sim_mode_t mode);

/* "a" or "b" (static strings; "?" for a bad value). */
const char *sim_config_division_name (sim_division_t division);

#endif
