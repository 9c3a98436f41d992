import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_true


def keras_sgd(inits, grads, lr, momentum, dtype):
    """Keras's SGD with momentum in numpy: velocity = momentum * velocity - lr * g; variable += velocity."""
    values = [np.asarray(a, dtype) for a in inits]
    velocities = [np.zeros_like(v) for v in values]
    history = []
    for step in grads:
        for i, g in enumerate(step):
            if g is not None:
                velocities[i] = (dtype(momentum) * velocities[i] - dtype(lr) * np.asarray(g, dtype)).astype(dtype)
                values[i] = (values[i] + velocities[i]).astype(dtype)
        history.append([v.copy() for v in values])
    return history


@pytest.mark.points(3)
@pytest.mark.hint("velocity = momentum * velocity - learning_rate * grad (velocity starts at zeros), then "
                  "variable.assign_add(velocity): update the velocity first, move by the new one.")
def test_three_steps_like_keras(student, probes):
    """three steps on two float32 variables, against Keras's SGD(0.1, momentum=0.9) in numpy"""
    inits = [np.array([1.0, -2.0], "float32"), np.array([[0.5], [0.25]], "float32")]
    grads = [[np.array([2.0, -4.0], "float32"), np.array([[1.0], [0.5]], "float32")],
             [np.array([1.0, 1.0], "float32"), np.array([[-1.0], [2.0]], "float32")],
             [np.array([0.5, -3.0], "float32"), np.array([[0.0], [1.0]], "float32")]]
    got = student(probes.sgd_run, 0.1, 0.9, inits, grads)
    want = keras_sgd(inits, grads, 0.1, 0.9, np.float32)
    assert_true(type(got) is list and len(got) == 3, "the probe should see the variables after each of the 3 steps")
    for t in range(3):
        assert_close(got[t], want[t], name=f"the variables after step {t + 1}")


@pytest.mark.points(2)
@pytest.mark.hint("Skip a (None, variable) pair, as Keras does; make each velocity with the variable's own shape and dtype "
                  "(tf.zeros_like(var)) the first time the variable gets a gradient.")
def test_none_gradient_and_float64(student, probes):
    """float64 variables, one of which has no gradient in the first step"""
    inits = [np.array([1.0, 2.0, 3.0]), np.array([-1.0])]
    grads = [[np.array([0.5, 0.5, -1.0]), None], [np.array([1.0, 0.0, 0.0]), np.array([3.0])],
             [None, np.array([-1.0])]]
    got = student(probes.sgd_run, 0.05, 0.5, inits, grads, "float64")
    want = keras_sgd(inits, grads, 0.05, 0.5, np.float64)
    assert_true(type(got) is list and len(got) == 3, "the probe should see the variables after each of the 3 steps")
    for t in range(3):
        assert_close(got[t], want[t], name=f"the float64 variables after step {t + 1}")
