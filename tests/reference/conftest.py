"""Fixtures shared by the reference server's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from servescope.reference.transport import limits as guard


@pytest.fixture(scope="module", params=guard.PARSERS)
def http_parser(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each HTTP/1.1 parser the connection guard runs on (httptools by default, h11 where
    httptools is not installed): a server started while this fixture is active uses it."""
    parser: str = request.param
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(guard, "default_parser", lambda: parser)
        yield parser
