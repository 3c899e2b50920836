"""Tests of examples/learn_go_to_ball.py (docs/learning.md): a short run of
the example, as a user starts it, learns go_to_ball from vision well enough
that its success rate over fresh scenes beats a random policy's by more
than chance explains (Fisher's exact test, one-sided, p < 1e-3, computed
here from the counts the example prints). The same run with the learning
rate 0 must not pass that check, so the check cannot pass without
learning. Every seed is fixed, so each run's counts are always the same.
"""
import math
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "learn_go_to_ball.py")

#: the short run docs/learning.md shows: 20 generations of 64 worlds,
#: 4 s episodes, 64 evaluation scenes per policy. 10 generations passed
#: for seeds 1-7 until issue 25 recalibrated the realistic vision, then
#: seed 1 learned nothing in 10 (0/64): too few to hold whatever the
#: scene draws. 20 gave 46-54 of 64 for seeds 1-5 after it (random 0),
#: where the check passes from about 10.
SHORT = ["--generations", "20", "--max-steps", "250", "--episodes", "64", "--seed", "1"]
#: chance explains a difference this unlikely (or likelier) under no difference
ALPHA = 1e-3


def fisher_greater(a, n_a, b, n_b):
    """One-sided p-value of Fisher's exact test that group a's success
    rate (a of n_a) is above group b's (b of n_b): the chance, with the
    a + b successes dealt at random among the n_a + n_b trials, that group
    a gets a or more of them."""
    k, n = a + b, n_a + n_b
    total = math.comb(n, k)
    return sum(math.comb(n_a, i) * math.comb(n_b, k - i) for i in range(a, min(k, n_a) + 1)) / total


def run_example(extra):
    """(trained successes, episodes, random successes, episodes) printed
    by the example run with SHORT + extra."""
    out = subprocess.run([sys.executable, EXAMPLE] + SHORT + extra, check=True, capture_output=True, text=True,
                         env=dict(os.environ), timeout=600).stdout
    m = re.search(r"^summary: trained (\d+)/(\d+) random (\d+)/(\d+)$", out, re.M)
    if not m:
        raise AssertionError("no summary line in the example's output:\n" + out)
    return tuple(int(v) for v in m.groups())


class FisherTest(unittest.TestCase):
    def test_p_values_of_known_tables(self):
        # all 10 successes in group a of two groups of 10: 1 / C(20, 10)
        self.assertAlmostEqual(fisher_greater(10, 10, 0, 10), 1 / 184756)
        self.assertEqual(fisher_greater(0, 64, 0, 64), 1.0)
        self.assertEqual(fisher_greater(3, 10, 3, 10), sum(
            math.comb(10, i) * math.comb(10, 6 - i) for i in range(3, 7)) / math.comb(20, 6))


class LearnExampleTest(unittest.TestCase):
    def test_trained_policy_beats_random_beyond_chance(self):
        with open(os.path.join(ROOT, "docs", "learning.md"), encoding="utf-8") as f:
            self.assertIn("examples/learn_go_to_ball.py " + " ".join(SHORT), f.read(),
                          "docs/learning.md shows the command this test runs")
        ours, n_ours, theirs, n_theirs = run_example([])
        p = fisher_greater(ours, n_ours, theirs, n_theirs)
        self.assertLess(p, ALPHA, "trained %d/%d, random %d/%d: p = %.3g" % (ours, n_ours, theirs, n_theirs, p))

    def test_a_policy_trained_at_2_ms_beats_random_at_1_ms(self):
        """docs/learning.md, "Training with a coarser substep": trained in
        2 ms substeps, evaluated in the default 1 ms."""
        ours, n_ours, theirs, n_theirs = run_example(["--train-step-ms", "2"])
        p = fisher_greater(ours, n_ours, theirs, n_theirs)
        self.assertLess(p, ALPHA, "trained %d/%d, random %d/%d: p = %.3g" % (ours, n_ours, theirs, n_theirs, p))

    def test_without_learning_the_check_fails(self):
        """The learning rate 0 leaves the policy as it starts (standing
        still): the same run and check must not find it better."""
        ours, n_ours, theirs, n_theirs = run_example(["--lr", "0"])
        self.assertGreaterEqual(fisher_greater(ours, n_ours, theirs, n_theirs), ALPHA)


if __name__ == "__main__":
    unittest.main()
