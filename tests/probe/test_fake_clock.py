"""The fake clock that timing probes hand to a student's timing code (autograder/probe/fake_clock.py)."""

from __future__ import annotations

import statistics
import time
import timeit
from time import perf_counter

from autograder.probe.fake_clock import FakeClock

_TIME_OP = '''
def time_op(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = {clock}
        fn()
        times.append({clock} - start)
    return statistics.median(times)
'''


def _answer(clock_expr: str, namespace: dict) -> float:
    ns = {"statistics": statistics, **namespace}
    exec(_TIME_OP.format(clock=clock_expr), ns)
    calls = [0]
    steps = [0.3, 0.01, 0.05, 0.2]
    with FakeClock(ns) as clock:

        def fn():
            clock.advance(steps[calls[0]])
            calls[0] += 1

        return ns["time_op"](fn, 3)


def test_every_way_of_reading_the_clock_reads_the_fake_one():
    """time.perf_counter(), a perf_counter imported by name, time.monotonic(), timeit's timer and the _ns clocks:
    the answer is the median of the fake durations, exactly (up to the rounding of the clock's sums)."""
    for expr, namespace in [
        ("time.perf_counter()", {"time": time}),
        ("perf_counter()", {"perf_counter": perf_counter}),
        ("time.monotonic()", {"time": time}),
        ("timeit.default_timer()", {"timeit": timeit}),
        ("time.perf_counter_ns() / 1e9", {"time": time}),
    ]:
        assert abs(_answer(expr, namespace) - 0.05) < 1e-6, expr


def test_the_real_clocks_come_back():
    ns = {"perf_counter": perf_counter}
    with FakeClock(ns):
        assert time.perf_counter() == 1000.0 and ns["perf_counter"]() == 1000.0
    assert time.perf_counter is perf_counter and ns["perf_counter"] is perf_counter
    assert timeit.default_timer is perf_counter or timeit.default_timer() != 1000.0


def test_odd_values_in_the_namespace_are_left_alone():
    class Unhashable:
        __hash__ = None

    class Raising:
        def __hash__(self):
            raise RuntimeError("no")

    ns = {"a": Unhashable(), "b": Raising(), "c": [perf_counter]}
    with FakeClock(ns):
        pass
    assert ns["c"] == [perf_counter]
