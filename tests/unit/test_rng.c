/*  test_rng.c - common/base/sim_rng.c: the seeding and draw primitives of
    physics.md §11.2 that every service must agree on. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/base/sim_rng.h"

Test (rng, seeding_lays_out_the_spec_state_words)
{
    sim_rng_t rng;
    sim_rng_seed (&rng, 7, SIM_STREAM_PHYSICS);
    cr_assert_eq (rng.s[0], 7ull);
    cr_assert_eq (rng.s[1], 5ull * 0x9E3779B97F4A7C15ull);
    cr_assert_eq (rng.s[2], ~7ull);
    cr_assert_eq (rng.s[3], 5ull ^ 0xD1B54A32D192ED03ull);
}

Test (rng, xoshiro256pp_first_output)
{
    /* xoshiro256++ output is rotl(s0 + s3, 23) + s0 */
    sim_rng_t rng = { { 1, 2, 3, 4 } };
    uint64_t sum = 1 + 4;
    uint64_t expect = ((sum << 23) | (sum >> 41)) + 1;
    cr_assert_eq (sim_rng_next (&rng), expect);
}

Test (rng, same_seed_same_stream_different_streams_differ)
{
    sim_rng_t a, b, c;
    sim_rng_seed (&a, 42, SIM_STREAM_VISION_NOISE);
    sim_rng_seed (&b, 42, SIM_STREAM_VISION_NOISE);
    sim_rng_seed (&c, 42, SIM_STREAM_VISION_DROPOUT);
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = sim_rng_next (&a);
        cr_assert_eq (x, sim_rng_next (&b));
        differ += x != sim_rng_next (&c);
    }
    cr_assert_gt (differ, 990);
}

Test (rng, keyed_generators_repeat_and_separate)
{
    sim_rng_t a, b, c;
    sim_rng_seed_keyed (&a, 3, SIM_STREAM_VISION_NOISE, 1, 100);
    sim_rng_seed_keyed (&b, 3, SIM_STREAM_VISION_NOISE, 1, 100);
    sim_rng_seed_keyed (&c, 3, SIM_STREAM_VISION_NOISE, 1, 101);
    cr_assert_eq (memcmp (&a, &b, sizeof a), 0);
    cr_assert_neq (sim_rng_next (&a), sim_rng_next (&c));
}

Test (rng, uniform_in_range_and_mean)
{
    sim_rng_t rng;
    sim_rng_seed (&rng, 1, 1);
    double sum = 0;
    for (int i = 0; i < 100000; i++) {
        double u = sim_rng_uniform01 (&rng);
        cr_assert (u >= 0 && u < 1);
        sum += u;
    }
    cr_assert_float_eq (sum / 100000, 0.5, 0.005);
    cr_assert_eq (sim_rng_uniform (&rng, 2.0, 2.0), 2.0);
}

Test (rng, normal_matches_sigma_and_zero_sigma_draws_nothing)
{
    sim_rng_t rng, before;
    sim_rng_seed (&rng, 9, 1);
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        double x = sim_rng_normal (&rng, 0.5);
        sum += x;
        sq += x * x;
    }
    double mean = sum / n, sd = sqrt (sq / n - mean * mean);
    cr_assert_float_eq (mean, 0.0, 0.005);
    cr_assert_float_eq (sd, 0.5, 0.005);
    before = rng;
    cr_assert_eq (sim_rng_normal (&rng, 0.0), 0.0);
    cr_assert_eq (sim_rng_normal (&rng, -1.0), 0.0);
    cr_assert_eq (memcmp (&before, &rng, sizeof rng), 0, "a zero sigma must not consume a draw");
}

