"""Tests of the sslsim Python module (scripts/run-python-tests.sh)."""
