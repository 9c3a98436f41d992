"""Torch-aware comparisons shared by every public and hidden test.

Each check raises `CheckFailed` (an AssertionError) with a message a student can act on:
what was compared, what differed (type, dtype, device, shape, or values with the largest
error and where), never the hidden inputs themselves.  Checks run in the trusted process
on data that came back through `wire`, so a student cannot patch them: `torch.allclose`
or `Tensor.__eq__` redefined in a notebook lives and dies in the worker.

Messages speak of the student's values in words: a probe's `{"error": ...}` is "your code raised X"
(an untouched stub: "not answered yet"), a field is named `name (after change)`, never as the probe's
dict.  Order of checks follows CMU's MyTorch autograder: type, then dtype/device, then shape,
then values.  Default tolerances are `torch.testing.assert_close`'s, chosen by dtype.

TensorFlow values arrive as `wire.TFTensor` (no TensorFlow here): compared by kind, dtype, shape,
then where the values sit (a ragged tensor's row lengths, a sparse tensor's indices), then the values
with the same dtype tolerances, and a variable's `trainable`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import torch

from autograder.execute.backend import ProbeTimeout
from autograder.execute.runner import OverBudget
from autograder.execute.wire import TFDType, TFShape, TFTensor, Unsupported
from autograder.notebook.stub import ERROR as STUB_ERROR
from autograder.notebook.stub import not_answered

# torch.testing.assert_close defaults (rtol, atol) by dtype
_TOL: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}


_observer: Callable[[float], None] | None = None


def observe_margins(observer: Callable[[float], None] | None) -> None:
    """Have every comparison under a tolerance that holds report the share of it the error used (the largest over
    the values: 0 equal, 1 at the edge) to `observer`; None stops.  For a sweep over course secrets
    (`tests/curriculum/sweep_secrets.py --margins`): how near correct work comes to failing each check, measured,
    not only whether it passed.  A comparison that fails is not reported: a test may catch it and decide otherwise
    (01's distances fall back to their squares), and a grading that loses the points says so itself.  Grading never
    sets one."""
    global _observer
    _observer = observer


class CheckFailed(AssertionError):
    """A check that did not hold; its message is meant for the student."""


class TooCostly(CheckFailed):
    """A cost check that did not hold (`assert_loop_free`).  `reason` says why in the student's words and
    names no input, so the feedback shows it even for a hidden test whose messages the policy withholds
    (`TestResult.reason`)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) used by default for `dtype` (exact for integer and bool dtypes)."""
    return _TOL.get(dtype, (0.0, 0.0))


def _describe(x: Any) -> str:
    if isinstance(x, Unsupported):
        return f"a {x.type_name}" + (f" ({x.detail})" if x.detail else "")
    if type(x) is torch.Tensor:
        return f"a {x.dtype} tensor of shape {tuple(x.shape)}"
    if type(x) is np.ndarray:
        return f"a numpy array of dtype {x.dtype} and shape {x.shape}"
    if type(x) is TFTensor:
        shape = (
            "unknown"
            if x.shape is None
            else "(" + ", ".join(map(str, x.shape)) + ("," if len(x.shape) == 1 else "") + ")"
        )
        return f"a tf.{x.kind} of dtype {x.dtype} and shape {shape}"
    if type(x) in (TFDType, TFShape):
        return repr(x)
    if x is None:
        return "None"
    return f"a {type(x).__name__}"


def assert_tf(
    got: Any,
    expected: TFTensor,
    *,
    name: str = "the result",
    rtol: float | None = None,
    atol: float | None = None,
    check_dtype: bool = True,
) -> None:
    """`got` must be a TensorFlow value of `expected`'s kind, dtype and shape, with its values where
    `expected` has them (ragged rows, sparse indices) and close to them within the dtype's tolerance."""
    if type(got) is not TFTensor:
        hint = (
            " (tf.constant or tf.convert_to_tensor makes one)" if type(got) in (torch.Tensor, np.ndarray, list) else ""
        )
        raise CheckFailed(f"{name} should be {_describe(expected)}, but it is {_describe(got)}{hint}.")
    if got.kind != expected.kind:
        raise CheckFailed(f"{name} is {_describe(got)}; expected {_describe(expected)}.")
    if check_dtype and got.dtype != expected.dtype:
        raise CheckFailed(
            f"{name} is {_describe(got)}; expected dtype {expected.dtype}. Check where the dtype is "
            "decided (creation, tf.cast, or the dtype of a variable or layer)."
        )
    if got.shape != expected.shape:
        raise CheckFailed(
            f"{name} is {_describe(got)}; expected shape {_describe(expected).rsplit(' shape ', 1)[1]}. "
            "Check which axes you reduce, index, or broadcast over."
        )
    if len(got.row_splits) != len(expected.row_splits) or not all(
        torch.equal(g, e) for g, e in zip(got.row_splits, expected.row_splits)
    ):
        lengths = lambda t: (t.row_splits[0][1:] - t.row_splits[0][:-1]).tolist() if t.row_splits else []  # noqa: E731
        raise CheckFailed(f"{name} has rows of lengths {_short(lengths(got))}, expected {_short(lengths(expected))}.")
    if (got.indices is None) != (expected.indices is None) or (
        got.indices is not None and expected.indices is not None and not torch.equal(got.indices, expected.indices)
    ):
        g = got.indices.tolist() if got.indices is not None else []
        e = expected.indices.tolist() if expected.indices is not None else []
        first = next((i for i, (a, b) in enumerate(zip(g, e)) if a != b), min(len(g), len(e)))
        raise CheckFailed(
            f"{name} has {len(g)} stored values, expected {len(e)}; the first stored at another position "
            f"is number {first} (got {g[first] if first < len(g) else 'none'}, expected "
            f"{e[first] if first < len(e) else 'none'})."
        )
    _compare_values(got.values, expected.values, name=name, rtol=rtol, atol=atol, equal_nan=False)
    if expected.trainable is not None and got.trainable != expected.trainable:
        raise CheckFailed(
            f"{name} is a tf.Variable with trainable={got.trainable}, expected trainable={expected.trainable}."
        )


