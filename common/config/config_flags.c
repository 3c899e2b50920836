/*  config_flags.c - the command line as data: every sub-command of ssl-sim
    and every flag they take (spec/config.md §4), one row each, in the
    order `ssl-sim --help` lists them. config_cli.c parses argv and writes
    the help text from these rows. A flag that sets a key names it, so the
    help shows the key's default from config_keys.c instead of restating
    it; "{names}" in a help text stands for the flag's preset names and
    "{section.key}" for that key's default.

    Every sub-command takes every configuration flag; --single-process is
    the launcher's own (run only) and is not a configuration flag.
*/
#include "config_table.h"

#include "config.h"

/* The tables and their macros are laid out by hand, one row per line. */
/* clang-format off */
#define S_COUNT(a) (sizeof (a) / sizeof (a)[0])

const sim_cfg_command_t sim_cfg_commands[] = {
    { "run [--single-process] [OPTIONS]", "start the simulator (five services)" },
    { "service NAME [OPTIONS]",
      "run one service in the foreground (physics, vision, gateway, legacy-grsim, viewer)" },
    { "presets [OPTIONS]", "print the default configuration" },
    { "status [OPTIONS]", "the running services: pid, uptime, CPU, memory and rates (exit 0 all up, 1 some, "
                          "3 none, 4 the bus refused this tool's certificate)" },
    { "restart NAME [OPTIONS]", "restart one running service (its supervisor starts it again; single-process: "
                                "gateway, legacy-grsim and viewer only)" },
    { "keygen FILE", "write a new CURVE certificate for the tcp bus: FILE and FILE_secret (0600)" },
    { "record FILE [OPTIONS]",
      "write what arrives on the vision, truth and referee addresses to a league log file (.gz: "
      "compressed) until Ctrl-C or --duration" },
    { "play FILE [--speed X] [--loop] [OPTIONS]",
      "send a league log's vision, tracker and referee messages to their addresses at the recorded pace; the viewer's page shows it with a timeline (--no-viewer: none)" },
    { "replay FILE [--mode fast|realtime] [--until SECS] [--record OUT]",
      "run the world again from a journal (--journal): the same inputs at the same substeps, "
      "the same vision bytes; the viewer's page seeks in it (--no-viewer: none, flat out)" },
    { "stats FILE | --listen ADDR --seconds N [--fit]",
      "measure a vision stream (a league log, plain or .gz, or a live address): frame rate, "
      "jitter, latency, noise, dropouts, camera disagreement; --fit prints a configuration: the "
      "realism, ball model and each team's limits that reproduce it" },
    { "--help | --version", "" },
    { "--man | --bash-completion", "print the manual page (roff) or a bash completion script" },
};
const size_t sim_cfg_commands_count = S_COUNT (sim_cfg_commands);

