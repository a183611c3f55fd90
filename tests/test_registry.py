import pytest

from sklearn_rank import MetricSpec, get_metric, metric_names


@pytest.mark.parametrize("written, canonical", [
    ("mrr", "mrr"), ("MRR", "mrr"), ("mean_reciprocal_rank", "mrr"), ("recip_rank", "mrr"), ("rr", "mrr"),
    ("map", "map"), ("AP", "map"), ("mean-average-precision", "map"), ("map@100", "map@100"),
    ("ndcg@10", "ndcg@10"), ("NDCG @ 10", "ndcg@10"), ("dcg", "dcg"),
    ("p@5", "p@5"), ("P@5", "p@5"), ("precision@5", "p@5"), ("r@10", "r@10"), ("recall@10", "r@10"),
    ("f1@3", "f1@3"), ("hits@10", "hits@10"), ("h@1", "hits@1"), ("hit_rate@5", "hits@5"),
    ("success@5", "hits@5"), ("rprec", "rprec"), ("r_precision", "rprec"), ("auc", "auc"),
    ("mean_rank", "mr"), ("arithmetic_mean_rank", "mr"), ("median_rank", "median_rank"),
    ("inverse_median_rank", "inverse_median_rank"), ("rank_std", "rank_std"), ("rank_var", "rank_var"),
    ("rank_mad", "rank_mad"), ("adjusted_mrr", "amrr"), ("ahits@10", "ahits@10"), ("zhits@3", "zhits@3"),
])
def test_names_and_synonyms(written, canonical):
    assert get_metric(written).name == canonical


@pytest.mark.parametrize("name", ["mr", "gmr", "hmr", "median_rank", "rank_std", "rank_var", "rank_mad", "amr"])
def test_lower_is_better(name):
    assert get_metric(name).greater_is_better is False


@pytest.mark.parametrize("name", ["mrr", "map", "ndcg", "p@1", "amri", "zmr", "zgmr", "igmr", "iamr"])
def test_higher_is_better(name):
    assert get_metric(name).greater_is_better is True


@pytest.mark.parametrize("name, match", [
    ("ndgc@10", "ndcg@10"),
    ("mrrr", "mrr"),
    ("p", "needs a cut-off"),
    ("hits", "needs a cut-off"),
    ("rprec@10", "takes no cut-off"),
    ("ndcg@0", "positive integer"),
    ("ndcg@-1", "positive integer"),
    ("ndcg@2.5", "positive integer"),
    ("ndcg@ten", "positive integer"),
])
def test_bad_names(name, match):
    with pytest.raises(ValueError, match=match):
        get_metric(name)


def test_non_string():
    with pytest.raises(TypeError, match="metric"):
        get_metric(3)


def test_every_listed_name_resolves():
    names = metric_names()
    assert len(names) == len(set(names))
    for name in names:
        spec = get_metric(name.replace("@k", "@5"))
        assert isinstance(spec, MetricSpec)
        assert spec.lower <= spec.upper
        assert spec.takes_k in ("no", "optional", "required")
