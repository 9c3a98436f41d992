import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal

NUMERIC = np.array([[1.0, 10.0], [3.0, 30.0], [5.0, 20.0], [7.0, 60.0]], dtype="float32")
CITIES = ["Lima", "Oslo", "Lima", "Pune", "Lima", "Oslo"]   # by frequency: Lima, Oslo, Pune
BOUNDARIES = [18.0, 65.0]


def encode(numeric, cities, boundaries, numeric_new, cities_new, ages_new):
    """What the encoder should give, in numpy: normalised numbers, one-hot city ([UNK] first), one-hot age bucket."""
    mean, std = numeric.astype("float64").mean(axis=0), numeric.astype("float64").std(axis=0)
    counts = {c: cities.count(c) for c in cities}
    vocab = ["[UNK]"] + sorted(counts, key=lambda c: -counts[c])
    city = np.zeros((len(cities_new), len(vocab)))
    for i, c in enumerate(cities_new):
        city[i, vocab.index(c) if c in vocab else 0] = 1
    bucket = np.eye(len(boundaries) + 1)[np.searchsorted(boundaries, ages_new, side="right")]
    return np.concatenate([(numeric_new - mean) / std, city, bucket], axis=1).astype("float32")


@pytest.mark.points(5)
@pytest.mark.hint("Adapt Normalization(axis=-1) to the numbers and StringLookup(output_mode=\"one_hot\") to the cities; "
                  "Discretization(bin_boundaries) then CategoryEncoding(len(boundaries) + 1, output_mode=\"one_hot\") for "
                  "the ages; tf.concat the three float32 parts along the last axis.")
def test_encoder_on_new_rows(student, probes):
    """an encoder adapted to 4 rows and 6 cities, applied to 3 new rows (one city it never saw, ages on a boundary)"""
    new = np.array([[4.0, 30.0], [1.0, 10.0], [9.0, 0.0]], dtype="float32")
    cities, ages = ["Oslo", "Quito", "Pune"], [18.0, 70.0, 5.0]
    got = student(probes.features_run, NUMERIC, CITIES, BOUNDARIES, new, cities, ages)
    assert_equal(got["dtype"], "float32", name="the encoded matrix's dtype")
    assert_close(got["out"], encode(NUMERIC, CITIES, BOUNDARIES, new, cities, ages),
                 name="the encoded rows (2 normalised numbers, 4 city slots with [UNK] first, 3 age buckets)",
                 rtol=1e-5, atol=1e-5)
