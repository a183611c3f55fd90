"""Check the recorded peer outputs: every ``<peer>.json`` loads, holds the cases of ``cases.py`` (the same
digest) and one per-query value (or null) per user wherever a peer gives per-query values.

Run with any Python that has NumPy, from the repository root::

    python tests/data/peers/check.py
"""

import json
import sys
from pathlib import Path

from cases import CASES_SHA256, digest, generate

HERE = Path(__file__).resolve().parent
PEERS = ("catboost", "cornac", "implicit", "lenskit", "rectools", "ir_measures")


def check(peer):
    """Problems found in ``<peer>.json`` (an empty list when it is sound).

    Parameters
    ----------
    peer : str
        One of :data:`PEERS`.

    Returns
    -------
    problems : list of str
    """
    payload = json.loads((HERE / f"{peer}.json").read_text(encoding="utf-8"))
    keys = set(generate(1)[0])
    cases = [{key: case[key] for key in keys} for case in payload["cases"]]
    problems = [] if digest(cases) == CASES_SHA256 else [f"{peer}: the cases differ from cases.py's"]
    if payload["peer"] != peer or "versions" not in payload:
        problems.append(f"{peer}: 'peer' or 'versions' missing")
    for case in payload["cases"]:
        for name, record in case["outputs"].items():
            if "per_query" in record and len(record["per_query"]) != case["n_users"]:
                problems.append(f"{peer} case {case['id']} {name}: {len(record['per_query'])} per-query values "
                                f"for {case['n_users']} users")
            if "mean" not in record:
                problems.append(f"{peer} case {case['id']} {name}: no 'mean'")
    return problems


def main():
    problems = [problem for peer in PEERS for problem in check(peer)]
    print("\n".join(problems) or f"{len(PEERS)} files sound")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
