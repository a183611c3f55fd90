import subprocess
import sys


def test_demo_prints_every_tie_policy():
    out = subprocess.run([sys.executable, "-m", "sklearn_rank", "demo"], capture_output=True, text=True, check=True,
                         timeout=300).stdout
    lines = out.strip().splitlines()
    assert lines[1].split() == ["ties", "mrr", "map", "ndcg@3", "hits@1", "mr"]
    rows = {line.split()[0]: [float(v) for v in line.split()[1:]] for line in lines[2:7]}
    assert set(rows) == {"expected", "realistic", "optimistic", "pessimistic", "ordinal"}
    for i, name in enumerate(["mrr", "map", "ndcg@3", "hits@1"]):
        assert rows["optimistic"][i] >= rows["expected"][i] >= rows["pessimistic"][i], name
    assert rows["optimistic"][4] <= rows["expected"][4] <= rows["pessimistic"][4]


def test_no_subcommand_prints_usage_and_exits_2():
    out = subprocess.run([sys.executable, "-m", "sklearn_rank"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "usage: sklearn-rank" in out.stderr
