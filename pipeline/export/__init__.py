"""Export stage: graded benchmark splits as a Hugging Face DatasetDict, Parquet, a BEIR folder
and a dataset card (see `stage.py`). `datasets` is imported only when an export runs."""

from pipeline.export.stage import ExportResult, export

__all__ = ["ExportResult", "export"]
