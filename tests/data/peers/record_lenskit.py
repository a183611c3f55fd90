"""Record LensKit's own top-N metrics on the seeded cases of ``cases.py`` (issue 24).

Run with LensKit's environment, from the repository root::

    /tmp/recbench/venv-lenskit/bin/python tests/data/peers/record_lenskit.py

which writes ``tests/data/peers/lenskit.json``. Recorded with lenskit 2025.8.1, NumPy 2.4.6, pandas,
PyArrow and PyTorch as listed in the JSON's ``versions``, Python 3.11.7.

How a case is fed, per user: ``recs = ItemList(item_ids=candidates, scores=score row at the candidates)
.top_n(k)`` (the candidates are the items with ``train`` 0, in item id order; ``top_n`` is what LensKit's
``TopNRanker(n=k)`` does, LensKit's own tie order, recorded in ``peer_rankings``), ``test =
ItemList(item_ids=the user's relevant items)`` (empty for a user without any); then
``metric.measure_list(recs, test)`` for ``NDCG(k)``, ``DCG(k)``, ``Precision(k)``, ``Recall(k)``,
``AveragePrecision(k)``, ``RecipRank(k)``, ``RBP(k)``, ``Hit(k)`` (defaults otherwise), named by their
LensKit label (``NDCG@5``, ...). Per query: that value (null for NaN; a user whose call raised has null and
its message in ``per_query_errors``). Means, from ``lenskit.metrics.RunAnalysis`` on the collections of
those lists (key ``user_id``):

* ``mean``: ``list_summary()["mean"]`` with every user's list (a user with neither candidates nor relevant
  items is skipped by RunAnalysis; one with candidates and no relevant item is measured against an empty
  test list); RunAnalysis fills a NaN with the metric's default (0) before the mean;
* ``mean_test_users``: the same with the lists of the users that have a relevant item only (the usual
  LensKit evaluation: recommendations for the test users);
* ``summary``: ``global_metrics()`` of the first run (each metric's own ``summarize``), where present;
* ``error``: the message when RunAnalysis raised.

Grades: every metric is measured again with the test lists carrying the grades as a ``rating`` field;
``grades_change_defaults`` (per case) says whether any per-query value changed (LensKit's defaults ignore
the field). ``NDCG(k, gain="rating")`` and ``DCG(k, gain="rating")``, the graded variants, are recorded
as ``NDCG@k[gain=rating]`` and ``DCG@k[gain=rating]``.
"""

import logging
import sys
import warnings

import numpy as np
from lenskit.data import ItemList, ItemListCollection
from lenskit.metrics import DCG, NDCG, RBP, Hit, Precision, Recall, RecipRank, RunAnalysis
from lenskit.metrics.ranking import AveragePrecision

from cases import error_text, outcome, record_all, versions



def metrics(k):
    found = {}
    for metric in (NDCG(k), DCG(k), Precision(k), Recall(k), AveragePrecision(k), RecipRank(k), RBP(k), Hit(k)):
        found[metric.label] = metric
    found[f"NDCG@{k}[gain=rating]"] = NDCG(k, gain="rating")
    found[f"DCG@{k}[gain=rating]"] = DCG(k, gain="rating")
    return found


def per_user(metric, recs, tests):
    values, errors = [], {}
    for user, (rec, test) in enumerate(zip(recs, tests)):
        try:
            values.append(metric.measure_list(rec, test))
        except Exception as exc:  # recorded per user
            values.append(None)
            errors[str(user)] = error_text(exc)
    return values, errors


def run_analysis(label, metric, recs, tests, users):
    """(list_summary mean, global_metrics value or None) of RunAnalysis on the given users' lists."""
    rec_lists, test_lists = ItemListCollection(["user_id"]), ItemListCollection(["user_id"])
    for user in users:
        rec_lists.add(recs[user], user_id=user)
        if len(tests[user]):
            test_lists.add(tests[user], user_id=user)
    analysis = RunAnalysis()
    analysis.add_metric(metric, label=label)
    result = analysis.measure(rec_lists, test_lists)
    summary = result.global_metrics()
    return result.list_summary().loc[label, "mean"], (summary[label] if label in summary.index else None)


def record(case):
    n_users, k = case["n_users"], case["k"]
    scores = np.asarray(case["scores"], dtype=np.float64)
    labels = np.asarray(case["labels"])
    train = np.asarray(case["train"], dtype=bool)
    recs, tests, graded_tests = [], [], []
    for user in range(n_users):
        candidates = np.flatnonzero(~train[user])
        recs.append(ItemList(item_ids=candidates, scores=scores[user, candidates]).top_n(k))
        relevant = np.flatnonzero(labels[user] > 0)
        tests.append(ItemList(item_ids=relevant))
        graded_tests.append(ItemList(item_ids=relevant, rating=labels[user, relevant].astype(np.float64)))
    test_users = [user for user in range(n_users) if len(tests[user])]
    outputs, grades_change = {}, False
    for label, metric in metrics(k).items():
        graded = label.endswith("[gain=rating]")
        values, errors = per_user(metric, recs, graded_tests if graded else tests)
        if not graded:
            with_grades, _ = per_user(metric, recs, graded_tests)
            grades_change |= not np.array_equal(np.array(values, dtype=float), np.array(with_grades, dtype=float),
                                                equal_nan=True)
        notes = {"per_query_errors": errors} if errors else {}
        try:
            mean, summary = run_analysis(label, metric, recs, graded_tests if graded else tests, range(n_users))
            notes["summary"] = None if summary is None or np.isnan(summary) else float(summary)
            error = None
        except Exception as exc:  # recorded: what LensKit does with the case
            mean, error = None, error_text(exc)
        try:
            notes["mean_test_users"] = float(run_analysis(label, metric, recs, graded_tests if graded else tests,
                                                          test_users)[0])
        except Exception as exc:  # recorded
            notes["mean_test_users_error"] = error_text(exc)
        outputs[label] = outcome(values, mean, error, **notes)
    rankings = {f"top_n({k})": [[int(i) for i in rec.ids()] for rec in recs]}
    return {**case, "outputs": outputs, "grades_change_defaults": bool(grades_change), "peer_rankings": rankings}


FED = ("per user: recs = ItemList(candidates in item id order, scores).top_n(k), test = ItemList(relevant items) "
       "(with rating = grade for the [gain=rating] metrics); metric.measure_list(recs, test); means from "
       "RunAnalysis.list_summary")


def main():
    logging.disable(logging.WARNING)  # "could not find test data for N lists", once per RunAnalysis
    warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 in Recall for a user without relevant items
    return record_all("lenskit", record, versions("lenskit", "pandas", "pyarrow", "torch", "scipy"), FED)


if __name__ == "__main__":
    sys.exit(main())
