"""The exception a bad job, flag or file raises: the CLI's one-line message, and where it points."""


class JobSpecError(ValueError):
    """A job spec, CSV, log or argument ptp refuses.

    ``str(err)`` is the line ``ptp-predict`` prints after ``ptp-predict: error:``. ``file``,
    ``field``, ``line`` and ``column`` are the parts of it that are known (empty or 0 otherwise).
    """

    def __init__(self, message, file="", field="", line=0, column=0):
        super().__init__(message)
        self.file = file
        self.field = field
        self.line = line
        self.column = column
