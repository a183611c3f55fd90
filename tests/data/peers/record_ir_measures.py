"""Record ir_measures' own measures on the seeded cases of ``cases.py`` (issue 24).

Run with an environment holding ir_measures and the cwl_eval package its ``RBP`` needs (``python -m venv
/tmp/recbench/venv-irm``, then ``pip install ir_measures cwl-eval``; ``ERR@k`` also needs ``perl`` on the
PATH), from the repository root::

    /tmp/recbench/venv-irm/bin/python tests/data/peers/record_ir_measures.py

which writes ``tests/data/peers/ir_measures.json``. Recorded with ir_measures 0.4.3, pytrec_eval-terrier
0.5.11, cwl-eval 1.0.12, NumPy 2.4.6, Python 3.11.7 and the perl in ``versions`` (the exact versions are in
the JSON).

How a case is fed: query id = the user as a string (``"0"``, ``"1"``, ...), document id = the item id
zero-padded to two digits (``"00"``, ``"07"``, ``"29"``: the string order is the item id order);
``qrels`` = ``ir_measures.Qrel(query, doc, grade)`` for every ``judged`` cell (grade 0 for the judged
non-relevant cells, training cells included); ``run`` = ``ir_measures.ScoredDoc(query, doc, score)`` for
every candidate (the items with ``train`` 0), users in order, items in id order (the run-file order: it
is the tie order of providers that sort stably by score, cwl_eval's RBP). A user without candidates
(``user_kinds`` ``"no_candidates"``, one case in four) is in the qrels and not in the run. Per query:
``ir_measures.iter_calc([measure], qrels, run)`` (null for a user it gives no value; any query id that is
not a user, such as gdeval's ``"amean"`` line, under ``other_queries``); mean:
``ir_measures.calc_aggregate([measure], qrels, run)``. Each measure is evaluated on its own with the
default pipeline; ``provider`` is the provider that pipeline picks for it. Measures, named by
``str(measure)``: ``nDCG@k``, ``P@k``, ``R@k``, ``AP``, ``RR``, ``Rprec``, ``Judged@k``, ``ERR@k``,
``RBP(rel=1)``, ``Success@k``. gdeval (``ERR@k``) prints its values with five decimals: they are exact only
to 5e-6.
"""

import subprocess
import sys

import ir_measures
from ir_measures import AP, ERR, P, R, RBP, RR, Judged, Rprec, Success, nDCG

from cases import error_text, outcome, record_all, versions



def measures(k):
    return [nDCG @ k, P @ k, R @ k, AP, RR, Rprec, Judged @ k, ERR @ k, RBP(rel=1), Success @ k]


def provider_of(measure):
    for provider in ir_measures.DefaultPipeline.providers:
        if provider.is_available() and provider.supports(measure):
            return provider.NAME
    return None


def record(case):
    n_users = case["n_users"]
    qrels = [ir_measures.Qrel(str(user), f"{item:02d}", int(case["labels"][user][item]))
             for user in range(n_users) for item in range(case["n_items"]) if case["judged"][user][item]]
    run = [ir_measures.ScoredDoc(str(user), f"{item:02d}", case["scores"][user][item])
           for user in range(n_users) for item in range(case["n_items"]) if not case["train"][user][item]]
    outputs = {}
    for measure in measures(case["k"]):
        notes = {"provider": provider_of(measure)}
        try:
            values = {metric.query_id: metric.value for metric in ir_measures.iter_calc([measure], qrels, run)}
            mean = ir_measures.calc_aggregate([measure], qrels, run)[measure]
        except Exception as exc:  # recorded: what ir_measures does with the case
            outputs[str(measure)] = outcome(error=error_text(exc), **notes)
            continue
        users = [str(user) for user in range(n_users)]
        others = {query: float(value) for query, value in values.items() if query not in users}
        if others:
            notes["other_queries"] = others
        outputs[str(measure)] = outcome([values.get(user) for user in users], mean, **notes)
    return {**case, "outputs": outputs}


FED = ("qrels = judged cells (query = str(user), doc = f'{item:02d}', relevance = grade), run = candidates with "
       "their scores, users then items in id order; users without candidates in the qrels only; iter_calc and "
       "calc_aggregate, one measure at a time")


def main():
    perl = subprocess.run(["perl", "-e", "print $^V"], capture_output=True, text=True, check=True).stdout
    found = {**versions("ir_measures", "pytrec_eval-terrier", "cwl-eval"), "perl": perl.lstrip("v")}
    found["python"] = found.pop("python")
    return record_all("ir_measures", record, found, FED)


if __name__ == "__main__":
    sys.exit(main())
