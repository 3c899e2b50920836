/*  test_referee.c - common/logs/sim_referee.c: a game controller's
    Referee packet into plain data, and what it refuses or cuts. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/base/sim_utf8.h"
#include "common/logs/sim_referee.h"
#include "ssl_gc_referee_message.pb-c.h"

typedef struct {
    Referee ref;
    Referee__TeamInfo blue, yellow;
    Referee__Point target;
    uint32_t cards[2];
} s_packet_t;

/* a packet as the game controller sends one during a ball placement */
static void
s_packet (s_packet_t *p)
{
    referee__init (&p->ref);
    referee__team_info__init (&p->blue);
    referee__team_info__init (&p->yellow);
    referee__point__init (&p->target);
    p->blue.name = (char *) "TIGERs";
    p->blue.score = 3;
    p->blue.goalkeeper = 1;
    p->blue.timeouts = 2;
    p->blue.timeout_time = 150000000;
    p->yellow.name = (char *) "ER-Force";
    p->yellow.score = 1;
    p->yellow.red_cards = 1;
    p->yellow.yellow_cards = 3;
    p->cards[0] = 20000000;
    p->cards[1] = 95000000;
    p->yellow.n_yellow_card_times = 2;
    p->yellow.yellow_card_times = p->cards;
    p->target.x = 1500;
    p->target.y = -250;
    p->ref.packet_timestamp = 1700000000000000ull;
    p->ref.stage = REFEREE__STAGE__NORMAL_SECOND_HALF;
    p->ref.has_stage_time_left = true;
    p->ref.stage_time_left = -3000000;
    p->ref.command = REFEREE__COMMAND__BALL_PLACEMENT_YELLOW;
    p->ref.command_counter = 42;
    p->ref.command_timestamp = 1699999999000000ull;
    p->ref.blue = &p->blue;
    p->ref.yellow = &p->yellow;
    p->ref.designated_position = &p->target;
    p->ref.has_next_command = true;
    p->ref.next_command = REFEREE__COMMAND__DIRECT_FREE_YELLOW;
    p->ref.status_message = (char *) "placing";
}

static int
s_decode (const Referee *ref, sim_referee_t *out)
{
    uint8_t buf[2048];
    size_t n = referee__pack (ref, buf);
    return sim_referee_decode (buf, n, out);
}

Test (referee, a_placement_packet_decodes_to_its_game_state)
{
    s_packet_t p;
    s_packet (&p);
    sim_referee_t r;
    cr_assert_eq (s_decode (&p.ref, &r), 0);
    cr_expect_str_eq (sim_referee_stage_name (r.stage), "NORMAL_SECOND_HALF");
    cr_expect_str_eq (sim_referee_command_name (r.command), "BALL_PLACEMENT_YELLOW");
    cr_expect_str_eq (sim_referee_command_name (r.next_command), "DIRECT_FREE_YELLOW");
    cr_expect_eq (r.command_counter, 42u);
    cr_expect (r.has_stage_time && r.stage_time_left_us == -3000000, "an overrun stage has negative time");
    cr_expect_str_eq (r.team[0].name, "TIGERs");
    cr_expect_eq (r.team[0].score, 3u);
    cr_expect_eq (r.team[0].timeout_time_us, 150000000);
    cr_expect_str_eq (r.team[1].name, "ER-Force");
    cr_expect_eq (r.team[1].red_cards, 1u);
    cr_expect_eq (r.team[1].n_yellow_running, 2);
    cr_expect_eq (r.team[1].yellow_left_us[1], 95000000);
    /* millimetres on the wire, metres here; 1500 and -250 are exact floats */
    cr_expect (r.has_placement && r.placement_x == 1.5 && r.placement_y == -0.25);
    cr_expect_str_eq (r.status_message, "placing");
    cr_expect (!r.has_blue_positive);
}