const sim_cfg_flag_t sim_cfg_flags[] = {
    { .name = "--config", .arg = "FILE", .kind = SIM_CFG_FLAG_CONFIG,
      .help = "INI configuration (see `ssl-sim presets`)" },
    { .name = "--division", .arg = "", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "division", .help = "field size", .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--robots", .arg = "N", .kind = SIM_CFG_FLAG_KEY, .section = "sim",
      .key = "initial_robots_per_team", .help = "robots per team at start",
      .flags = SIM_CFG_SHOW_RANGE | SIM_CFG_SHOW_DEFAULT },
    { .name = "--mode", .arg = "", .kind = SIM_CFG_FLAG_KEY, .section = "run", .key = "mode",
      .help = "stepping mode", .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--speed", .arg = "X", .kind = SIM_CFG_FLAG_KEY, .section = "run", .key = "speed",
      .help = "real-time factor, 0 starts paused (play: times the recorded pace, above 0)",
      .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--step-ms", .arg = "MS", .kind = SIM_CFG_FLAG_STEP_MS, .section = "sim",
      .key = "substep", .scale = 1000, .help = "physics substep in milliseconds",
      .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--realism", .arg = "NAME|FILE", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "realism", .choices = sim_config_realism_names,
      .help = "{names}, or an INI file; replaces [realism]" },
    { .name = "--ball-preset", .arg = "NAME", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "ball_preset", .choices = sim_config_ball_names,
      .help = "{names}; replaces [ball]" },
    { .name = "--robot-limits", .arg = "NAME", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "robot_limits", .choices = sim_config_limits_names,
      .help = "{names}; replaces [blue.limits] and [yellow.limits] (team sets: the kick caps too)" },
    { .name = "--blue-robot-limits", .arg = "NAME", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "blue_robot_limits", .choices = sim_config_limits_names,
      .help = "{names}; replaces [blue.limits] alone (team sets: blue's kick caps too), after --robot-limits" },
    { .name = "--yellow-robot-limits", .arg = "NAME", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "yellow_robot_limits", .choices = sim_config_limits_names,
      .help = "{names}; replaces [yellow.limits] alone (team sets: yellow's kick caps too), after --robot-limits" },
    { .name = "--cameras", .arg = "1|2|4", .kind = SIM_CFG_FLAG_CAMERAS, .section = "vision",
      .key = "default_camera_count",
      .help = "auto-placed cameras; replaces every [camera N]" },
    { .name = "--seed", .arg = "N|random", .kind = SIM_CFG_FLAG_SEED, .section = "sim",
      .key = "seed", .help = "seed of every random stream", .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--vision-addr", .arg = "H:P", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "vision_addr", .help = "vision destination", .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--localhost", .kind = SIM_CFG_FLAG_KEY, .section = "run", .key = "localhost",
      .fixed = "true", .help = "vision and truth stay on this machine (unicast to 127.0.0.1), every protocol port on 127.0.0.1" },
    { .name = "--local-multicast", .kind = SIM_CFG_FLAG_KEY, .section = "network",
      .key = "local_vision", .fixed = "multicast",
      .help = "with --localhost: vision and truth to their group through the loopback interface, for several local listeners" },
    { .name = "--truth", .kind = SIM_CFG_FLAG_KEY, .section = "run", .key = "truth",
      .fixed = "true",
      .help = "publish ground truth (TrackerWrapperPacket, port {network.truth_port})" },
    { .name = "--no-legacy-grsim", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "legacy_grsim", .fixed = "false",
      .help = "do not serve grSim packets on {network.legacy_port}" },
    { .name = "--viewer-addr", .arg = "H:P", .kind = SIM_CFG_FLAG_KEY, .section = "viewer",
      .key = "addr", .help = "browser viewer and /metrics", .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--no-viewer", .kind = SIM_CFG_FLAG_KEY, .section = "viewer", .key = "enabled",
      .fixed = "false", .help = "do not start the browser viewer" },
    { .name = "--port-offset", .arg = "N", .kind = SIM_CFG_FLAG_KEY, .section = "network",
      .key = "port_offset",
      .help = "add N to every port, given or default: UDP, referee, viewer (several simulators on a host)" },
    { .name = "--duration", .arg = "SECS", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "duration", .help = "stop after SECS of wall time",
      .flags = SIM_CFG_POSITIVE },
    { .name = "--log-level", .arg = "LEVEL", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "log_level", .help = "error, warn, info, debug, trace; SSL_SIM_LOG wins",
      .flags = SIM_CFG_SHOW_DEFAULT },
    { .name = "--record", .arg = "FILE", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "record", .help = "run, replay: write every vision packet as released (and truth with "
      "--truth, and the referee multicast) to a league log file" },
    { .name = "--journal", .arg = "FILE", .kind = SIM_CFG_FLAG_KEY, .section = "run",
      .key = "journal", .help = "run: journal every input physics applies, with its substep, for "
      "`ssl-sim replay`" },
    { .name = "--single-process", .kind = SIM_CFG_FLAG_LAUNCHER,
      .help = "run: the five services as threads of one process" },
    { .name = "--loop", .kind = SIM_CFG_FLAG_LAUNCHER,
      .help = "play: start again at the end of the log" },
    { .name = "--until", .arg = "SECS", .kind = SIM_CFG_FLAG_LAUNCHER,
      .help = "replay: stop at this sim time" },
    { .name = "--listen", .arg = "ADDR", .kind = SIM_CFG_FLAG_LAUNCHER,
      .help = "stats: measure what arrives on this HOST:PORT (multicast or unicast)" },
    { .name = "--seconds", .arg = "N", .kind = SIM_CFG_FLAG_LAUNCHER,
      .help = "stats: listen this long" },
    { .name = "--fit", .kind = SIM_CFG_FLAG_LAUNCHER,
      .help = "stats: print the [realism] keys that reproduce the measured statistics" },
};
const size_t sim_cfg_flags_count = S_COUNT (sim_cfg_flags);
/* clang-format on */
