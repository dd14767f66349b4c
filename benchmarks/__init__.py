"""Benchmarks (``make bench``): every ``bench_*.py`` module here runs in name order and prints
its times (and ratios to the targets of the issues)."""