Test (rng, normal_pair_is_two_independent_normals)
{
    sim_rng_t rng, before;
    sim_rng_seed (&rng, 9, 1);
    double sum[2] = { 0 }, sq[2] = { 0 }, cross = 0;
    long tail[2] = { 0 };
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        double x[2];
        sim_rng_normal_pair (&rng, 0.5, 2.0, &x[0], &x[1]);
        for (int k = 0; k < 2; k++) {
            sum[k] += x[k];
            sq[k] += x[k] * x[k];
            /* beyond 2 sigma: 4.55 % of a normal's mass */
            tail[k] += fabs (x[k]) > 2 * (k ? 2.0 : 0.5);
        }
        cross += x[0] * x[1];
    }
    const double sigma[2] = { 0.5, 2.0 };
    for (int k = 0; k < 2; k++) {
        double mean = sum[k] / n, sd = sqrt (sq[k] / n - mean * mean);
        /* bands of several standard errors: sigma / sqrt (n) = 0.0022 sigma */
        cr_assert_float_eq (mean, 0.0, 0.01 * sigma[k]);
        cr_assert_float_eq (sd, sigma[k], 0.01 * sigma[k]);
        cr_assert_float_eq ((double) tail[k] / n, 0.0455, 0.003, "side %d", k);
    }
    cr_assert_float_eq (cross / n / (0.5 * 2.0), 0.0, 0.01, "the two sides are uncorrelated");
    /* one side off: it is 0, the other still normal */
    double a, b;
    sim_rng_normal_pair (&rng, 0.0, 1.0, &a, &b);
    cr_assert_eq (a, 0.0);
    cr_assert_neq (b, 0.0);
    before = rng;
    sim_rng_normal_pair (&rng, 0.0, -1.0, &a, &b);
    cr_assert (a == 0.0 && b == 0.0);
    cr_assert_eq (memcmp (&before, &rng, sizeof rng), 0, "two zero sigmas must not consume a draw");
}

Test (rng, chance_edges_draw_nothing)
{
    sim_rng_t rng, before;
    sim_rng_seed (&rng, 4, 3);
    before = rng;
    cr_assert_not (sim_rng_chance (&rng, 0.0));
    cr_assert (sim_rng_chance (&rng, 1.0));
    cr_assert_not (sim_rng_chance (&rng, NAN));
    cr_assert_eq (memcmp (&before, &rng, sizeof rng), 0);
    int hits = 0;
    for (int i = 0; i < 100000; i++)
        hits += sim_rng_chance (&rng, 0.01);
    cr_assert (hits > 880 && hits < 1120, "%d hits for p = 0.01", hits);
}

Test (rng, odds_answer_and_draw_as_chance)
{
    /* the edges, the smallest numbers, and p exactly at, just below and
       just above the next draw's own value, where an off-by-one shows */
    const double fixed[] = { -1, 0, NAN, 5e-324, 1e-300, 3e-5, 0.5, nextafter (1, 0), 1, INFINITY };
    sim_rng_t a, b;
    sim_rng_seed (&a, 21, SIM_STREAM_VISION_DROPOUT);
    b = a;
    for (int i = 0; i < 4000; i++) {
        double p;
        if (i < (int) (sizeof fixed / sizeof fixed[0]))
            p = fixed[i];
        else {
            sim_rng_t peek = a;
            double u = sim_rng_uniform01 (&peek);
            p = i % 3 == 0 ? u : i % 3 == 1 ? nextafter (u, 0) : nextafter (u, 1);
        }
        bool want = sim_rng_chance (&a, p), got = sim_rng_chance_odds (&b, sim_rng_odds (p));
        cr_assert_eq (want, got, "p = %a", p);
        cr_assert_eq (memcmp (&a, &b, sizeof a), 0, "p = %a drew differently", p);
    }
}

Test (rng, shuffle_is_a_permutation_and_deterministic)
{
    sim_rng_t a, b;
    sim_rng_seed (&a, 11, SIM_STREAM_SHUFFLE);
    b = a;
    int x[50], y[50];
    for (int i = 0; i < 50; i++)
        x[i] = y[i] = i;
    sim_rng_shuffle (&a, x, 50, sizeof x[0]);
    sim_rng_shuffle (&b, y, 50, sizeof y[0]);
    cr_assert_eq (memcmp (x, y, sizeof x), 0);
    int seen[50] = { 0 }, moved = 0;
    for (int i = 0; i < 50; i++) {
        seen[x[i]]++;
        moved += x[i] != i;
    }
    for (int i = 0; i < 50; i++)
        cr_assert_eq (seen[i], 1);
    cr_assert_gt (moved, 30);
}

Test (rng, avalanche_matches_splitmix)
{
    /* the splitmix64 finaliser of physics.md §11.2 on 0 */
    uint64_t x = 0x9E3779B97F4A7C15ull;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    cr_assert_eq (sim_rng_avalanche (0), x);
}
