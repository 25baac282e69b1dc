"""Fixtures of the backend tests."""

from __future__ import annotations

import pytest

from tests.backends.twod import SCENES


@pytest.fixture(params=sorted(SCENES))
def case(request):
    path_fn, args = SCENES[request.param]
    return request.param, path_fn(), list(args)
