"""Constants shared by the solver's test files."""

#: the value of Kuhn poker for the first player
KUHN_VALUE = -1.0 / 18.0
#: wall-clock guard of the solver runs that must be exact: far above what they need, so that the final export (which
#: gets what is left of the limit) is never hurried. A time limit near the run's length made
#: the export's column generation stop early on a loaded machine (CI failed on
#: test_two_round_team_game at 2e-4 under a 30 s limit that it normally meets in 4 s).
GUARD_SECONDS = 600