def _short(xs: list) -> str:
    return str(xs) if len(xs) <= 10 else str(xs[:10])[:-1] + ", ...]"


def assert_tensor(
    got: Any,
    expected: torch.Tensor,
    *,
    name: str = "the result",
    rtol: float | None = None,
    atol: float | None = None,
    check_dtype: bool = True,
    equal_nan: bool = False,
) -> None:
    """`got` must be a plain torch.Tensor equal to `expected` within dtype-based tolerance."""
    if type(got) is not torch.Tensor:
        raise CheckFailed(f"{name} should be a torch.Tensor, but it is {_describe(got)}.")
    if check_dtype and got.dtype != expected.dtype:
        raise CheckFailed(
            f"{name} has dtype {got.dtype}, expected {expected.dtype}. "
            "Check where the dtype is decided (creation, casting, or type promotion in an operation)."
        )
    if got.shape != expected.shape:
        raise CheckFailed(
            f"{name} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}. "
            "Check which dimensions you reduce, index, or broadcast over."
        )
    _compare_values(got, expected, name=name, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _compare_values(
    got: torch.Tensor, expected: torch.Tensor, *, name: str, rtol: float | None, atol: float | None, equal_nan: bool
) -> None:
    g, e = got.detach(), expected.detach()
    if g.dtype == e.dtype and torch.equal(g, e):  # the usual case, in one op instead of a dozen (no NaN is equal)
        if _observer is not None and (e.is_floating_point() or e.is_complex()):
            _observer(0.0)
        return
    if g.dtype != e.dtype:
        common = torch.promote_types(g.dtype, e.dtype)
        g, e = g.to(common), e.to(common)
    d_rtol, d_atol = tolerance(e.dtype)
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    if e.numel() == 0:
        return
    floating = e.is_floating_point() or e.is_complex()
    wide = torch.complex128 if e.is_complex() else torch.float64
    if not floating:
        bad = g != e
    else:
        gd, ed = g.to(wide), e.to(wide)
        nan_g, nan_e = torch.isnan(gd.abs()), torch.isnan(ed.abs())
        same_inf = torch.isinf(gd.abs()) & (gd == ed)
        bad = ((gd - ed).abs() > atol + rtol * ed.abs()) & ~same_inf & ~nan_g & ~nan_e
        bad |= (
            torch.isinf(gd.abs()) | torch.isinf(ed.abs())
        ) & ~same_inf  # rtol * inf would let any value be "close" to inf
        bad |= (nan_g != nan_e) if equal_nan else (nan_g | nan_e)
    n_bad = int(bad.sum())
    if n_bad == 0:
        if _observer is not None and floating:  # (equal infinities and NaNs use none of it)
            _observer(float(torch.nan_to_num((gd - ed).abs() / (atol + rtol * ed.abs()), nan=0.0).max()))
        return
    idx = tuple(int(i) for i in torch.nonzero(bad)[0]) if bad.dim() else ()
    where = f" at index {list(idx)}" if idx else ""
    msg = f"{name}: {n_bad} of {e.numel()} values differ; first{where}: got {_num(g[idx].item())}, expected {_num(e[idx].item())}"
    if floating:
        gd, ed = g.to(wide), e.to(wide)
        finite = torch.isfinite(gd.abs()) & torch.isfinite(ed.abs())
        if bool(finite.any()):
            err = torch.where(finite, (gd - ed).abs(), torch.zeros((), dtype=torch.float64))
            worst = [int(i) for i in np.unravel_index(int(torch.argmax(err)), tuple(e.shape))] if e.dim() else []
            msg += f"; largest absolute error {float(err.max()):.3g}" + (f" at index {worst}" if worst else "")
        msg += f" (tolerance: rtol={rtol:g}, atol={atol:g})"
    raise CheckFailed(msg + ".")


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return repr(v)


def assert_scalar(
    got: Any,
    expected: float | int | bool,
    *,
    name: str = "the result",
    rtol: float = 1e-6,
    atol: float = 1e-8,
    kind: type | None = None,
) -> None:
    """`got` must be a Python number (not a tensor) close to `expected`; `kind` pins its type."""
    want = kind or type(expected)
    ok_types = (bool,) if want is bool else (int,) if want is int else (int, float)
    if type(got) not in ok_types or (want is not bool and type(got) is bool):
        raise CheckFailed(
            f"{name} should be a Python {want.__name__}, but it is {_describe(got)}"
            + (" (use .item() to get a Python number from a one-element tensor)." if type(got) is torch.Tensor else ".")
        )
    if want in (bool, int):
        if got != expected:
            raise CheckFailed(f"{name} is {got!r}, expected {expected!r}.")
        return
    if math.isnan(expected) and math.isnan(got):
        return
    if not math.isclose(got, expected, rel_tol=rtol, abs_tol=atol):
        raise CheckFailed(f"{name} is {got:.6g}, expected {expected:.6g} (difference {abs(got - expected):.3g}).")
    if _observer is not None and got != expected:  # close: the tolerance, math.isclose's, is above 0
        _observer(abs(got - expected) / max(rtol * max(abs(got), abs(expected)), atol))


WRAPPERS = ("out", "value")  # a probe's {"out": result} / {"value": result}: the result itself, not a field of it


def _part(name: str, key: Any) -> str:
    """How a field of a result is named: `name (after change)` for a probe's `after_change`, never the
    dict syntax `name['after_change']`; a wrapper key (`out`, `value`) is the result itself."""
    if key in WRAPPERS:
        return name
    return f"{name} ({key.replace('_', ' ')})" if isinstance(key, str) else f"{name} [{key!r}]"


def _what(x: Any) -> str:
    """A short description of an expected value: repr for plain small data, else its kind."""
    if isinstance(x, (bool, int, float, str, tuple, list, torch.dtype, torch.device, TFDType, TFShape)) or x is None:
        text = repr(x)
        if len(text) <= 80:
            return text
        return text[:72] + " ...]" if type(x) is list else text[:72] + " ...)" if type(x) is tuple else _describe(x)
    return _describe(x)


def _raised(got: Any, expected: Any, name: str) -> None:
    """A probe that caught the student's exception returns {"error": "TypeName[: message]"}: say what was
    raised in words (an untouched stub is "not answered yet"), never the probe's dict."""
    got_err = got.get("error") if type(got) is dict else None
    want_err = expected.get("error") if type(expected) is dict else None
    if got_err is not None and want_err is None:
        kind = str(got_err)
        if kind.split(":")[0].strip() == STUB_ERROR:
            raise CheckFailed(not_answered([name]))
        want = next((expected[k] for k in WRAPPERS if type(expected) is dict and k in expected), expected)
        raise CheckFailed(f"{name}: your code raised {kind}; it should return {_what(want)}.")
    if want_err is not None and got_err is None and type(got) is dict:
        returned = next((got[k] for k in WRAPPERS if k in got), None)
        raise CheckFailed(
            f"{name} should raise {want_err}, but it returned "
            f"{_what(returned) if returned is not None else 'without raising'}."
        )
    if want_err is not None and got_err is not None and str(got_err).split(":")[0] != str(want_err).split(":")[0]:
        raise CheckFailed(f"{name} raised {str(got_err).split(':')[0]}, expected {want_err}.")


def _keys(got: dict, expected: dict, name: str) -> None:
    missing, extra = [k for k in expected if k not in got], [k for k in got if k not in expected]
    if missing or extra:
        words = lambda ks: ", ".join(str(k).replace("_", " ") for k in ks)  # noqa: E731
        raise CheckFailed(
            f"{name} "
            + "; ".join(
                p
                for p in (
                    f"has no value for {words(missing)}" if missing else "",
                    f"has unexpected {words(extra)}" if extra else "",
                )
                if p
            )
            + "."
        )


def assert_equal(got: Any, expected: Any, *, name: str = "the result") -> None:
    """Exact equality for plain data (strings, ints, tuples of them, dtypes, devices, dicts of them)."""
    _raised(got, expected, name)
    if type(expected) is dict and type(got) is dict:
        _keys(got, expected, name)
        for k in expected:
            assert_equal(got[k], expected[k], name=_part(name, k))
        return
    if type(expected) is TFTensor:
        assert_tf(got, expected, name=name, rtol=0.0, atol=0.0)
        return
    if type(got) is not type(expected) and not (isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple))):
        raise CheckFailed(f"{name} should be {_describe(expected)} ({_what(expected)}), but it is {_describe(got)}.")
    if got != expected:
        if (
            isinstance(expected, (list, tuple))
            and max(len(repr(got)), len(repr(expected))) > 80
            and all(type(v) in (bool, int, float, str, list, tuple) or v is None for v in (*got, *expected))
        ):
            # a long sequence: where it first differs, not "is a list, expected a list"
            if len(got) != len(expected):
                raise CheckFailed(
                    f"{name} has {len(got)} items, expected {len(expected)}: {_what(got)}, expected {_what(expected)}."
                )
            i = next(i for i, (g, e) in enumerate(zip(got, expected)) if type(g) is not type(e) or g != e)
            raise CheckFailed(
                f"{name} differs first at item {i} (counting from 0): {_what(got[i])}, expected {_what(expected[i])}."
            )
        raise CheckFailed(f"{name} is {_what(got)}, expected {_what(expected)}.")


