"""
Link prediction with a filter mask
==================================

Raw and filtered ranks of a link predictor over a knowledge graph, head and tail
predictions pooled, a sparse filter mask, realistic ties; then the same filtered numbers
the PyKEEN way, with a relevance matrix and ``targets="all"``. See :doc:`/filtered`.

A small synthetic knowledge graph stands in for a real one: entities and relations have
latent vectors, and a triple (head, relation, tail) is true when its latent score is
high. A "model" scores every possible tail of (head, relation, ?) and every possible
head of (?, relation, tail) with noisy latent vectors. Each test triple is one query in
the label-index layout (a row of scores over all entities and the column of the true
entity).

The filtered protocol removes the *other* known true entities of a query before ranking,
so that ranking a correct answer above the test answer is not counted as an error. The
filter mask is a sparse matrix shaped like the score matrix. Ties are "realistic" (mid
ranks), as in PyKEEN, TGB and OGB.

The last part computes the same filtered numbers the PyKEEN way: one row per (head,
relation) or (relation, tail) query with *all* its test answers relevant, the training
answers excluded, and ``targets="all"``, which ranks every test answer against the
non-relevant candidates only.

Run: python examples/link_prediction_filtered.py
"""

import numpy as np
import scipy.sparse as sp

from sklearn_rank import evaluate

# %%
# A synthetic knowledge graph
# ---------------------------
# Latent score of (h, r, t): <entity[h] * relation[r], entity[t]>; the top 1% of
# triples are true.
rng = np.random.default_rng(0)
n_entities, n_relations, dim = 300, 4, 8

entity = rng.normal(size=(n_entities, dim))
relation = rng.normal(size=(n_relations, dim))
latent = np.einsum("hd,rd,td->hrt", entity, relation, entity)
threshold = np.quantile(latent, 0.99)
heads, rels, tails = np.nonzero(latent > threshold)
triples = np.column_stack([heads, rels, tails])
is_test = rng.random(len(triples)) < 0.2
train, test = triples[~is_test], triples[is_test]
print(f"Knowledge graph: {n_entities} entities, {n_relations} relations, "
      f"{len(train)} training and {len(test)} test triples")

# %%
# The model: noisy latent vectors
# -------------------------------
# The score is symmetric in h and t, so the same product scores heads and tails.
entity_hat = entity + rng.normal(scale=0.8, size=entity.shape)
relation_hat = relation + rng.normal(scale=0.8, size=relation.shape)
h, r, t = test.T
# One row per test triple: the scores of (h, r, ?) over every tail, of (?, r, t) over
# every head.
tail_scores = (entity_hat[h] * relation_hat[r]) @ entity_hat.T
head_scores = (entity_hat[t] * relation_hat[r]) @ entity_hat.T

# %%
# Filter masks
# ------------
# Every known true entity of the query except the test answer.
true_tails, true_heads = {}, {}
for head, rel, tail in triples:
    true_tails.setdefault((head, rel), set()).add(tail)
    true_heads.setdefault((rel, tail), set()).add(head)


def filter_mask(keys, answers, known):
    rows, cols = [], []
    for row, (key, answer) in enumerate(zip(keys, answers)):
        others = sorted(known[key] - {answer})
        rows += [row] * len(others)
        cols += others
    values = np.ones(len(rows), dtype=bool)
    return sp.csr_matrix((values, (rows, cols)), shape=(len(answers), n_entities))


tail_filter = filter_mask(list(zip(h, r)), t, true_tails)
head_filter = filter_mask(list(zip(r, t)), h, true_heads)

# %%
# Raw and filtered ranks
# ----------------------
# Head and tail predictions pooled, as most papers (and PyKEEN's "both") report them.
scores = np.vstack([tail_scores, head_scores])
answers = np.concatenate([t, h])
mask = sp.vstack([tail_filter, head_filter]).tocsr()
metrics = ["mrr", "hits@1", "hits@3", "hits@10", "mr", "amri"]
raw = evaluate(answers, scores, metrics=metrics, ties="realistic")
filtered = evaluate(answers, scores, exclude=mask, metrics=metrics, ties="realistic")

print(f"\nHead and tail prediction, {len(answers)} queries, realistic ties")
print(f"{'metric':<10}{'raw':>10}{'filtered':>10}")
for name in metrics:
    print(f"{name:<10}{raw.summary[name]:>10.4f}{filtered.summary[name]:>10.4f}")
print(f"filtered out: {mask.nnz} known answers "
      f"({mask.nnz / len(answers):.2f} per query)")

# %%
# The same filtered ranks, PyKEEN style: ``targets="all"``
# --------------------------------------------------------
# One row per distinct (h, r, ?) or (?, r, t) query of the test set; its test answers
# are relevant, its training answers are excluded.
test_tails, test_heads = {}, {}
for head, rel, tail in test:
    test_tails.setdefault((head, rel), set()).add(tail)
    test_heads.setdefault((rel, tail), set()).add(head)
rows_scores, rows_relevant, rows_known = [], [], []
everyone = np.arange(n_entities)
for (head, rel), answers_of_query in test_tails.items():
    rows_scores.append((entity_hat[head] * relation_hat[rel]) @ entity_hat.T)
    rows_relevant.append(np.isin(everyone, sorted(answers_of_query)))
    known_tails = true_tails[head, rel] - answers_of_query
    rows_known.append(np.isin(everyone, sorted(known_tails)))
for (rel, tail), answers_of_query in test_heads.items():
    rows_scores.append((entity_hat[tail] * relation_hat[rel]) @ entity_hat.T)
    rows_relevant.append(np.isin(everyone, sorted(answers_of_query)))
    known_heads = true_heads[rel, tail] - answers_of_query
    rows_known.append(np.isin(everyone, sorted(known_heads)))
pooled = evaluate(np.array(rows_relevant, dtype=int), np.array(rows_scores),
                  exclude=np.array(rows_known), targets="all",
                  metrics=metrics + ["count"], ties="realistic")
same = all(np.isclose(pooled.summary[name], filtered.summary[name], rtol=0, atol=1e-12)
           for name in metrics)
print(f"\nRelevance matrix with targets='all': {len(rows_scores)} queries, "
      f"{int(pooled.summary['count'])} ranks pooled")
print(f"same filtered metrics as the label-index evaluation: {same}")
