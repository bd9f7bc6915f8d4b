"""Errors the CLI reports as one line (no traceback)."""


class ComlqError(Exception):
    """A user-facing error: bad input, bad configuration, unreachable service."""


class RecordError(ComlqError):
    """A record that does not match its schema, located by file, line and field."""

    def __init__(self, where: str, field: str, message: str):
        self.where = where
        self.field = field
        super().__init__(f"{where}: field '{field}': {message}" if field else f"{where}: {message}")


class ServiceUnavailable(ComlqError):
    """A service (Label Studio, an LLM endpoint, the Hugging Face Hub) did not answer or failed
    on its side (connection refused or reset, timeout, HTTP 5xx). The CLI reports it as one line
    like any ComlqError; the flows retry it (another ComlqError is the user's to fix)."""
