"""Seeded inputs on which the peers' own outputs are recorded (issue 24).

NumPy only, so that it runs in every peer's virtual environment: each ``record_<peer>.py`` imports
:func:`generate`, checks the cases against :data:`CASES_SHA256` (the same cases in every environment,
whatever its NumPy) and writes them, with the peer's outputs, into ``<peer>.json``.

A case is one small recommendation matrix, users x items, with the keys:

``id``, ``n_users`` (4-12), ``n_items`` (6-30), ``k`` (1, 3, 5 or 50: 50 is beyond every list)
    The case number, the size and the cut-off every metric that takes one is recorded at.
``ties``
    ``true``: the scores are rounded to one decimal in [-1, 1] (so with ties); ``false``: each user's
    scores are distinct multiples of 1e-4 in [-1, 1] (tie-free, in float32 too).
``scores``
    float64, ``n_users`` rows of ``n_items``, for every cell (training cells included).
``labels``
    0 = not relevant, 1-3 = the grade of a relevant cell; training cells are 0.
``train``
    0/1: the training items of each user, filtered from its candidates (a user's candidates are the
    items with ``train`` 0). Never relevant.
``judged``
    0/1: every relevant cell plus a random part of the others (training cells included), the qrels of
    ir_measures (its Judged@k).
``ranking``
    Each user's candidates, item ids, by score descending, ties by item id ascending (the order fed to
    RecTools; any peer that takes a ranking as given can be fed the same).
``user_kinds``
    How each user was drawn: ``"mixed"``, ``"no_relevant"`` (no relevant candidate),
    ``"all_relevant"`` (every candidate relevant), ``"few_candidates"`` (1 or 2 candidates, so ``k`` 3 and
    5 go beyond the list) or ``"no_candidates"`` (every item a training item: in ir_measures' qrels, not
    in its run). Every case has at least one ``no_relevant`` and one ``all_relevant`` user; one case in
    four has a ``no_candidates`` user.

Run ``python tests/data/peers/cases.py`` to print the number of cases and their digest.
"""

import hashlib
import json

import numpy as np

SEED = 24  # issue 24
N_CASES = 40
K_VALUES = (1, 3, 5, 50)
CASES_SHA256 = "92e5f18fb93a1e0f0315aa1d77ca4df32d502352edd52fefda333ed57a0925a7"


def _scores(rng, n_users, n_items, ties):
    """float64 scores: one decimal in [-1, 1] (ties), or distinct multiples of 1e-4 per row (no ties)."""
    if ties:
        # rint(x * 10) / 10 is the double nearest to m / 10, the one float("0.m") reads
        return np.round(rng.uniform(-1.0, 1.0, (n_users, n_items)), 1) + 0.0
    rows = [rng.choice(20_001, size=n_items, replace=False) for _ in range(n_users)]
    return (np.array(rows, dtype=np.float64) - 10_000.0) / 10_000.0 + 0.0


def _user_kinds(rng, n_users, with_no_candidates):
    kinds = ["no_relevant", "all_relevant", "few_candidates"]
    if with_no_candidates:
        kinds.append("no_candidates")
    extra = rng.choice(["mixed"] * 6 + ["no_relevant", "all_relevant", "few_candidates"],
                       size=n_users - len(kinds))
    kinds = [*kinds, *(str(kind) for kind in extra)]
    return [kinds[i] for i in rng.permutation(n_users)]


