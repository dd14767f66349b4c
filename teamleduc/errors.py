"""The toolkit's error type: a message for the user and the exit code that goes with it."""


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
