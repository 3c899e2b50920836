/*  test_sim_player.c - common/logs/sim_player.c: a league log as a
    timeline: its index and the referee's marks, the pace at a speed,
    pause, seek (and what it hands over to show the state there), step,
    and a clock that goes back or jumps forward (one frame, said once),
    and --loop's next pass (a frame after the last began at least). No
    socket: nothing goes on the wire. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/logs/sim_logfile.h"
#include "common/logs/sim_player.h"
#include "common/logs/sim_referee.h"
#include "tests/support/sim_logtest.h"
#include "ssl_gc_referee_message.pb-c.h"

#define MS 1000000LL

typedef struct {
    char path[64];
} s_log_t;

/* A referee packet with command counter `counter` and blue's `score`. */
static size_t
s_referee (uint8_t *buf, uint32_t counter, int command, uint32_t score)
{
    Referee ref = REFEREE__INIT;
    Referee__TeamInfo blue = REFEREE__TEAM_INFO__INIT, yellow = REFEREE__TEAM_INFO__INIT;
    blue.name = (char *) "B";
    blue.score = score;
    yellow.name = (char *) "Y";
    ref.blue = &blue;
    ref.yellow = &yellow;
    ref.stage = REFEREE__STAGE__NORMAL_FIRST_HALF;
    ref.command = (Referee__Command) command;
    ref.command_counter = counter;
    return referee__pack (&ref, buf);
}

/* A writer of a new log at a name of its own in l->path. */
static sim_logfile_writer_t *
s_writer (s_log_t *l, bool index)
{
    snprintf (l->path, sizeof l->path, "/tmp/ssl-sim-player-XXXXXX");
    int fd = mkstemp (l->path);
    cr_assert_geq (fd, 0);
    close (fd);
    unlink (l->path);
    char err[256];
    sim_logfile_writer_t *w = sim_logfile_writer_new (l->path, index, err, sizeof err);
    cr_assert_not_null (w, "%s", err);
    return w;
}

/* 2 s of log from Unix 1000 s: a vision record every 10 ms (its bytes: its
   number), the referee every 100 ms: STOP (counter 1) to 0.5 s, then
   FORCE_START (2); at 1.2 s a goal for blue (counter 3, score 1); one
   record of another type at 0.3 s; at 1.5 s the clock goes back 40 s
   (a second recording joined on). */
static void
s_write_as (s_log_t *l, bool index)
{
    sim_logfile_writer_t *w = s_writer (l, index);
    int64_t base = 1000000 * MS;
    for (int i = 0; i <= 200; i++) {
        int64_t t = base + i * 10 * MS - (i >= 150 ? 40000 * MS : 0);
        uint8_t v[4] = { (uint8_t) i, (uint8_t) (i >> 8), 0, 0 };
        sim_logfile_write (w, t, SIM_LOGFILE_VISION, v, sizeof v);
        if (i % 10 == 5) {
            uint8_t buf[256];
            size_t n = i < 50  ? s_referee (buf, 1, REFEREE__COMMAND__STOP, 0)
                     : i < 120 ? s_referee (buf, 2, REFEREE__COMMAND__FORCE_START, 0)
                               : s_referee (buf, 3, REFEREE__COMMAND__STOP, 1);
            sim_logfile_write (w, t, SIM_LOGFILE_REFEREE, buf, n);
        }
        if (i == 30)
            sim_logfile_write (w, t, SIM_LOGFILE_BLANK, "", 0);
    }
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
}

static void
s_write (s_log_t *l)
{
    s_write_as (l, false);
}

typedef struct {
    int vision, referee, primed;
    int last_vision; /* its number */
    sim_referee_t ref;
} s_seen_t;

static void
s_on (void *arg, const sim_logfile_msg_t *m, bool primed)
{
    s_seen_t *s = arg;
    s->primed += primed;
    if (m->type == SIM_LOGFILE_VISION) {
        s->vision++;
        s->last_vision = m->data[0] | m->data[1] << 8;
    } else if (m->type == SIM_LOGFILE_REFEREE) {
        s->referee++;
        cr_assert_eq (sim_referee_decode (m->data, m->len, &s->ref), 0);
    }
}

