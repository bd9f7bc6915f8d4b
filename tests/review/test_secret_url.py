"""`comlq review token save`'s Prefect URL: a malformed one is a one-line error, not a ValueError."""

from __future__ import annotations

import pytest

from pipeline.errors import ComlqError
from pipeline.orchestration.secret import prefect_api


@pytest.mark.parametrize("url", ["http://[::1:4200/api", "http://127.0.0.1:1/api"])
def test_a_bad_prefect_url_is_one_line(url: str) -> None:
    with pytest.raises(ComlqError, match="does not answer"):
        prefect_api(url)
