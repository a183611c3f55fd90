"""TREC qrels and run files, and their evaluation with trec_eval's conventions.

A qrels line is ``qid iter docno rel``; a run line is
``qid iter docno rank score runid`` (extra trailing columns are tolerated, and
lines starting with ``#`` are comments, as trec_eval 10 accepts). The readers
name the file and line of any malformed line.

What the readers accept
-----------------------
- Text: UTF-8; a UTF-8 byte-order mark at the start of the file is skipped.
  Bytes that are not UTF-8, NUL bytes (binary data) and lines longer than
  1 MiB (binary data, or a file without line breaks) are errors.
- Lines end with ``\\n``, ``\\r\\n`` or ``\\r``. Columns are separated by
  ASCII whitespace (space, tab, ``\\v``, ``\\f``, ``\\r``: C's ``isspace``, as in
  trec_eval); any other character, a no-break space included, belongs to its
  field.
- Relevance: an optional sign and ASCII digits, within the 64-bit integer range.
  trec_eval reads it with ``atol``, which stops at the first other character
  (``1.9`` and ``1_0`` are 1 to it, ``x`` is 0); these readers refuse such a
  field instead of guessing.
- Score: a finite decimal number (an optional sign, digits with an optional
  point, an optional exponent), which ``atof`` reads whole. Refused rather than
  reinterpreted: ``inf``, ``nan``, hexadecimal numbers, ``_`` between digits
  and non-ASCII digits, and anything ``atof`` would read only a prefix of.
- Query ids and docnos come back as fixed-width ``str`` arrays, unless padding
  every value of a column to its longest one would take more than 4 times the
  size of the file (a few very long values): that column is then an ``object``
  array of ``str``, so that memory follows the size of the file.

Reading has two paths that give the same arrays, bit for bit. The line-by-line
reader handles every file and words every error. Regular files of 4 MB and more
(ASCII after an optional byte-order mark, columns separated by spaces and
tabs, ``#`` only at the start of a comment line, no line with more columns than
the first, no very long line or value, numbers that parse, finite scores, no
duplicate) are parsed by pandas' C reader when pandas is
installed, then checked with vectorised NumPy code; anything irregular goes
back to the line-by-line reader, which either reads the file or reports the
exact line.
"""

# The modules, for contributors: _trec_lines (Qrels, Run, the line reader: every file, every error),
# _trec_fast (the fast path: exactly the line reader's arrays, or None), _trec_keys (row hashes, trec_eval's
# order), _trec_files (read_qrels, read_run, write_qrels, write_run), _trec_eval (evaluate_trec: order, join,
# then the engine), _tables (CSV/TSV/Parquet tables for the command line), _svmlight (SVMlight / LETOR
# ranking files: load_svmlight_ranking, dump_svmlight_ranking, documented in sklearn_rank.datasets).
from ..exceptions import TrecFormatError  # noqa: F401 (sklearn_rank.io.TrecFormatError, as before)
from ._trec_eval import evaluate_trec
from ._trec_files import read_qrels, read_run, write_qrels, write_run
from ._trec_lines import Qrels, Run
# Importable from here too; documented (and listed in __all__) in sklearn_rank.datasets, their one API page.
from ._svmlight import dump_svmlight_ranking, load_svmlight_ranking  # noqa: F401

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "write_qrels", "write_run", "evaluate_trec"]

# The public names keep the module they had before sklearn_rank.io became a package (pickles, reprs, the docs).
for _public in (Qrels, Run, read_qrels, read_run, write_qrels, write_run, evaluate_trec):
    _public.__module__ = __name__
del _public