Test (referee, no_placement_outside_a_placement)
{
    s_packet_t p;
    s_packet (&p);
    p.ref.command = REFEREE__COMMAND__STOP;
    p.ref.designated_position = NULL;
    sim_referee_t r;
    cr_assert_eq (s_decode (&p.ref, &r), 0);
    cr_expect (!r.has_placement);
    cr_expect_str_eq (sim_referee_command_name (r.command), "STOP");
}

Test (referee, nothing_from_the_wire_is_trusted)
{
    s_packet_t p;
    s_packet (&p);
    char longname[300];
    memset (longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    p.blue.name = longname;
    p.target.x = NAN;
    p.ref.command = (Referee__Command) 99;
    p.ref.stage = (Referee__Stage) -5;
    uint32_t many[20] = { 0 };
    p.yellow.n_yellow_card_times = 20;
    p.yellow.yellow_card_times = many;
    sim_referee_t r;
    cr_assert_eq (s_decode (&p.ref, &r), 0);
    cr_expect_eq (strlen (r.team[0].name), SIM_REFEREE_NAME_MAX - 1, "a long name is cut to fit");
    cr_expect (!r.has_placement, "a target that is no number is left out");
    cr_expect_str_eq (sim_referee_command_name (r.command), "UNKNOWN");
    cr_expect_str_eq (sim_referee_stage_name (r.stage), "UNKNOWN");
    cr_expect_eq (r.team[1].n_yellow_running, SIM_REFEREE_CARDS);

    /* not a Referee at all: a vision packet's bytes, garbage, nothing */
    const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };
    cr_expect_eq (sim_referee_decode (junk, sizeof junk, &r), -1);
    cr_expect_eq (sim_referee_decode (junk, 0, &r), -1, "a Referee has required fields");
}

/* The page shows names and the message in WebSocket text frames, which a
   browser drops the connection over if one byte is not UTF-8. */
Test (referee, names_reach_the_page_as_whole_characters)
{
    s_packet_t p;
    s_packet (&p);
    /* 62 ASCII bytes and then "\u00fc" (two bytes): the cut falls inside it */
    char cut[80];
    memset (cut, 'a', 62);
    strcpy (cut + 62, "\xc3\xbc-team");
    p.blue.name = cut;
    p.yellow.name = (char *) "bad\xff\xc0\xafname\xed\xa0\x80";
    p.ref.status_message = (char *) "Ballplatzierung \xe2\x9c\x93 ok";
    sim_referee_t r;
    cr_assert_eq (s_decode (&p.ref, &r), 0);
    cr_expect_eq (strlen (r.team[0].name), 62, "the character that does not fit whole is left out");
    cr_expect (sim_utf8_valid (r.team[0].name, strlen (r.team[0].name)));
    cr_expect_str_eq (r.team[1].name,
                      "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdname\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
                      "each stray byte becomes U+FFFD");
    cr_expect_str_eq (r.status_message, "Ballplatzierung \xe2\x9c\x93 ok",
                      "well-formed text is kept as it is");
}

Test (referee, utf8_validity_follows_rfc_3629)
{
    cr_expect (sim_utf8_valid ("", 0));
    cr_expect (sim_utf8_valid ("\xf0\x9f\x98\x80 \xc3\xa9\xe2\x82\xac", 10));
    cr_expect (!sim_utf8_valid ("\xc0\x80", 2), "overlong NUL");
    cr_expect (!sim_utf8_valid ("\xe0\x80\xaf", 3), "overlong slash");
    cr_expect (!sim_utf8_valid ("\xed\xa0\x80", 3), "a surrogate");
    cr_expect (!sim_utf8_valid ("\xf4\x90\x80\x80", 4), "above U+10FFFF");
    cr_expect (!sim_utf8_valid ("\xe2\x82", 2), "cut short");
    char small[4];
    cr_expect_eq (sim_utf8_copy (small, sizeof small, "ab\xc3\xa9"), 2, "no half character at the end");
    cr_expect_str_eq (small, "ab");
}
