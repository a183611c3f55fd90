"""The warnings and errors of sklearn-rank.

Every class here is also importable from where it is used (``sklearn_rank.UndefinedMetricWarning``,
``sklearn_rank.io.TrecFormatError``, ``sklearn_rank.stats.DegenerateDataWarning``, ...).

``UndefinedMetricWarning`` is a ``UserWarning`` and not a subclass of scikit-learn's warning of the
same name: deriving from it would import scikit-learn (about a second) with ``import sklearn_rank``,
which the metric functions and the command line do not need. Filter it by this class, or by
``UserWarning``.
"""

__all__ = ["UndefinedMetricWarning", "InputError", "InputValueError", "InputTypeError", "TrecFormatError",
           "TableFormatError", "DegenerateDataWarning", "UnpairedQueriesWarning"]


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for some queries (reported as NaN there)."""


class InputError(Exception):
    """Base of the errors sklearn-rank raises for bad input: a value, a type, a file or a table.

    Every such error is also a ``ValueError`` or a ``TypeError`` (:class:`InputValueError`,
    :class:`InputTypeError`), so code that catches those catches it as before. An error that is not an
    ``InputError`` did not come from sklearn-rank's validation: the command line reports an
    ``InputError`` in one line and any other exception with its traceback, as a bug.
    """


class InputValueError(InputError, ValueError):
    """A value that the parameter it was given to does not accept (the message names both)."""


class InputTypeError(InputError, TypeError):
    """An argument of a type that the parameter does not accept (the message names both)."""


class TrecFormatError(InputValueError):
    """A malformed line in a TREC file (the message names the file and line)."""


class TableFormatError(InputValueError):
    """A table that cannot be read, or a bad value in it (the message names the file, line or row, and column)."""


class DegenerateDataWarning(UserWarning):
    """The data leave a test or an interval nothing to work with.

    Raised, for example, when every paired difference is zero, when both
    samples hold one repeated value, or when a sample is too small for a
    distribution-free interval at the requested confidence level. The
    function still returns a defined answer, documented where it is computed.
    """


class UnpairedQueriesWarning(UserWarning):
    """Two reports share only some query ids: the paired test leaves the others out.

    The warning names the query ids found in only one report; the result
    counts them in ``n_unpaired_a`` and ``n_unpaired_b``.
    """
