import numpy as np
import pytest

from autograder.judge.checks import assert_close


@pytest.mark.points(5)
def test_encoder_random(student, reference, probes, np_rng):
    """an encoder adapted to random numbers and cities (distinct frequencies), on new rows with unknown cities and
    ages on the boundaries"""
    n, width = int(np_rng.integers(6, 13)), int(np_rng.integers(1, 4))
    numeric = (np_rng.normal(size=(n, width)) * np_rng.uniform(1, 20, size=width)).astype("float32")
    names = ["Accra", "Bern", "Cusco", "Dhaka"][: int(np_rng.integers(2, 5))]
    cities = [c for k, c in enumerate(names) for _ in range(k + 1)]
    cities = [cities[i] for i in np_rng.permutation(len(cities))]
    boundaries = sorted(float(b) for b in np_rng.choice(np.arange(10, 80, 5), size=int(np_rng.integers(1, 4)), replace=False))
    m = 6
    numeric_new = (np_rng.normal(size=(m, width)) * 10).astype("float32")
    cities_new = [str(c) for c in np_rng.choice(names + ["Lagos"], size=m)]
    ages_new = np.concatenate([boundaries, np_rng.uniform(0, 90, size=m - len(boundaries))]).astype("float32")
    args = (numeric, cities, boundaries, numeric_new, cities_new, ages_new)
    got, want = student(probes.features_run, *args), reference(probes.features_run, *args)
    assert_close(got, want, name=f"the encoded rows ({width} numbers, {len(names)} known cities, {len(boundaries) + 1} age buckets)",
                 rtol=1e-5, atol=1e-5)
