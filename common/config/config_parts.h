/*  config_parts.h - what the parts of the configuration module share.
    Private to common/config/config*.c (and tests/unit/test_config.c); everything
    else uses config.h. The parts:

      config_keys.c    the global keys' table (data only, config_table.h)
      config_keys_team.c  the robot, camera and outage keys' tables
      config_flags.c   the flags' and sub-commands' tables
      config_value.c   one key's value: parse, range check, format, default
      config.c         the engine over the tables: defaults, get/set by
                       key, local keys, validation
      config_ini.c     the INI loader (file or string, FILE:LINE errors)
      config_presets.c the named presets and applying them
      config_cli.c     the command line: flags over files, blame for errors
      config_help.c    the --help text
      config_flag_rules.c  what the flag table cannot say by itself
      config_dump.c    the INI dump and the Markdown key reference
      config_man.c     the ssl-sim(1) man page and the bash completion

    Error text goes to a caller's (err, errlen) buffer; err may be NULL.
*/
#ifndef SIM_CONFIG_PARTS_H_INCLUDED
#define SIM_CONFIG_PARTS_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "config_table.h"
#include "common/base/sim_out.h"

/* ---- config_value.c: text helpers --------------------------------------- */

/* printf into err (nothing when err is NULL or errlen 0). */
void sim_cfg_err (char *err, size_t errlen, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Copy src into a fixed buffer of `size`, zeroing the tail so memcmp of
   two configurations stays meaningful. Returns 0, or -1 (dest unchanged)
   when src does not fit. */
int sim_cfg_copy_string (char *dest, size_t size, const char *src);

/* The fewest of 15, 16, 17 significant digits that read back to the same
   double; ".0" marks an integral value. */
void sim_cfg_format_double (double value, char *buf, size_t size);

/* Whole-string number parsers (surrounding blanks allowed): true and *out
   set, or false. A double must be finite; a u64 has no sign. */
bool sim_cfg_parse_double (const char *text, double *out);
bool sim_cfg_parse_long (const char *text, long *out);
bool sim_cfg_parse_u64 (const char *text, uint64_t *out);

/* "a | b": the canonical names of an enum (first per value). */
void sim_cfg_enum_list (const sim_cfg_enum_name_t *names, char *buf, size_t size);

/* A key's range as text, e.g. "> 0", "within 0..1"; "" when unlimited. */
void sim_cfg_range_text (const sim_cfg_key_t *key, char *buf, size_t size);

/* ---- config_value.c: one key at `base` (its table's struct) ------------- */

/* Write the key's default into its field. */
void sim_cfg_key_default (const sim_cfg_key_t *key, void *base);

/* Parse INI text into the key's field, with the type and range checks of
   the loader. Returns 0, or -1 with the reason in why (field unchanged). */
int sim_cfg_key_parse (const sim_cfg_key_t *key, void *base, const char *text, char *why, size_t whylen);

/* The field as INI text that parses back to the same bytes. Returns false
   when the value is "unset" and is not written (buf then undefined). */
bool sim_cfg_key_format (const sim_cfg_key_t *key, const void *base, char *buf, size_t size);

/* Copy the key's field (and a list's count) from src to dst. */
void sim_cfg_key_copy (const sim_cfg_key_t *key, void *dst, const void *src);

/* ---- config.c: the defaults on the heap (a sim_config_t is large) ------ */

/* A new sim_config_t holding the defaults (free it), or NULL. */
sim_config_t *sim_cfg_defaults_new (void);

/* ---- config.c: finding keys --------------------------------------------- */

/* The row of (section, key) in a table, case-insensitive, or NULL; *index
   gets its position when index is not NULL. */
const sim_cfg_key_t *sim_cfg_find_key (const sim_cfg_key_t *keys, size_t count, const char *section,
                                       const char *key, size_t *index);

/* The team of a team section ("blue", "yellow.drive"; case-insensitive)
   with *sub pointing at its sub-section ("" for the team section itself),
   or -1 when section is not a team's. */
int sim_cfg_team_section (const char *section, const char **sub);

/* Whether any row of the table is in `section` (case-insensitive). */
bool sim_cfg_section_known (const sim_cfg_key_t *keys, size_t count, const char *section);

/* ---- config.c: validation ----------------------------------------------- */

/* The keys whose values a failed cross-key check of sim_config_validate
   read, the key its message is about first: a row of the main table
   (team -1; section "ball") or of a team's (team 0/1; section "" or
   "dribbler"). A loader looks them up in what the files wrote, so the
   error can name the line the user wrote. */
#define SIM_CFG_BLAME_MAX 4
typedef struct {
    int count;
    struct {
        int team;
        const char *section;
        const char *key;
    } at[SIM_CFG_BLAME_MAX];
} sim_cfg_blame_t;

/* sim_config_validate, with the keys a failed cross-key check read in
   *blame (count 0 for the other failures); blame may be NULL. */
int sim_cfg_validate_blame (const sim_config_t *cfg, sim_cfg_blame_t *blame, char *err, size_t errlen);

/* ---- config_cli.c: one flag as text ------------------------------------ */

/* The flag's help text with "{names}" and "{section.key}" replaced and the
   range and default it asks for appended, written to buf; the defaults
   are read from `defaults`. --help and the man page both show this. */
void sim_cfg_flag_help (const sim_cfg_flag_t *flag, const sim_config_t *defaults, char *buf, size_t size);

/* "--division a|b": the flag and the name of its value, written to buf;
   an enum key's value is named by its canonical choices. */
void sim_cfg_flag_left (const sim_cfg_flag_t *flag, char *buf, size_t size);

/* ---- config_ini.c ------------------------------------------------------- */

/* Where a load wrote each key: one entry per row of the main table and of
   each team's table; line 0 = the key was not written. `file` is borrowed
   from the caller of the load. */
typedef struct {
    const char *file;
    int line;
} sim_cfg_where_t;

typedef struct {
    sim_cfg_where_t *main;    /* sim_cfg_keys_count entries */
    sim_cfg_where_t *team[2]; /* sim_cfg_team_keys_count entries each */
} sim_cfg_written_t;

/* A record with no key written; NULL when out of memory. */
sim_cfg_written_t *sim_cfg_written_new (void);

/* Free it and null the pointer; safe on NULL. */
void sim_cfg_written_destroy (sim_cfg_written_t **self_p);

/* Every written entry of `src` copied into `dst` (a later load wins). */
void sim_cfg_written_merge (sim_cfg_written_t *dst, const sim_cfg_written_t *src);

/* sim_config_load_file, or with realism_only the loader of a realism file
   (keys under [realism] or before any section; others are warnings).
   When `written` is not NULL, every key the file sets is noted in it. */
int sim_cfg_load_file (sim_config_t *cfg, const char *path, bool realism_only, sim_cfg_written_t *written,
                       char *err, size_t errlen);

/* ---- config_flag_rules.c ------------------------------------------------ */

/* The flag `arg` ("--name" or "--name=value") names: a configuration
   flag, or with `launcher` one of the launcher's own; NULL for none. */
const sim_cfg_flag_t *sim_cfg_flag_named (const char *arg, bool launcher);

/* The refusal of an option this command does not take: another
   command's (naming it) or none at all. */
void sim_cfg_unknown_flag (const char *arg, char *err, size_t errlen);

/* --step-ms VALUE into cfg: the [sim] substep key's range and rules,
   said in milliseconds. 0, or -1 with err. */
int sim_cfg_step_ms (sim_config_t *cfg, const sim_cfg_flag_t *flag, const char *value, char *err,
                     size_t errlen);

/* The rules between flags, once all are applied (local_multicast:
   --local-multicast was given). 0, or -1 with err. */
int sim_cfg_flags_agree (const sim_config_t *cfg, bool local_multicast, char *err, size_t errlen);

/* SSL_SIM_LOG over [run] log_level when it is a level; warned of once a
   process when it is not. */
void sim_cfg_env_log_level (sim_config_t *cfg);

#endif
