"""The presets against the peers that install with the test extra (CatBoost, cornac, ir_measures), run here on a
subset of the seeded cases: the recording script's own function (tests/data/peers/record_<peer>.py) computes the
peer's outputs with the installed version, and the checks of tests/test_peer_presets.py compare sklearn-rank's
presets with them. So a new version of a peer that changes its defaults fails here, not only in a re-recording."""

import importlib.util
import shutil
import sys

import pytest

import test_peer_presets as recorded

# tied and tie-free cases at every k of the generator (1, 3, 5, 50)
LIVE_CASES = [0, 1, 2, 3, 4, 5, 6, 7]
MODULES = {"catboost": "catboost", "cornac": "cornac", "ir_measures": "ir_measures"}


def _recorder(peer):
    pytest.importorskip(MODULES[peer])
    path = recorded.DATA / f"record_{peer}.py"
    sys.path.insert(0, str(recorded.DATA))  # the script imports its neighbour cases.py
    try:
        spec = importlib.util.spec_from_file_location(f"_live_record_{peer}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(recorded.DATA))
    return module


def _live(peer, index):
    case = recorded._load(peer)["cases"][index]
    inputs = {key: value for key, value in case.items() if key not in ("outputs", "peer_rankings")}
    live = _recorder(peer).record(inputs)
    if peer == "ir_measures" and shutil.which("perl") is None:  # its ERR@k runs gdeval.pl
        name = f"ERR@{case['k']}"
        live["outputs"][name] = case["outputs"][name]
    return live


@pytest.mark.parametrize("index", LIVE_CASES)
def test_catboost_live(index):
    recorded._check_catboost(_live("catboost", index))


@pytest.mark.parametrize("index", LIVE_CASES)
def test_cornac_live(index):
    recorded._check_cornac(_live("cornac", index))


@pytest.mark.parametrize("index", LIVE_CASES)
def test_ir_measures_live(index):
    recorded._check_ir_measures(_live("ir_measures", index))
