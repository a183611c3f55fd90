"""The recording scripts run in the peers' own environments (they import CatBoost, LensKit, ...): pytest's
``--doctest-modules`` must not import them in the test environment."""

collect_ignore_glob = ["record_*.py"]
