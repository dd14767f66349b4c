"""The toolkit's error types: a message for the user and the exit code that goes with it."""


class TeamLeducError(Exception):
    """An error the user can fix (bad input, bad arguments); shown without a traceback.

    ``exit_code`` is 1 for invalid content (a submission that fails validation) and 2 for
    unusable arguments or files (the convention of ``teamleduc validate``).
    """

    exit_code = 2

    def __init__(self, message: str, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class ArgumentValueError(TeamLeducError, ValueError):
    """A bad value for an argument of the Python API. Both the toolkit's error (the CLI shows
    its message, exit 2) and a ValueError (what Python callers and Gymnasium expect)."""


class ArgumentTypeError(TeamLeducError, TypeError):
    """An argument of the wrong type (a string for a seat, a float for a count): both the
    toolkit's error and a TypeError."""
