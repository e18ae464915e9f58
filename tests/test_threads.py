"""``threads=``: a large batch split over threads gives the one-thread results to the bit, and a
failed state is reported with its index in the whole batch (`rbdgen.threads`)."""

from __future__ import annotations

import os
import signal
import threading
import warnings

import numpy as np
import pytest

import rbdgen
from rbdgen import threads
from helpers import random_states, solver

#: A batch of three parts at the least size each, and one state more.
N = 3 * threads.MIN_STATES + 1


@pytest.fixture(scope="module")
def panda(compiled):
    s = compiled("panda")
    return s, random_states(s, N, seed=11)


@pytest.mark.parametrize("count", [2, 3, 5])
def test_split_batches_equal_one_thread(panda, count):
    s, st = panda
    for op in ("inverse_dynamics", "forward_dynamics", "mass_matrix"):
        serial = st.call(s, op, threads=1)
        assert np.array_equal(st.call(s, op, threads=count), serial), op
        assert np.array_equal(st.call(s, op), serial), op  # the default: every core
    mask = np.arange(N) % 3 > 0
    serial = s.inverse_dynamics(st.q, st.qd, st.qdd, loads=st.loads, mask=mask, threads=1)
    out = np.empty_like(serial)
    s.inverse_dynamics(st.q, st.qd, st.qdd, loads=st.loads, mask=mask, threads=count, out=out)
    assert np.array_equal(out, serial) and not out[0].any()
    assert all(np.array_equal(a, b) for a, b in zip(s.passive_terms(st.q, st.qd, threads=count).values(),
                                                     s.passive_terms(st.q, st.qd, threads=1).values()))


@pytest.mark.parametrize("bad", [5, threads.MIN_STATES + 7, N - 2])
def test_a_failed_state_is_named_in_the_whole_batch(panda, bad):
    """A state whose velocity overflows the dynamics: the same error and state on any split."""
    s, st = panda
    qd = st.qd.copy()
    qd[bad] = 1e200
    qd[-1] = 1e200  # a later failure in another part does not hide the first
    for count in (1, 2, 3):
        with pytest.raises(rbdgen.NonFiniteError, match=rf"^inverse_dynamics: .* \(state {bad}\)$"):
            s.inverse_dynamics(st.q, qd, st.qdd, threads=count)


def test_parts_are_contiguous_and_small_batches_are_not_split():
    for n, count in ((1, 8), (2 * threads.MIN_STATES - 1, 8), (N, 2), (N, 64), (10**6, 3)):
        parts = threads.parts(n, count)
        assert parts[0][0] == 0 and parts[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
        assert len(parts) == max(1, min(count, n // threads.MIN_STATES))
        assert all(stop - start >= min(n, threads.MIN_STATES) for start, stop in parts)


def test_parts_run_at_once():
    """Two parts meet at a barrier: they run in two threads at the same time."""
    barrier = threading.Barrier(2, timeout=30)
    seen = []

    def part(start, stop):
        barrier.wait()
        seen.append((start, stop))
        return 0

    assert threads.run(part, 2 * threads.MIN_STATES, 2) == 0
    assert sorted(seen) == threads.parts(2 * threads.MIN_STATES, 2)


def test_bad_thread_counts(panda, monkeypatch):
    s, st = panda
    engine = solver("panda")
    for value, error in ((0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError), ("2", TypeError)):
        for which in (s, engine):
            with pytest.raises(error, match="^threads: expected a positive integer"):
                which.gravity(st.q[:3], threads=value)
    monkeypatch.setenv(threads.ENVIRONMENT, "3")
    assert threads.default_threads() == 3
    monkeypatch.setenv(threads.ENVIRONMENT, "all")
    with pytest.raises(ValueError, match="^RBDGEN_THREADS='all': expected a positive integer"):
        s.gravity(st.q, threads=None)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_splits_batches_too():
    """The pool's threads stay in the parent: a child made by fork (multiprocessing's default on Linux) after
    the parent split a batch starts its own pool instead of waiting on threads it does not have."""
    assert threads.run(lambda start, stop: 0, 2 * threads.MIN_STATES, 2) == 0  # the parent's pool exists
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # forking a process with threads
        pid = os.fork()
    if pid == 0:  # the child: exits 7 when two parts met at the barrier; killed by SIGALRM if it hangs
        signal.alarm(60)
        code = 1
        try:
            barrier = threading.Barrier(2, timeout=30)
            code = threads.run(lambda start, stop: barrier.wait() * 0 + 7, 2 * threads.MIN_STATES, 2)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 7, status
