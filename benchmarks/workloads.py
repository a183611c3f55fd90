"""Seeded workloads of the benchmark: the same data for sklearn-rank and for every peer.

Every generator takes its sizes and a seed and draws from its own stream
(``numpy.random.default_rng([seed, workload, *sizes])``), so a workload of a
given size is the same array on every run and on every machine, whatever ran
before it. Scores are continuous (drawn from a normal or uniform distribution),
so that libraries with different tie rules (sklearn-rank's ``"expected"``,
ranx's input order, trec_eval's docno order) must agree exactly on them; the
label-index workload keeps the rare float32 ties it draws, and its reference
handles them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

SEED = 6  # issue 6

# Workload codes for the random streams.
_GROUPED, _LABEL_INDEX, _MATRIX = 1, 2, 3


@dataclass
class GroupedWorkload:
    """Grouped rows: ``n_queries`` queries of ``n_candidates`` rows each, rows of a query contiguous."""

    qid: np.ndarray       # (n_rows,) int64 query ids 0..n_queries-1
    y_true: np.ndarray    # (n_rows,) float64 grades 0-3
    y_score: np.ndarray   # (n_rows,) float64 continuous scores
    n_queries: int
    n_candidates: int

    @property
    def n_rows(self):
        return self.qid.size

    @property
    def nbytes(self):
        return self.qid.nbytes + self.y_true.nbytes + self.y_score.nbytes


def grouped_rows(n_queries, n_candidates, *, relevant_rate=0.005, seed=SEED):
    """Graded relevance 0-3 with about ``relevant_rate * n_candidates`` relevant rows per query.

    Every query has at least one relevant row (ranx requires the run and the
    qrels to hold the same queries). Scores are a weakly informative model:
    standard normal noise plus half the grade.
    """
    rng = np.random.default_rng([seed, _GROUPED, n_queries, n_candidates])
    n_rows = n_queries * n_candidates
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), n_candidates)
    is_relevant = rng.random(n_rows) < relevant_rate
    lacking = np.flatnonzero(np.bincount(qid[is_relevant], minlength=n_queries) == 0)
    is_relevant[lacking * n_candidates + rng.integers(0, n_candidates, lacking.size)] = True
    y_true = np.zeros(n_rows)
    y_true[is_relevant] = rng.integers(1, 4, int(is_relevant.sum()))
    y_score = rng.standard_normal(n_rows) + 0.5 * y_true
    return GroupedWorkload(qid, y_true, y_score, n_queries, n_candidates)


def count_tied_pairs(y_score, n_queries, n_candidates):
    """Adjacent equal scores within a query (0 means no ties anywhere)."""
    ordered = np.sort(y_score.reshape(n_queries, n_candidates), axis=1)
    return int(np.count_nonzero(ordered[:, 1:] == ordered[:, :-1]))


# ------------------------------------------------------------------------------------------------
# String ids for the peers (ranx, pytrec_eval, TREC files). Fixed widths: ranx's numba code is
# compiled per string width, so a warm-up on small data with the same widths warms it fully.
# ------------------------------------------------------------------------------------------------
def query_names(n_queries):
    return [f"q{q:06d}" for q in range(n_queries)]


def doc_names(n_rows):
    """One document id per row (distinct across queries, as in a learning-to-rank table)."""
    return [f"d{row:09d}" for row in range(n_rows)]


def peer_dicts(workload):
    """The nested dicts ranx and pytrec_eval take: run {qid: {docno: score}}, qrels {qid: {docno: grade}}.

    qrels hold the relevant rows only (grade > 0); every query has one.
    """
    nc = workload.n_candidates
    queries = query_names(workload.n_queries)
    docs = doc_names(workload.n_rows)
    scores = workload.y_score.tolist()
    run = {q: dict(zip(docs[i * nc:(i + 1) * nc], scores[i * nc:(i + 1) * nc])) for i, q in enumerate(queries)}
    qrels = {q: {} for q in queries}
    relevant_rows = np.flatnonzero(workload.y_true > 0)
    for row, grade in zip(relevant_rows.tolist(), workload.y_true[relevant_rows].astype(int).tolist()):
        qrels[queries[row // nc]][docs[row]] = grade
    return run, qrels


def write_trec_files(workload, qrels_path, run_path, chunk_rows=1_000_000):
    """Write the workload as a TREC qrels file (relevant rows) and run file (every row).

    Scores are written with ``repr`` so that they read back as the same float64.
    The rank column holds the rank by decreasing score, as a real run would.
    """
    nc = workload.n_candidates
    queries = query_names(workload.n_queries)
    order = np.lexsort((-workload.y_score, workload.qid))
    rank = np.empty(workload.n_rows, dtype=np.int64)
    rank[order] = np.arange(workload.n_rows) % nc + 1
    with open(run_path, "w", encoding="utf-8") as handle:
        for lo in range(0, workload.n_rows, chunk_rows):
            hi = min(workload.n_rows, lo + chunk_rows)
            scores = workload.y_score[lo:hi].tolist()
            ranks = rank[lo:hi].tolist()
            handle.write("".join(f"{queries[row // nc]} Q0 d{row:09d} {ranks[i]} {scores[i]!r} bench\n"
                                 for i, row in enumerate(range(lo, hi))))
    relevant_rows = np.flatnonzero(workload.y_true > 0)
    with open(qrels_path, "w", encoding="utf-8") as handle:
        handle.write("".join(f"{queries[row // nc]} 0 d{row:09d} {grade}\n"
                             for row, grade in zip(relevant_rows.tolist(),
                                                   workload.y_true[relevant_rows].astype(int).tolist())))


# ------------------------------------------------------------------------------------------------
# Label index: link prediction over a score matrix.
# ------------------------------------------------------------------------------------------------
@dataclass
class LabelIndexWorkload:
    scores: np.ndarray     # (n_queries, n_entities) float32
    target: np.ndarray     # (n_queries,) column of the true entity
    exclude: sp.csr_matrix  # (n_queries, n_entities) bool: other known true entities (filtered protocol)

    @property
    def mask_nbytes(self):
        return self.exclude.data.nbytes + self.exclude.indices.nbytes + self.exclude.indptr.nbytes


def label_index(n_queries, n_entities, *, n_filtered=20, seed=SEED):
    """float32 scores, one true column per row, ~``n_filtered`` filtered columns per row.

    Negatives are uniform on [0, 1); the true entity and the filtered ones (other
    known answers, which a trained model also scores high) sit just below 1, at
    ``1 - Exponential(3e-4)``, so the true entity ranks around 5 before filtering
    and the filter matters. float32 scores this close to 1 tie now and then (a
    few rows in 20,000): the ``"expected"`` tie policy and the reference handle them.
    """
    rng = np.random.default_rng([seed, _LABEL_INDEX, n_queries, n_entities, n_filtered])
    scores = rng.random((n_queries, n_entities), dtype=np.float32)
    rows = np.arange(n_queries)
    target = rng.integers(0, n_entities, n_queries)
    scores[rows, target] = np.clip(1 - rng.exponential(3e-4, n_queries), 0, 1).astype(np.float32)
    filtered = rng.integers(0, n_entities - 1, (n_queries, n_filtered))
    filtered += filtered >= target[:, None]  # never the target itself
    filtered_rows = np.repeat(rows, n_filtered)
    scores[filtered_rows, filtered.ravel()] = np.clip(
        1 - rng.exponential(3e-4, filtered.size), 0, 1).astype(np.float32)
    exclude = sp.csr_matrix((np.ones(filtered.size, dtype=bool), (filtered_rows, filtered.ravel())),
                            shape=(n_queries, n_entities))
    exclude.sum_duplicates()
    return LabelIndexWorkload(scores, target, exclude)


def label_index_reference(workload, ks=(1, 3, 10), chunk_rows=256):
    """MR, MRR and hits@k under the ``"expected"`` tie policy, counted the obvious way.

    For each row: g candidates (not filtered) score above the true one and e
    others tie with it; the true entity's rank is ``g + X`` with X uniform on
    1..e+1, so E[rank] = g + (e + 2) / 2, E[1/rank] = mean of 1/(g + j) for
    j = 1..e+1, and P(rank <= k) = clip(k - g, 0, e + 1) / (e + 1).
    """
    scores, target, exclude = workload.scores, workload.target, workload.exclude
    n_queries, n_entities = scores.shape
    greater = np.empty(n_queries, dtype=np.int64)
    tied = np.empty(n_queries, dtype=np.int64)
    for lo in range(0, n_queries, chunk_rows):
        hi = min(n_queries, lo + chunk_rows)
        block = scores[lo:hi]
        true = block[np.arange(hi - lo), target[lo:hi]][:, None]
        allowed = ~exclude[lo:hi].toarray()
        greater[lo:hi] = np.count_nonzero((block > true) & allowed, axis=1)
        tied[lo:hi] = np.count_nonzero((block == true) & allowed, axis=1) - 1
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, n_entities + 1))))
    values = {
        "mr": float(np.mean(greater + (tied + 2) / 2)),
        "mrr": float(np.mean((harmonic[greater + tied + 1] - harmonic[greater]) / (tied + 1))),
    }
    for k in ks:
        values[f"hits@{k}"] = float(np.mean(np.clip(k - greater, 0, tied + 1) / (tied + 1)))
    return values, int(np.count_nonzero(tied))


# ------------------------------------------------------------------------------------------------
# Relevance matrix: scikit-learn's ndcg_score input.
# ------------------------------------------------------------------------------------------------
def relevance_matrix(n_queries, n_candidates, *, seed=SEED):
    """Graded relevance 0-3 (70% zeros), every row with a relevant item; continuous scores.

    Also returns a tied version of the scores (rounded to steps of 0.5: most
    rows hold ties), on which scikit-learn averages over tied orderings.
    """
    rng = np.random.default_rng([seed, _MATRIX, n_queries, n_candidates])
    y_true = rng.choice(4, size=(n_queries, n_candidates), p=[0.7, 0.1, 0.1, 0.1]).astype(np.float64)
    lacking = np.flatnonzero(~(y_true > 0).any(axis=1))
    y_true[lacking, rng.integers(0, n_candidates, lacking.size)] = 1.0
    y_score = rng.standard_normal((n_queries, n_candidates)) + 0.5 * y_true
    return y_true, y_score, np.round(2 * y_score) / 2
