"""comlq pipeline: passages, query types, generation, export and the run that wires them."""

from pipeline.errors import ComlqError, RecordError

__all__ = ["ComlqError", "RecordError"]
