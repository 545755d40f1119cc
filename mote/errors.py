"""Errors a user can cause. The CLI prints the one-line message and exits with status 2."""


class MoteError(Exception):
    """Base class: the message says what, where, and what to do."""


class ModelFileError(MoteError):
    """The file is not a model mote can read (truncated, wrong format)."""


class UnsupportedError(MoteError):
    """The model uses an operator, dtype or attribute mote does not support."""


class GraphError(MoteError):
    """The graph is malformed."""


class BuildError(MoteError):
    """Compiling or running generated code failed."""


class MemoryFitError(MoteError):
    """The model does not fit the target's memory."""


class AcceleratorError(MoteError):
    """An accelerator's own code (a pattern predicate, lower, its models) failed or broke its contract."""


class PlatformError(MoteError):
    """A platform description (--platform) is unreadable, invalid, or asks for what is not simulated yet."""