static sim_player_t *
s_open (s_log_t *l)
{
    s_write (l);
    char err[256];
    sim_player_t *p = sim_player_new (l->path, err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    return p;
}

static void
s_close (sim_player_t **p, s_log_t *l)
{
    sim_player_destroy (p);
    unlink (l->path);
}

Test (sim_player, indexes_the_log_on_a_clock_that_only_goes_forward)
{
    s_log_t l;
    sim_player_t *p = s_open (&l);
    /* 201 vision and 20 referee records; the blank one is skipped */
    cr_expect_eq (sim_player_records (p), 221);
    /* 200 gaps of 10 ms, but the one where the clock went back counts 0 */
    cr_expect_float_eq (sim_player_duration (p), 1.99, 1e-9);
    cr_expect (sim_player_paused (p), "a player starts paused");
    cr_expect_null (sim_player_damage (p));
    s_close (&p, &l);
}

Test (sim_player, marks_each_new_command_and_each_goal)
{
    s_log_t l;
    sim_player_t *p = s_open (&l);
    size_t n;
    const sim_player_mark_t *m = sim_player_marks (p, &n);
    cr_assert_eq (n, 4, "three commands and a goal");
    cr_expect (m[0].kind == SIM_PLAYER_MARK_COMMAND && m[0].command == REFEREE__COMMAND__STOP);
    cr_expect_float_eq (m[0].t, 0.05, 1e-9);
    cr_expect (m[1].kind == SIM_PLAYER_MARK_COMMAND && m[1].command == REFEREE__COMMAND__FORCE_START);
    cr_expect_float_eq (m[1].t, 0.55, 1e-9);
    cr_expect (m[2].kind == SIM_PLAYER_MARK_COMMAND && m[3].kind == SIM_PLAYER_MARK_GOAL);
    cr_expect_float_eq (m[3].t, 1.25, 1e-9);
    cr_expect_float_eq (sim_player_next_mark (p, SIM_PLAYER_MARK_COMMAND), 0.05, 1e-9);
    cr_expect_float_eq (sim_player_next_mark (p, SIM_PLAYER_MARK_GOAL), 1.25, 1e-9);
    cr_assert_eq (sim_player_seek (p, 1.3, 0, NULL, NULL), 0);
    cr_expect_lt (sim_player_next_mark (p, SIM_PLAYER_MARK_GOAL), 0, "no goal after 1.3 s");
    s_close (&p, &l);
}

Test (sim_player, keeps_the_recorded_pace_times_the_speed)
{
    s_log_t l;
    sim_player_t *p = s_open (&l);
    s_seen_t s = { 0 };
    int64_t now = 5000 * MS;
    cr_expect_eq (sim_player_due (p), INT64_MAX, "paused: nothing is due");
    sim_player_set_speed (p, 2.0, now);
    sim_player_pause (p, false, now);
    cr_expect_eq (sim_player_due (p), now);
    cr_expect_eq (sim_player_emit (p, now, 100, s_on, &s), 1);
    /* the next is 10 ms of log later: 5 ms at 2x */
    cr_expect_eq (sim_player_due (p), now + 5 * MS);
    cr_expect_eq (sim_player_emit (p, now + 5 * MS - 1, 100, s_on, &s), 0, "never before its time");
    /* 100 ms of wall at 2x: the records of the log's first 200 ms */
    cr_expect_gt (sim_player_emit (p, now + 100 * MS, 1000, s_on, &s), 0);
    cr_expect_eq (s.last_vision, 20);
    cr_expect_float_eq (sim_player_time (p), 0.2, 1e-9);
    /* paused, then on from where it was, whenever that is */
    sim_player_pause (p, true, now + 100 * MS);
    cr_expect_eq (sim_player_due (p), INT64_MAX);
    sim_player_pause (p, false, now + 900 * MS);
    cr_expect_eq (sim_player_due (p), now + 900 * MS + 5 * MS);
    /* to the end, across the clock that went back */
    cr_expect_gt (sim_player_emit (p, now + 10000 * MS, 1000, s_on, &s), 0);
    cr_expect (sim_player_ended (p));
    cr_expect_eq (s.vision, 201);
    cr_expect_eq (s.primed, 0);
    s_close (&p, &l);
}

Test (sim_player, a_seek_hands_over_the_state_at_its_target)
{
    s_log_t l;
    sim_player_t *p = s_open (&l);
    s_seen_t s = { 0 };
    cr_assert_eq (sim_player_seek (p, 0.8, 0, s_on, &s), 0);
    cr_expect_float_eq (sim_player_time (p), 0.8, 1e-9);
    /* the referee's last word before 0.8 s (0.75 s: FORCE_START) and the
       vision of 0.7..0.8 s, none of it played */
    cr_expect_eq (s.referee, 1);
    cr_expect_eq (s.ref.command, REFEREE__COMMAND__FORCE_START);
    cr_expect_eq (s.vision, 10);
    cr_expect_eq (s.last_vision, 79);
    cr_expect_eq (s.primed, 11);
    cr_expect_eq (sim_player_sent (p, SIM_LOGFILE_VISION), 0);
    /* the next record played is the one at 0.8 s, backwards too */
    s_seen_t after = { 0 };
    cr_assert_eq (sim_player_step (p, 0, s_on, &after), 1);
    cr_expect_eq (after.last_vision, 80);
    cr_assert_eq (sim_player_seek (p, 0.1, 0, NULL, NULL), 0);
    cr_assert_eq (sim_player_step (p, 0, s_on, &after), 1);
    cr_expect_eq (after.last_vision, 10);
    cr_expect (sim_player_paused (p), "a step leaves it paused");
    /* beyond either end: clamped */
    cr_assert_eq (sim_player_seek (p, -5, 0, NULL, NULL), 0);
    cr_expect_float_eq (sim_player_time (p), 0, 1e-9);
    cr_assert_eq (sim_player_seek (p, 99, 0, NULL, NULL), 0);
    cr_expect_float_eq (sim_player_time (p), 1.99, 1e-9);
    /* far beyond, where the time in ns overflows an int64_t, and NaN */
    cr_assert_eq (sim_player_seek (p, 1e300, 0, NULL, NULL), 0);
    cr_expect_float_eq (sim_player_time (p), 1.99, 1e-9);
    cr_assert_eq (sim_player_seek (p, NAN, 0, NULL, NULL), 0);
    cr_expect_float_eq (sim_player_time (p), 0, 1e-9);
    s_close (&p, &l);
}

Test (sim_player, a_step_plays_up_to_the_next_vision_record)
{
    s_log_t l;
    sim_player_t *p = s_open (&l);
    s_seen_t s = { 0 };
    cr_assert_eq (sim_player_seek (p, 0.045, 0, NULL, NULL), 0);
    /* 0.05 s: vision 5 and then the referee at the same time; a step ends
       at the vision record */
    cr_expect_eq (sim_player_step (p, 0, s_on, &s), 1);
    cr_expect_eq (s.last_vision, 5);
    cr_expect_eq (sim_player_step (p, 0, s_on, &s), 2, "the referee record, then vision 6");
    cr_expect_eq (s.referee, 1);
    cr_expect_eq (s.last_vision, 6);
    s_close (&p, &l);
}

Test (sim_player, refuses_what_is_not_a_log)
{
    char err[256] = "";
    cr_expect_null (sim_player_new ("/nonexistent/game.log", err, sizeof err));
    cr_expect_neq (err[0], '\0');
}

/* The timeline and marks of a player, to compare two. */
static void
s_expect_same (sim_player_t *a, sim_player_t *b)
{
    cr_expect_eq (sim_player_records (a), sim_player_records (b));
    cr_expect_float_eq (sim_player_duration (a), sim_player_duration (b), 1e-12);
    size_t na, nb;
    const sim_player_mark_t *ma = sim_player_marks (a, &na), *mb = sim_player_marks (b, &nb);
    cr_assert_eq (na, nb);
    for (size_t i = 0; i < na; i++)
        cr_expect (ma[i].t == mb[i].t && ma[i].kind == mb[i].kind && ma[i].command == mb[i].command
                       && ma[i].blue == mb[i].blue && ma[i].yellow == mb[i].yellow,
                   "mark %zu", i);
    s_seen_t sa = { 0 }, sb = { 0 };
    cr_assert_eq (sim_player_seek (a, 1.3, 0, s_on, &sa), 0);
    cr_assert_eq (sim_player_seek (b, 1.3, 0, s_on, &sb), 0);
    cr_expect (sa.vision == sb.vision && sa.last_vision == sb.last_vision && sa.referee == sb.referee);
}

Test (sim_player, uses_the_league_index_at_the_end_of_a_plain_log_for_the_same_timeline)
{
    s_log_t plain, indexed;
    s_write_as (&plain, false);
    s_write_as (&indexed, true);
    char err[256];
    sim_player_t *a = sim_player_new (plain.path, err, sizeof err);
    sim_player_t *b = sim_player_new (indexed.path, err, sizeof err);
    cr_assert (a && b, "%s", err);
    cr_expect (!sim_player_indexed (a), "a log without an index is read record by record");
    cr_expect (sim_player_indexed (b), "the index at the end of the log is used");
    s_expect_same (a, b);
    size_t n;
    sim_player_marks (b, &n);
    cr_expect_eq (n, 4, "the marks come from the referee records all the same");
    sim_player_destroy (&b);
    unlink (indexed.path);
    s_close (&a, &plain);
}

Test (sim_player, falls_back_to_one_pass_when_the_index_does_not_hold)
{
    s_log_t plain, bad;
    s_write_as (&plain, false);
    s_write_as (&bad, true);
    /* the first record's offset in the index, one byte off */
    cr_assert_eq (sim_logtest_nudge_offset (bad.path, 0), 0);
    char err[256];
    sim_player_t *a = sim_player_new (plain.path, err, sizeof err);
    sim_player_t *p = sim_player_new (bad.path, err, sizeof err);
    cr_assert (a && p, "%s", err);
    cr_expect (!sim_player_indexed (p), "an index that does not match its records is not used");
    cr_expect (strstr (sim_player_index_trouble (p), "offset 0"), "%s", sim_player_index_trouble (p));
    cr_expect_str_empty (sim_player_index_trouble (a), "a log without an index has no trouble with it");
    cr_expect_null (sim_player_damage (p), "the log itself is whole");
    s_expect_same (a, p);
    sim_player_destroy (&p);
    unlink (bad.path);
    s_close (&a, &plain);
}

/* A log read record by record (its index did not hold) counts the blank
   record among the skipped ones, but not the log's own index, and says
   "message" for one. */
Test (sim_player, the_summary_does_not_count_the_logs_index_as_skipped, .init = cr_redirect_stderr)
{
    s_log_t bad;
    s_write_as (&bad, true);
    cr_assert_eq (sim_logtest_nudge_offset (bad.path, 0), 0);
    char err[256];
    sim_player_t *p = sim_player_new (bad.path, err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    cr_assert (!sim_player_indexed (p));
    sim_player_report (p, false);
    fflush (stderr);
    char text[1024];
    size_t len = fread (text, 1, sizeof text - 1, cr_get_redirected_stderr ());
    text[len] = '\0';
    cr_expect (strstr (text, "skipped 1 message of other types (blank, unknown, vision 2010)\n"), "%s", text);
    sim_player_destroy (&p);
    unlink (bad.path);
}

/* ---- the log's clock jumps forward; --loop of a log of no length ------- */

Test (sim_player, the_timeline_keeps_a_step_of_up_to_5_s_and_not_a_longer_jump)
{
    uint64_t jump = 1;
    cr_expect_eq (sim_player_advance (0, 10 * MS, &jump), 10 * MS);
    cr_expect_eq (jump, 0);
    cr_expect_eq (sim_player_advance (7, 7 + SIM_PLAYER_GAP_MAX_NS, &jump), SIM_PLAYER_GAP_MAX_NS,
                  "5 s is still a step of the recording");
    cr_expect_eq (jump, 0);
    cr_expect_eq (sim_player_advance (7, 8 + SIM_PLAYER_GAP_MAX_NS, &jump), SIM_PLAYER_FRAME_NS,
                  "a longer jump counts one frame");
    cr_expect_eq (jump, (uint64_t) SIM_PLAYER_GAP_MAX_NS + 1);
    cr_expect_eq (sim_player_advance (10 * MS, 3 * MS, &jump), 0, "a clock that goes back: no time");
    cr_expect_eq (jump, 0);
    /* any two times the file holds, without overflow */
    cr_expect_eq (sim_player_advance (INT64_MIN, INT64_MAX, &jump), SIM_PLAYER_FRAME_NS);
    cr_expect_eq (jump, UINT64_MAX);
    cr_expect_eq (sim_player_advance (INT64_MAX, INT64_MIN, NULL), 0);
    cr_expect_eq (sim_player_advance (-5 * MS, 5 * MS, NULL), 10 * MS);
    /* the clock over records: the first at 0 */
    sim_player_clock_t c = { 0 };
    cr_expect_eq (sim_player_clock_next (&c, 1000 * MS, NULL), 0);
    cr_expect_eq (sim_player_clock_next (&c, 1010 * MS, NULL), 10 * MS);
    cr_expect_eq (sim_player_clock_next (&c, 0, NULL), 10 * MS);
    cr_expect_eq (sim_player_clock_next (&c, 9000 * MS, &jump), 10 * MS + SIM_PLAYER_FRAME_NS);
    cr_expect_eq (jump, 9000 * MS, "from the time before, 0");
}

#define S_JUMP_BASE (1700000000000LL * MS) /* Unix ns: a log of 2023 */

/* Ten vision records `step_ns` apart from S_JUMP_BASE, record `bad` (from
   0; -1: none) at log time `bad_ns` instead. */
static void
s_write_jump (s_log_t *l, int64_t step_ns, int bad, int64_t bad_ns)
{
    sim_logfile_writer_t *w = s_writer (l, false);
    for (int i = 0; i < 10; i++) {
        uint8_t v[4] = { (uint8_t) i, 0, 0, 0 };
        sim_logfile_write (w, i == bad ? bad_ns : S_JUMP_BASE + i * step_ns, SIM_LOGFILE_VISION, v, sizeof v);
    }
    cr_assert_eq (sim_logfile_writer_destroy (&w), 0);
}

/* The byte of record i of s_write_jump's log: the header, then 20 bytes a record. */
#define S_JUMP_BYTE(i) (16 + 20 * (i))

Test (sim_player, a_time_of_0_is_not_waited_out_but_played_a_frame_later)
{
    s_log_t l;
    s_write_jump (&l, 10 * MS, 2, 0); /* the user's repro: the third record's time zeroed */
    char err[256], want[128];
    sim_player_t *p = sim_player_new (l.path, err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    /* 0 -> 10 ms, back to 1970 (no time), 54 years forward (one frame),
       then six steps of 10 ms */
    cr_expect_eq (llround (sim_player_duration (p) * 1e9), 10 * MS + SIM_PLAYER_FRAME_NS + 60 * MS);
    snprintf (want, sizeof want, "jumps 19676 days forward at record 4 (byte %d): not waited out",
              S_JUMP_BYTE (3));
    cr_expect (strstr (sim_player_jumps (p), want), "%s", sim_player_jumps (p));
    cr_expect (!strstr (sim_player_jumps (p), "more jumps"), "%s", sim_player_jumps (p));
    /* the pace at 2x: the record after the jump half a frame after the one before */
    int64_t now = 5000 * MS;
    sim_player_set_speed (p, 2.0, now);
    sim_player_pause (p, false, now);
    cr_expect_eq (sim_player_emit (p, now + 5 * MS, 100, NULL, NULL), 3);
    cr_expect_eq (sim_player_due (p), now + 5 * MS + SIM_PLAYER_FRAME_NS / 2);
    s_close (&p, &l);
}

Test (sim_player, a_time_far_ahead_and_a_recording_continued_later_are_not_waited_out)
{
    s_log_t l;
    /* one record a year ahead: forward a year (one frame), back (no time) */
    s_write_jump (&l, 10 * MS, 2, S_JUMP_BASE + 365LL * 86400000 * MS);
    char err[256], want[128];
    sim_player_t *p = sim_player_new (l.path, err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    cr_expect_eq (llround (sim_player_duration (p) * 1e9), 10 * MS + SIM_PLAYER_FRAME_NS + 60 * MS);
    snprintf (want, sizeof want, "jumps 365 days forward at record 3 (byte %d)", S_JUMP_BYTE (2));
    cr_expect (strstr (sim_player_jumps (p), want), "%s", sim_player_jumps (p));
    /* the page's seek bar goes by the same timeline */
    cr_assert_eq (sim_player_seek (p, (10 * MS + SIM_PLAYER_FRAME_NS) / 1e9, 0, NULL, NULL), 0);
    s_seen_t s = { 0 };
    cr_assert_eq (sim_player_step (p, 0, s_on, &s), 1);
    cr_expect_eq (s.last_vision, 2, "the record after the jump is where the timeline says");
    s_close (&p, &l);
    /* the last records 3 hours later (`ssl-sim record` continued the file) */
    s_write_jump (&l, 10 * MS, 9, S_JUMP_BASE + 3 * 3600000 * MS);
    p = sim_player_new (l.path, err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    cr_expect_eq (llround (sim_player_duration (p) * 1e9), 80 * MS + SIM_PLAYER_FRAME_NS);
    snprintf (want, sizeof want, "jumps 3.0 h forward at record 10 (byte %d)", S_JUMP_BYTE (9));
    cr_expect (strstr (sim_player_jumps (p), want), "%s", sim_player_jumps (p));
    s_close (&p, &l); /* a log whose clock only goes back has no jump to say */
    p = s_open (&l);
    cr_expect_str_empty (sim_player_jumps (p), "the 40 s back is no jump forward");
    s_close (&p, &l);
}

Test (sim_player, a_loop_of_a_log_of_no_length_goes_round_once_a_frame)
{
    s_log_t l;
    s_write_jump (&l, 0, -1, 0); /* ten records, all at one time: 0 s */
    char err[256];
    sim_player_t *p = sim_player_new (l.path, err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    cr_assert_eq (sim_player_records (p), 10);
    int64_t now = 5000 * MS;
    sim_player_pause (p, false, now);
    cr_assert_eq (sim_player_emit (p, now, 100, NULL, NULL), 10);
    cr_assert (sim_player_ended (p));
    sim_player_rewind (p, now);
    cr_expect_eq (sim_player_due (p), now + SIM_PLAYER_FRAME_NS, "a frame after the pass began");
    cr_expect_eq (sim_player_emit (p, now + SIM_PLAYER_FRAME_NS - 1, 100, NULL, NULL), 0);
    cr_expect_eq (sim_player_emit (p, now + SIM_PLAYER_FRAME_NS, 100, NULL, NULL), 10);
    /* a late turn of the caller's loop: the next pass at once, no catching up */
    int64_t late = now + 5 * SIM_PLAYER_FRAME_NS;
    sim_player_rewind (p, late);
    cr_expect_eq (sim_player_due (p), late);
    cr_expect_eq (sim_player_emit (p, late, 100, NULL, NULL), 10);
    /* at 2x, half a frame */
    sim_player_set_speed (p, 2.0, late);
    sim_player_rewind (p, late);
    cr_expect_eq (sim_player_due (p), late + SIM_PLAYER_FRAME_NS / 2);
    /* paused stays paused */
    sim_player_pause (p, true, late);
    sim_player_rewind (p, late);
    cr_expect_eq (sim_player_due (p), INT64_MAX);
    cr_expect (!sim_player_ended (p));
    s_close (&p, &l);
    /* a log longer than a frame: its start follows its end at once, as always */
    p = s_open (&l);
    sim_player_pause (p, false, now);
    cr_assert_gt (sim_player_emit (p, now + 10000 * MS, 1000, NULL, NULL), 0);
    cr_assert (sim_player_ended (p));
    sim_player_rewind (p, now + 10000 * MS);
    cr_expect_eq (sim_player_due (p), now + 10000 * MS, "the start follows the end at once");
    cr_expect_float_eq (sim_player_time (p), 0, 1e-12);
    s_close (&p, &l);
}
