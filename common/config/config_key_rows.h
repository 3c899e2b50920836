/*  config_key_rows.h - the macros that lay out one row of a key table
    (config_table.h's sim_cfg_key_t) per line: one per type, the *_LOCAL
    forms that flag a key SIM_CFG_LOCAL, the ranges and the offsets.
    Private to the files that hold the tables: config_keys.c (the global
    keys) and config_keys_team.c (the robot, camera and outage keys).
*/
#ifndef SIM_CONFIG_KEY_ROWS_H_INCLUDED
#define SIM_CONFIG_KEY_ROWS_H_INCLUDED

#include <math.h>
#include <stddef.h>

#include "config_table.h"

/* clang-format off */
#define R_(lo_, hi_, fl_) { lo_, hi_, fl_ }
#define R_ANY  { -INFINITY, INFINITY, 0 }
#define R_GE0  { 0, INFINITY, 0 }
#define R_GT0  { 0, INFINITY, SIM_CFG_MIN_EXCL }
#define R_UNIT { 0, 1, 0 }
#define R_PORT { 1, 65535, 0 }

/* One macro per type; the *_LOCAL form flags the key SIM_CFG_LOCAL. A
   range is a braced list, so it reaches the shared form as its trailing
   arguments (__VA_ARGS__ puts the commas back). */
#define S_FX(fl_, sec_, key_, off_, def_, unit_, help_, ...) \
    { .section = sec_, .key = key_, .type = SIM_CFG_FLOAT, .offset = off_, .def = def_, \
      .range = __VA_ARGS__, .unit = unit_, .help = help_, .flags = fl_ }
#define S_IX(fl_, sec_, key_, off_, def_, help_, ...) \
    { .section = sec_, .key = key_, .type = SIM_CFG_INT, .offset = off_, .def = def_, \
      .range = __VA_ARGS__, .unit = "", .help = help_, .flags = fl_ }
#define S_BX(sec_, key_, off_, def_, help_, fl_) \
    { .section = sec_, .key = key_, .type = SIM_CFG_BOOL, .offset = off_, .def = def_, \
      .range = R_ANY, .unit = "", .help = help_, .flags = fl_ }
#define S_SX(sec_, key_, off_, size_, def_, check_, help_, note_, fl_) \
    { .section = sec_, .key = key_, .type = SIM_CFG_STRING, .offset = off_, .size = size_, \
      .def_text = def_, .range = R_ANY, .check = check_, .unit = "", .help = help_, \
      .unset_note = note_, .flags = fl_ }
#define S_E(sec_, key_, off_, def_, names_, help_) \
    { .section = sec_, .key = key_, .type = SIM_CFG_ENUM, .offset = off_, .def = def_, \
      .range = R_ANY, .names = names_, .unit = "", .help = help_ }

#define S_F(sec_, key_, off_, def_, range_, unit_, help_) \
    S_FX (0, sec_, key_, off_, def_, unit_, help_, range_)
#define S_I(sec_, key_, off_, def_, range_, help_) S_IX (0, sec_, key_, off_, def_, help_, range_)
#define S_B(sec_, key_, off_, def_, help_) S_BX (sec_, key_, off_, def_, help_, 0)
#define S_S(sec_, key_, off_, size_, def_, check_, help_, note_) \
    S_SX (sec_, key_, off_, size_, def_, check_, help_, note_, 0)

#define S_F_LOCAL(sec_, key_, off_, def_, range_, unit_, help_) \
    S_FX (SIM_CFG_LOCAL, sec_, key_, off_, def_, unit_, help_, range_)
#define S_I_LOCAL(sec_, key_, off_, def_, range_, help_) \
    S_IX (SIM_CFG_LOCAL, sec_, key_, off_, def_, help_, range_)
#define S_B_LOCAL(sec_, key_, off_, def_, help_) S_BX (sec_, key_, off_, def_, help_, SIM_CFG_LOCAL)
#define S_S_LOCAL(sec_, key_, off_, size_, def_, check_, help_, note_) \
    S_SX (sec_, key_, off_, size_, def_, check_, help_, note_, SIM_CFG_LOCAL)

#define OFF(f) offsetof (sim_config_t, f)
#define SSIZE(f) sizeof (((sim_config_t *) 0)->f)
#define TOFF(f) offsetof (sim_robot_specs_t, f)

#define S_COUNT(a) (sizeof (a) / sizeof (a)[0])
/* clang-format on */

#endif