def assert_close(
    got: Any,
    expected: Any,
    *,
    name: str = "the result",
    rtol: float | None = None,
    atol: float | None = None,
    check_dtype: bool = True,
) -> None:
    """Recursive comparison of nested lists/tuples/dicts of tensors, arrays and scalars."""
    _raised(got, expected, name)
    if type(expected) is torch.Tensor:
        assert_tensor(got, expected, name=name, rtol=rtol, atol=atol, check_dtype=check_dtype)
    elif type(expected) is TFTensor:
        assert_tf(got, expected, name=name, rtol=rtol, atol=atol, check_dtype=check_dtype)
    elif type(expected) is np.ndarray:
        if type(got) is not np.ndarray:
            raise CheckFailed(f"{name} should be a numpy array, but it is {_describe(got)}.")
        if check_dtype and got.dtype != expected.dtype:
            raise CheckFailed(f"{name} has dtype {got.dtype}, expected {expected.dtype}.")
        assert_tensor(
            torch.from_numpy(got), torch.from_numpy(expected), name=name, rtol=rtol, atol=atol, check_dtype=False
        )
    elif type(expected) is dict:
        if type(got) is not dict:
            raise CheckFailed(f"{name} should be a dict, but it is {_describe(got)}.")
        _keys(got, expected, name)
        for k in expected:
            assert_close(got[k], expected[k], name=_part(name, k), rtol=rtol, atol=atol, check_dtype=check_dtype)
    elif type(expected) in (list, tuple):
        if type(got) not in (list, tuple):
            raise CheckFailed(f"{name} should be a {type(expected).__name__}, but it is {_describe(got)}.")
        if len(got) != len(expected):
            raise CheckFailed(f"{name} has {len(got)} items, expected {len(expected)}.")
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_close(g, e, name=f"{name}[{i}]", rtol=rtol, atol=atol, check_dtype=check_dtype)
    elif type(expected) is float:
        assert_scalar(
            got, expected, name=name, rtol=rtol if rtol is not None else 1e-6, atol=atol if atol is not None else 1e-8
        )
    else:
        assert_equal(got, expected, name=name)


