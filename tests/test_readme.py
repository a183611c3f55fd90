"""The README's Python blocks run as pasted, in order, in one namespace (as a reader would paste them)."""

import pathlib
import re
import warnings

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run_as_pasted():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 3
    namespace = {"__name__": "__readme__"}
    for number, block in enumerate(blocks, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a reader's session shows warnings; the test asks only that it runs
            exec(compile(block, f"README.md python block {number}", "exec"), namespace)
    # the comparison block's names are its own: the paired test ran over the 200 shared queries
    assert namespace["compare"](namespace["report_a"], namespace["report_b"], metric="ndcg@10").n_a == 200
