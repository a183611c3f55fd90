"""scikit-learn's common estimator checks on RankingEvaluator.

The checks feed plain arrays without a query-id column, so the evaluators here
use ``qid=None``: the documented, explicit choice that all rows of X form one
query when no query ids are given. Classifiers need no query ids at all (each
row ranks the classes). The random inner estimators get a fixed
``random_state``: the checks set only the top-level one. No check is expected
to fail.
"""

from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_rank._evaluator import RankingEvaluator

ESTIMATORS = [
    RankingEvaluator(Ridge(), qid=None),
    RankingEvaluator(LogisticRegression(), qid=None),
    RankingEvaluator(DecisionTreeRegressor(random_state=0), metric="mrr", qid=None),
    RankingEvaluator(DecisionTreeClassifier(random_state=0), metric="ndcg", qid=None),
    # The default qid="qid" works as is for classifiers: they rank classes, not rows.
    RankingEvaluator(LogisticRegression()),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