def assert_state_dict(
    got: Any,
    expected: Mapping[str, torch.Tensor],
    *,
    name: str = "the state_dict",
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Same keys in the same order, each tensor equal (dtype, shape, values)."""
    if type(got) is not dict:
        raise CheckFailed(f"{name} should be a dict of tensors, but it is {_describe(got)}.")
    if list(got) != list(expected):
        raise CheckFailed(
            f"{name} has keys {list(got)}, expected {list(expected)} (names and order come from the "
            "attribute names of parameters and buffers, in the order they are registered)."
        )
    for k, v in expected.items():
        assert_tensor(got[k], v, name=f"{name}[{k!r}]", rtol=rtol, atol=atol)


def assert_grads(
    got: Mapping[str, Any],
    expected: Mapping[str, torch.Tensor | None],
    *,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Gradients by parameter name; None means 'no gradient was computed'."""
    for k, e in expected.items():
        g = got.get(k, Unsupported("missing")) if isinstance(got, Mapping) else Unsupported(type(got).__name__)
        if e is None:
            if g is not None:
                raise CheckFailed(f"{k}.grad should be None (no gradient should flow there), but it is {_describe(g)}.")
            continue
        if g is None:
            raise CheckFailed(
                f"{k}.grad is None: no gradient reached it. Is it part of the graph, and does it require grad?"
            )
        assert_tensor(g, e, name=f"the gradient of {k}", rtol=rtol, atol=atol)


def assert_history(
    got: Any,
    expected: Mapping[str, Iterable[float]],
    *,
    columns_in_order: bool = True,
    rtol: float = 1e-4,
    atol: float = 1e-6,
) -> None:
    """A training history as {column: [values per epoch]} (e.g. `df.to_dict('list')`)."""
    if type(got) is not dict:
        raise CheckFailed(f"the history should be a table of columns, but it is {_describe(got)}.")
    if columns_in_order and list(got) != list(expected):
        raise CheckFailed(f"the history has columns {list(got)}, expected {list(expected)} in that order.")
    for col, values in expected.items():
        if col not in got:
            raise CheckFailed(f"the history has no column {col!r}.")
        ev = torch.tensor(list(values), dtype=torch.float64)
        gv = got[col]
        if type(gv) not in (list, tuple) or len(gv) != len(ev):
            raise CheckFailed(
                f"history[{col!r}] has {len(gv) if type(gv) in (list, tuple) else '?'} rows, expected {len(ev)}."
            )
        for v in gv:  # exactly numbers: float("0.5") or float(a 0-dim tensor) would pass a string or a tensor
            if type(v) not in (int, float):
                hint = " (a tensor: use .item())" if type(v) is torch.Tensor else ""
                raise CheckFailed(
                    f"history[{col!r}] should hold numbers (int or float), but holds {_describe(v)}{hint}."
                )
        _compare_values(
            torch.tensor(list(gv), dtype=torch.float64),
            ev,
            name=f"history[{col!r}]",
            rtol=rtol,
            atol=atol,
            equal_nan=False,
        )


def tf_name(dtype: torch.dtype) -> str:
    """A torch dtype as TensorFlow names it ("tf.float32"), for the messages of a TensorFlow assignment whose tests make
    their inputs with torch: the student reads TensorFlow's names."""
    return "tf." + str(dtype).removeprefix("torch.")


def as_tf(x: Any) -> Any:
    """A torch tensor as the TensorFlow value it stands for (`TFTensor`: a dense tf.Tensor of the same dtype, shape and
    values), anything else unchanged: for a TensorFlow assignment whose probes carry the student's tensors back as
    torch (tf02b's ops), so that `assert_tf`'s messages name TensorFlow's types ("a tf.Tensor of dtype float32")."""
    if type(x) is not torch.Tensor:
        return x
    return TFTensor("Tensor", str(x.dtype).removeprefix("torch."), tuple(x.shape), "", x)


def tf_device(full: Any) -> Any:
    """TensorFlow's full device name shortened to the one students write: '/job:localhost/replica:0/task:0/
    device:CPU:1' -> '/device:CPU:1' (anything else unchanged), so a message names the device as they do."""
    return "/device:" + full.rsplit("device:", 1)[-1] if isinstance(full, str) and "device:" in full else full


def assert_true(condition: bool, message: str) -> None:
    """A behavioural check with a student-facing message."""
    if not condition:
        raise CheckFailed(message)


# "No Python loops" is judged by CPU time the grader reads from outside the worker (`ProbeClient.cost`), on
# inputs where the cheapest Python loop (a comprehension over `.tolist()`) costs 0.5 s or more and vectorised
# code a few hundredths: a call passes under LOOP_FLOOR seconds, or under LOOP_RATIO times the reference's own
# cost (a slower machine).  The call is watched while it runs and stopped as soon as it has spent LOOP_MARGIN
# times that limit (`OverBudget`): proof enough, so a loop that would run a minute costs a fraction of a
# second, and the proof is kept for the submission (`CostLedger`), never bought twice.  A call that finishes
# over the limit (under that budget, or on a backend that cannot stop it: wall time in process) is measured once more (the cheaper of the two counts), so an unlucky
# moment (a page-fault storm, a collection of Python's garbage) never costs a correct answer its point.
# A call still running after LOOP_WALL seconds of wall time is stopped too (one that sleeps, or a worker the
# host starves, which the runner's starvation check retries rather than charging it: seen, 3 s for a correct
# scatter_sum at a load average of 22 on 2 cores).
LOOP_FLOOR = 0.15
LOOP_RATIO = 10
LOOP_MARGIN = 2
LOOP_WALL = 15.0


def assert_loop_free(
    student: Any,
    probe: Any,
    *args: Any,
    reference_cpu: float | None = None,
    name: str,
    advice: str,
    function: str | None = None,
    ratio: float = LOOP_RATIO,
) -> Any:
    """The value of `student.cost(probe, *args)`, once its CPU time is that of vectorised code: at most `ratio`
    times the reference's (a Python loop costs 10-100 times; a retrace per call of a tiny tf.function about 12, so
    tf01's signature test asks 4).  Fails with `TooCostly`, whose reason names `function` (default `name`) and not the
    inputs."""
    limit = max(LOOP_FLOOR, ratio * (reference_cpu or 0.0))
    within = max(LOOP_WALL, 20 * limit)
    who, budget = function or name, LOOP_MARGIN * limit
    spent: list[float] = []
    stopped = False
    for _ in range(2):
        try:
            got = student.cost(probe, *args, within=within, budget=budget)
        except OverBudget as exc:
            spent.append(exc.cpu)
            stopped = len(spent) == 1
            break
        except ProbeTimeout:
            raise TooCostly(
                f"{name} did not finish within {within:g} s, where vectorised code takes under {limit:.2f} s "
                f"of CPU time: {advice}",
                f"{who} did not finish within {within:g} s, where vectorised code takes under "
                f"{limit:.2f} s of CPU time: {advice}",
            ) from None
        if got.cpu is None or got.cpu <= limit:  # None: the master's own answers, nothing ran to measure
            return got.value
        spent.append(got.cpu)  # finished over the limit (a backend that cannot stop a call: however far over)
    cpu = min(spent)
    took = f"took more than {cpu:.2f} s of CPU time (stopped there)" if stopped else f"took {cpu:.2f} s of CPU time"
    ref = f" (the reference: {reference_cpu:.3f} s)" if reference_cpu is not None else ""
    raise TooCostly(
        f"{name} {took}, where vectorised code takes under {limit:.2f} s{ref}: {advice}",
        f"{who} {took}, where vectorised code takes under {limit:.2f} s: {advice}",
    )


def advise(condition: bool, advice: str) -> None:
    """A point of style the grader sees only from inside the student's process (which code there can hide):
    it fails a test worth 0 points, so the student reads it in the feedback and loses nothing for it."""
    if not condition:
        raise CheckFailed(f"Advice (no points): {advice}")
