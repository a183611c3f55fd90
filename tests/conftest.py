"""Fixtures shared by several test files."""

import pytest


@pytest.fixture
def small_fast_path(monkeypatch):
    """Every TREC file takes the fast path when it can, in chunks of a few rows, with a short sample,
    and the hash join works in blocks of a few rows."""
    pytest.importorskip("pandas")  # (without it, the line-by-line reader reads everything)
    from sklearn_rank.io import _trec_eval, _trec_fast, _trec_keys

    monkeypatch.setattr(_trec_fast, "_FAST_MIN_BYTES", 0)
    monkeypatch.setattr(_trec_fast, "_CHUNK_ROWS", 7)
    monkeypatch.setattr(_trec_fast, "_SAMPLE_LINES", 3)
    monkeypatch.setattr(_trec_fast, "_SAMPLE_BYTES", 64)
    monkeypatch.setattr(_trec_fast, "_SCAN_BLOCK", 4096)
    monkeypatch.setattr(_trec_keys, "_HASH_BLOCK", 5)
    monkeypatch.setattr(_trec_eval, "_HASH_BLOCK", 5)
