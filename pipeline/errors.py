"""Errors the CLI reports as one line (no traceback)."""

QUOTE_LIMIT = 200  # characters of a bad record or value an error message may quote


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """`value` for an error message: its repr, cut to `limit` characters (a bad record may be megabytes)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 20]}... ({len(text):,} chars)"


class ComlqError(Exception):
    """A user-facing error: bad input, bad configuration, unreachable service."""


class RecordError(ComlqError):
    """A record that does not match its schema, located by file, line and field."""

    def __init__(self, where: str, field: str, message: str):
        self.where = where
        self.field = field
        if len(message) > QUOTE_LIMIT * 2:  # never echo a megabyte record: its head and its tail
            message = f"{message[:QUOTE_LIMIT]} ... {message[-QUOTE_LIMIT // 2:]}"
        super().__init__(f"{where}: field '{field}': {message}" if field else f"{where}: {message}")


class ServiceUnavailable(ComlqError):
    """A service (Label Studio, an LLM endpoint, the Hugging Face Hub) did not answer or failed
    on its side (connection refused or reset, timeout, HTTP 5xx). The CLI reports it as one line
    like any ComlqError; the flows retry it (another ComlqError is the user's to fix)."""