def _case(case_id):
    rng = np.random.default_rng([SEED, case_id])
    ties = case_id % 2 == 0
    k = K_VALUES[(case_id // 2) % len(K_VALUES)]
    n_users = int(rng.integers(4, 13))
    n_items = int(rng.integers(6, 31))
    scores = _scores(rng, n_users, n_items, ties)
    kinds = _user_kinds(rng, n_users, with_no_candidates=case_id % 4 == 1)
    train = np.zeros((n_users, n_items), dtype=bool)
    labels = np.zeros((n_users, n_items), dtype=np.int64)
    for user, kind in enumerate(kinds):
        if kind == "no_candidates":
            train[user] = True
            continue
        if kind == "few_candidates":
            keep = rng.choice(n_items, size=int(rng.integers(1, 3)), replace=False)
            train[user] = True
            train[user, keep] = False
        else:
            # at least two candidates left
            train[user] = rng.random(n_items) < rng.uniform(0.0, 0.5)
            train[user, rng.choice(n_items, size=2, replace=False)] = False
        candidates = np.flatnonzero(~train[user])
        grades = rng.integers(1, 4, size=candidates.size)
        if kind == "no_relevant":
            relevant = np.zeros(candidates.size, dtype=bool)
        elif kind == "all_relevant":
            relevant = np.ones(candidates.size, dtype=bool)
        else:
            relevant = rng.random(candidates.size) < rng.uniform(0.1, 0.6)
        labels[user, candidates[relevant]] = grades[relevant]
    judged = (labels > 0) | (rng.random((n_users, n_items)) < 0.5)
    for user in np.flatnonzero(~judged.any(axis=1)):
        # every user in ir_measures' qrels
        judged[user, rng.integers(n_items)] = True
    items = np.arange(n_items)
    ranking = [[int(i) for i in np.flatnonzero(~train[u])[np.lexsort((items[~train[u]], -scores[u, ~train[u]]))]]
               for u in range(n_users)]
    return {
        "id": case_id, "n_users": n_users, "n_items": n_items, "k": k, "ties": ties,
        "scores": [[float(s) for s in row] for row in scores],
        "labels": labels.tolist(),
        "train": train.astype(int).tolist(),
        "judged": judged.astype(int).tolist(),
        "ranking": ranking,
        "user_kinds": kinds,
    }


def generate(n_cases=N_CASES):
    """The seeded cases.

    Parameters
    ----------
    n_cases : int, default=N_CASES
        Number of cases; case ``i`` depends on ``i`` only (its own random stream).

    Returns
    -------
    cases : list of dict
        One dict per case, the keys described in the module docstring, JSON-ready.
    """
    return [_case(case_id) for case_id in range(n_cases)]


def digest(cases):
    """SHA-256 of the cases' canonical JSON (sorted keys, no spaces), to check that two environments
    generated the same cases.

    Parameters
    ----------
    cases : list of dict
        As returned by :func:`generate`.

    Returns
    -------
    str
        The hexadecimal digest.
    """
    text = json.dumps(cases, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def checked_cases():
    """:func:`generate`, after checking the cases' digest against :data:`CASES_SHA256`.

    Returns
    -------
    cases : list of dict

    Raises
    ------
    RuntimeError
        If this environment generates other cases (another NumPy random stream).
    """
    cases = generate()
    found = digest(cases)
    if found != CASES_SHA256:
        raise RuntimeError(f"The cases differ from the recorded ones: digest {found}, expected {CASES_SHA256}. "
                           f"NumPy {np.__version__} draws another random stream.")
    return cases


def to_json(payload):
    """Compact JSON, one case per line: floats as Python's repr (exact), NaN refused.

    Parameters
    ----------
    payload : dict
        ``{"peer", "versions", "script", ..., "cases": [...]}``.

    Returns
    -------
    str
    """
    head = {key: value for key, value in payload.items() if key != "cases"}
    lines = [json.dumps(head, indent=1, allow_nan=False)[:-2] + ',\n "cases": [']
    cases = payload["cases"]
    for i, case in enumerate(cases):
        lines.append(json.dumps(case, separators=(",", ":"), allow_nan=False) + ("," if i + 1 < len(cases) else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def outcome(per_query=None, mean=None, error=None, **notes):
    """One metric's record: ``{"per_query": [...], "mean": ..., "error": ...}`` (keys left out when None).

    Parameters
    ----------
    per_query : sequence of float or None, optional
        One value per user; None or NaN where the peer gives no value (written as null).
    mean : float or None, optional
        The peer's own mean; NaN is written as null.
    error : str or None, optional
        ``"ExceptionType: message"`` when the peer raised.
    **notes
        Further keys written as given (for example ``per_query_errors``).

    Returns
    -------
    dict
    """
    record = {}
    if per_query is not None:
        record["per_query"] = [_number(value) for value in per_query]
    record["mean"] = _number(mean)
    if error is not None:
        record["error"] = error
    record.update(notes)
    return record


def _number(value):
    if value is None:
        return None
    value = float(value)
    return None if np.isnan(value) else value


def error_text(exc):
    """``"ExceptionType: message"`` of an exception, on one line.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    str
    """
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def versions(*distributions):
    """Installed versions of the given distributions, with NumPy's and Python's.

    Parameters
    ----------
    *distributions : str
        Distribution names as pip knows them.

    Returns
    -------
    dict
        ``{name: version}``, ``"python"`` last.
    """
    import platform
    from importlib.metadata import version

    found = {name: version(name) for name in (*distributions, "numpy")}
    found["python"] = platform.python_version()
    return found


def write(path, payload):
    """Write ``payload`` with :func:`to_json` to ``path`` and read it back (valid JSON).

    Parameters
    ----------
    path : str or path-like
    payload : dict
    """
    text = to_json(payload)
    json.loads(text)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {path}: {len(text):,} bytes")


def record_all(peer, record, found_versions, fed):
    """Record a peer on every case and write ``<peer>.json`` beside this module.

    Parameters
    ----------
    peer : str
        The peer's name, also the file's (``<peer>.json``) and its script's (``record_<peer>.py``).
    record : callable
        ``record(case) -> dict``: the case with the peer's ``outputs`` (and any further keys).
    found_versions : dict
        From :func:`versions`, with anything else the peer's numbers depend on.
    fed : str
        One line saying how a case is fed to the peer (the script's docstring says it in full).

    Returns
    -------
    int
        0, the script's exit status.
    """
    from pathlib import Path

    cases = [record(case) for case in checked_cases()]
    write(Path(__file__).resolve().parent / f"{peer}.json", {
        "peer": peer, "versions": found_versions, "script": f"tests/data/peers/record_{peer}.py", "fed": fed,
        "cases": cases})
    return 0


if __name__ == "__main__":
    generated = generate()
    print(len(generated), "cases, digest", digest(generated))
