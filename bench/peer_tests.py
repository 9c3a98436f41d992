"""The tests the peer graders run: for every assignment, one test per exercise, 10 points each.

`TESTS[assignment]` lists `(exercise, lines)` in the order of the master's `check("<exercise>")` cells.
The lines are assertions on fixed inputs taken from the kit's public tests (assignments/<id>/public/) or
the notebook's instructions, written as straight-line statements (one statement per line, `;` allowed,
no bare expressions: a value would be doctest output) so that the same list becomes an nbgrader test
cell (the lines as they are) and an otter doctest (each line prefixed with `>>> `).  They are
deliberately simpler than the kit's tests (no hidden random inputs, no cost checks, no device variants):
the benchmark gives the peers the cheapest reasonable test suite, not a handicap.  Tests that train
use small fixed-seed inputs and check properties that hold for any reasonable seed (the loss went
down, shapes, an accuracy above a low bar).  Helper names start with `_` so they do not clobber the
student's.  A test calls its own exercise's functions and the notebook's provided code, and another
exercise's only where the exercise builds on it (04's `fit` is a method of `KerasModel`, its
`book_tasks` trains with the whole house).
"""

from __future__ import annotations

import re

TENSORS: list[tuple[str, list[str]]] = [
    (
        "dtypes",
        [
            "_t = to_float32(np.array([1, 2, 3]))",
            "assert _t.dtype == torch.float32 and torch.equal(_t, torch.tensor([1.0, 2.0, 3.0]))",
            "_c, _k = encode_labels(['dog', 'cat', 'dog', 'bird'])",
            "assert list(_c) == ['bird', 'cat', 'dog'] and torch.equal(_k, torch.tensor([2, 1, 2, 0]))",
            "_u = to_uint8_image(torch.tensor([0.0, 0.25, 0.33, 0.66, 1.0, 1.2, -0.3]))",
            "assert _u.dtype == torch.uint8 and _u.tolist() == [0, 64, 84, 168, 255, 255, 0]",
        ],
    ),
    (
        "shapes",
        [
            "assert describe(torch.zeros(2, 3, dtype=torch.float64)) == {'rank': 2, 'shape': (2, 3), 'numel': 6, 'nbytes': 48}",
            "assert tuple(ensure_batch(torch.zeros(3, 4, 5)).shape) == (1, 3, 4, 5)",
            "assert tuple(ensure_batch(torch.zeros(2, 3, 4, 5)).shape) == (2, 3, 4, 5)",
        ],
    ),
    (
        "views",
        [
            "_x = torch.arange(24.0).view(2, 3, 4)",
            "_f = flatten_rows(_x)",
            "assert tuple(_f.shape) == (2, 12) and _f.data_ptr() == _x.data_ptr()",
            "assert tuple(flatten_rows(_x.transpose(0, 1)).shape) == (3, 8)",
            "assert can_view(torch.arange(6).view(2, 3).t(), (6,)) is False and can_view(torch.arange(6), (2, 3)) is True",
            "_s = swap_last_two(torch.arange(6).view(2, 3))",
            "assert _s.is_contiguous() and _s.tolist() == [[0, 3], [1, 4], [2, 5]]",
        ],
    ),
    (
        "numpy_bridge",
        [
            "_t = torch.zeros(3)",
            "_a = share_to_numpy(_t); _t += 1",
            "assert _a.tolist() == [1.0, 1.0, 1.0]",
            "_b = copy_to_numpy(_t); _t += 1",
            "assert _b.tolist() == [1.0, 1.0, 1.0]",
            "_n = np.arange(3.0); _u = share_from_numpy(_n); _n += 1",
            "assert _u.tolist() == [1.0, 2.0, 3.0]",
            "assert to_python(torch.tensor([[2.5]])) == 2.5 and to_python(torch.eye(2, dtype=torch.int64)) == [[1, 0], [0, 1]]",
        ],
    ),
    (
        "indexing",
        [
            "_X = torch.arange(12.0).view(6, 2); _Y = torch.arange(6.0).view(6, 1)",
            "_xb, _yb = get_batch(_X, _Y, torch.tensor([4, 0]))",
            "assert _xb.tolist() == [[8.0, 9.0], [0.0, 1.0]] and _yb.tolist() == [[4.0], [0.0]]",
            "assert crop_center(torch.arange(25).view(5, 5), 3).tolist() == [[6, 7, 8], [11, 12, 13], [16, 17, 18]]",
            "assert positive_values(torch.tensor([[1.0, -2.0], [0.0, 3.0]])).tolist() == [1.0, 3.0]",
            "_m = torch.tensor([1.0, float('nan'), 3.0])",
            "assert fill_missing(_m, 0.0).tolist() == [1.0, 0.0, 3.0] and torch.isnan(_m[1])",
        ],
    ),
    (
        "gather_scatter",
        [
            "assert torch.allclose(pick(torch.tensor([[0.1, 0.9], [0.8, 0.2]]), torch.tensor([1, 0])), torch.tensor([0.9, 0.8]))",
            "assert one_hot(torch.tensor([2, 0]), 3).tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]",
            "assert scatter_sum(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0, 2, 0]), 3).tolist() == [4.0, 0.0, 2.0]",
        ],
    ),
    (
        "reshape_ops",
        [
            "assert tuple(to_channels_last(torch.zeros(2, 3, 4, 5)).shape) == (2, 4, 5, 3)",
            "assert add_bias_column(torch.zeros(3, 2)).tolist() == [[0.0, 0.0, 1.0]] * 3",
            "_xa, _ya = split_xy(torch.arange(12.0).view(3, 4))",
            "assert tuple(_xa.shape) == (3, 3) and _ya.tolist() == [[3.0], [7.0], [11.0]]",
            "assert tuple(stack_images([torch.zeros(3, 4, 4)] * 5).shape) == (5, 3, 4, 4)",
            "assert tuple(squeeze_last(torch.ones(4, 1)).shape) == (4,) and tuple(squeeze_last(torch.ones(1, 1)).shape) == (1,)",
        ],
    ),
    (
        "reductions",
        [
            "assert abs(float(half_mse(torch.tensor([1.0, 2.0]), torch.tensor([0.0, 0.0]))) - 1.25) < 1e-6",
            "_z = standardize(torch.tensor([[1.0, 10.0], [3.0, 30.0], [5.0, 50.0]]))",
            "assert torch.allclose(_z.mean(0), torch.zeros(2), atol=1e-6) and torch.allclose(_z.std(0), torch.ones(2))",
            "assert top_k_rows(torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4]]), 2).tolist() == [[1, 2], [0, 2]]",
            "assert sort_by_column(torch.tensor([[3.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), 0).tolist() == [[1.0, 1.0], [2.0, 2.0], [3.0, 0.0]]",
        ],
    ),
    (
        "broadcast_matmul",
        [
            "assert linear(torch.ones(4, 2), torch.tensor([[2.0], [-3.0]]), torch.tensor([10.0])).tolist() == [[9.0]] * 4",
            "_x = torch.tensor([[1.0, 2.0]]); _W = torch.tensor([[1.0, 0.0], [0.0, 2.0]])",
            "assert torch.allclose(bilinear(_x, _W, _x), torch.tensor([9.0]))",
            "assert tuple(broadcast_shape((5, 1, 3), (4, 1))) == (5, 4, 3)",
        ],
    ),
    (
        "vectorised",
        [
            "_A = torch.tensor([[0.0, 0.0], [3.0, 4.0]]); _B = torch.tensor([[0.0, 0.0], [6.0, 8.0], [3.0, 4.0]])",
            "assert torch.allclose(pairwise_distances(_A, _B), torch.tensor([[0.0, 10.0, 5.0], [5.0, 5.0, 0.0]]))",
            "assert nearest_neighbor(_A, _B).tolist() == [0, 2]",
        ],
    ),
]

DEVICES: list[tuple[str, list[str]]] = [
    (
        "pick_device",
        [
            "assert pick_device('cpu') == torch.device('cpu') and type(pick_device('cpu')) is torch.device",
            "assert pick_device(torch.device('cpu')) == torch.device('cpu')",
            "assert pick_device() == torch.device('cuda' if torch.cuda.is_available() else 'cpu') and type(pick_device()) is torch.device",
            "assert pick_device('cuda:1') == (torch.device('cuda:1') if torch.cuda.is_available() else torch.device('cpu'))",
        ],
    ),
    (
        "to_device",
        [
            "_X = torch.tensor([[1.0, 2.0], [3.0, 4.0]]); _y = torch.tensor([0, 1])",
            "_o = to_device((_X, _y), 'cpu')",
            "assert type(_o) is tuple and torch.equal(_o[0], _X) and torch.equal(_o[1], _y)",
            "_d = to_device({'x': _X, 'label': [_y], 'id': 'sample-7', 'n': 3}, 'meta')",
            "assert _d['x'].device.type == 'meta' and type(_d['label']) is list and _d['label'][0].device.type == 'meta'",
            "assert _d['label'][0].dtype == torch.int64 and _d['id'] == 'sample-7' and _d['n'] == 3",
            "assert next(to_device(nn.Linear(2, 1), 'meta').parameters()).device.type == 'meta'",
        ],
    ),
    (
        "add_bias_column",
        [
            "assert add_bias_column(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist() == [[1.0, 1.0, 2.0], [1.0, 3.0, 4.0]]",
            "assert add_bias_column(torch.zeros(2, 2, dtype=torch.float64)).dtype == torch.float64",
            "_m = add_bias_column(torch.zeros(4, 2, 3, device='meta'))",
            "assert _m.device.type == 'meta' and tuple(_m.shape) == (4, 2, 4)",
        ],
    ),
    (
        "predict",
        [
            "_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))",
            "_ = _net.load_state_dict({'0.weight': torch.linspace(-1.0, 1.0, 64).reshape(16, 4), '0.bias': torch.linspace(-0.5, 0.5, 16), '3.weight': torch.linspace(1.0, -1.0, 16).reshape(1, 16), '3.bias': torch.tensor([0.25])})",
            "_X = torch.arange(40.0).reshape(10, 4) / 10 - 2",
            "_p = predict(_net, DataLoader(TensorDataset(_X, torch.zeros(10, 1)), batch_size=4), 'cpu')",
            "assert tuple(_p.shape) == (10, 1) and _p.device.type == 'cpu' and not _p.requires_grad and not _net.training",
            "assert torch.allclose(_p.flatten(), torch.tensor([20.106083, 15.500793, 10.895502, 6.2902107, 1.6849204, -3.0558195, -7.6611109, -12.266401, -16.871693, -21.476982]))",
        ],
    ),
    (
        "timing",
        [
            "_calls = []",
            "_r = time_it(lambda: _calls.append(1), 'cpu', 4)",
            "assert len(_calls) == 5 and type(_r) is float and _r >= 0",
            "_s = time_it(lambda: time.sleep(0.05), 'cpu', 2)",
            "assert 0.04 <= _s < 0.5",
            "_m = time_matmul(64, 'cpu', 2)",
            "assert type(_m) is float and _m > 0",
        ],
    ),
    (
        "linear_regression",
        [
            "_m = LinearRegression()",
            "assert [n for n, _ in _m.named_parameters()] == ['w', 'b'] and tuple(_m.w.shape) == (1, 2) and _m.b.tolist() == [[0.0]]",
            "_ = _m.w.data.copy_(torch.tensor([[2.0, -3.0]])); _ = _m.b.data.fill_(10.0)",
            "_X = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 0.0]])",
            "assert _m(_X).tolist() == [[6.0], [6.5], [10.0]]",
            "_h = train_full_batch(_m, _X, torch.tensor([[6.0], [7.0], [9.0]]), 'cpu', epochs=3, lr=0.1)",
            "assert len(_h) == 3 and all(type(v) is float for v in _h) and abs(_h[0] - 1.25 / 3) < 1e-5 and _h[2] < _h[0]",
        ],
    ),
]

AUTOGRAD: list[tuple[str, list[str]]] = [
    (
        "backward",
        [
            "assert torch.allclose(grad_at(lambda t: (t ** 2).sum(), torch.tensor([1.0, 2.0, 3.0])), torch.tensor([2.0, 4.0, 6.0]))",
            "_x = torch.tensor([1.0, 2.0, 3.0])",
            "assert torch.allclose(vjp(lambda t: t ** 2, _x, torch.tensor([1.0, 0.5, -1.0])), torch.tensor([2.0, 2.0, -6.0]))",
            "assert _x.grad is None and not _x.requires_grad and _x.tolist() == [1.0, 2.0, 3.0]",
        ],
    ),
    (
        "higher_order",
        [
            "_y, _d1, _d2 = derivatives(lambda t: t ** 3, torch.tensor([1.0, 2.0, -1.0]))",
            "assert _y.tolist() == [1.0, 8.0, -1.0] and _d1.tolist() == [3.0, 12.0, 3.0] and _d2.tolist() == [6.0, 12.0, -6.0]",
            "assert not (_y.requires_grad or _d1.requires_grad or _d2.requires_grad)",
        ],
    ),
    (
        "several_io",
        [
            "_g = multi_grads(lambda a, b: ((a * b).sum(), (a ** 2).sum()), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))",
            "assert [t.tolist() for t in _g['u']] == [[3.0, 4.0], [1.0, 2.0]]",
            "assert [t.tolist() for t in _g['w']] == [[2.0, 4.0], [0.0, 0.0]]",
            "assert [t.tolist() for t in _g['sum']] == [[5.0, 8.0], [1.0, 2.0]]",
        ],
    ),
    (
        "leaf_hooks",
        [
            "_x, _w, _b = torch.tensor([[1.0, 2.0]]), torch.tensor([[1.0], [1.0]]), torch.tensor([0.5])",
            "_r = inspect_graph(_x, _w, _b)",
            "assert _r['is_leaf'] == [True, True, True, False, False] and _r['requires_grad'] == [False, True, True, True, True]",
            "assert _r['grad_fn'] == [None, None, None, 'AddBackward0', 'MeanBackward0']",
            "assert _r['z_grad'].tolist() == [[7.0]] and _r['w_grad'].tolist() == [[7.0], [14.0]] and _r['b_grad'].tolist() == [7.0]",
            "_wg, _bg = scaled_grads(_x, _w, _b, 0.5)",
            "assert _wg.tolist() == [[3.5], [7.0]] and _bg.tolist() == [3.5]",
        ],
    ),
    (
        "detach_retain",
        [
            "_x = torch.tensor([0.4, 1.6, -2.3], requires_grad=True)",
            "_r = straight_through_round(_x); _ = _r.backward(torch.tensor([1.0, 2.0, 3.0]))",
            "assert _r.tolist() == [0.0, 2.0, -2.0] and _x.grad.tolist() == [1.0, 2.0, 3.0]",
            "_p = predict(torch.tensor([[1.0], [2.0]], requires_grad=True), torch.tensor([[1.0, 1.0], [2.0, 0.0]]))",
            "assert _p.tolist() == [[3.0], [2.0]] and not _p.requires_grad",
            "assert backward_twice(lambda t: (t ** 2).sum(), torch.tensor([1.0, -2.0])).tolist() == [4.0, -8.0]",
        ],
    ),
    (
        "custom_function",
        [
            "assert issubclass(MySigmoid, torch.autograd.Function)",
            "assert torch.allclose(my_sigmoid(torch.tensor([0.0, 1.0, -1.0])), torch.tensor([0.5, 0.7310586, 0.2689414]))",
            "_x = torch.tensor([0.0, 2.0], dtype=torch.float64, requires_grad=True)",
            "_ = MySigmoid.apply(_x).backward(torch.tensor([1.0, 3.0], dtype=torch.float64))",
            "assert torch.allclose(_x.grad, torch.tensor([0.25, 3 * 0.10499358540350662], dtype=torch.float64))",
            "_e = torch.tensor([-1000.0, 1000.0], requires_grad=True)",
            "_s = my_sigmoid(_e); _ = _s.sum().backward()",
            "assert _s.tolist() == [0.0, 1.0] and _e.grad.tolist() == [0.0, 0.0]",
        ],
    ),
    (
        "minimize",
        [
            "_p = minimize_quadratic(0.0, 0.1, 3, 'sgd')",
            "assert _p.dtype == torch.float32 and tuple(_p.shape) == (3,) and torch.allclose(_p, torch.tensor([0.2, 0.36, 0.488]))",
            "_a = minimize_quadratic(3.0, 0.5, 2, optimizer='adam')",
            "assert torch.allclose(_a, torch.tensor([2.5, 2.0087125]))",
        ],
    ),
    (
        "linreg",
        [
            "assert abs(float(linreg_loss(torch.tensor([[1.0], [2.0]]), torch.zeros(2, 1))) - 1.25) < 1e-6",
            "_w = torch.zeros(2, 1, requires_grad=True); _b = torch.zeros(1, 1, requires_grad=True)",
            "_l = [linreg_step(torch.tensor([[1.0, 0.0], [0.0, 1.0]]), torch.tensor([[1.0], [2.0]]), _w, _b, 0.5) for _ in range(2)]",
            "assert all(type(v) is float for v in _l) and abs(_l[0] - 1.25) < 1e-6 and abs(_l[1] - 0.140625) < 1e-6 and _w.is_leaf and _w.requires_grad",
            "assert torch.allclose(_w.detach(), torch.tensor([[0.25], [0.6875]])) and torch.allclose(_b.detach(), torch.tensor([[0.9375]]))",
            "_X, _Y = make_linreg_data(200, seed=1)",
            "_ = torch.manual_seed(0); _w = torch.randn(2, 1, requires_grad=True); _b = torch.zeros(1, 1, requires_grad=True)",
            "_h = fit_linreg(_X, _Y, _w, _b, 0.01, 5, 10, torch.Generator().manual_seed(0))",
            "assert len(_h) == 5 and all(type(v) is float for v in _h) and _h[-1] < _h[0]",
        ],
    ),
    (
        "bce",
        [
            "assert abs(float(bce_loss(torch.tensor([0.5, 0.9]), torch.tensor([1.0, 0.0]))) - (math.log(2) + math.log(10)) / 2) < 1e-5",
            "_l = bce_loss(torch.tensor([0.0, 1.0], dtype=torch.float64), torch.tensor([1.0, 1.0], dtype=torch.float64))",
            "assert _l.dtype == torch.float64 and _l.dim() == 0 and abs(float(_l) - (-math.log(1e-7) - math.log(1 - 1e-7)) / 2) < 1e-9",
        ],
    ),
    (
        "dnn",
        [
            "_m = DNNModel()",
            "assert [(n, tuple(p.shape)) for n, p in _m.named_parameters()] == [('w1', (2, 4)), ('b1', (1, 4)), ('w2', (4, 8)), ('b2', (1, 8)), ('w3', (8, 1)), ('b3', (1, 1))]",
            "assert list(_m.children()) == [] and all(p.dtype == torch.float32 for p in _m.parameters())",
            "_ = _m.load_state_dict({'w1': torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]), 'b1': torch.zeros(1, 4), 'w2': torch.full((4, 8), 0.5), 'b2': torch.zeros(1, 8), 'w3': torch.full((8, 1), 0.25), 'b3': torch.zeros(1, 1)})",
            "assert torch.allclose(_m(torch.tensor([[1.0, -2.0], [-1.0, 3.0]])), torch.tensor([[0.7310586], [0.9525741]]))",
            "_X, _Y = make_rings(200, 200, seed=1)",
            "_ = torch.manual_seed(0); _h = fit_dnn(DNNModel(), _X, _Y, 0.05, 3, 20, torch.Generator().manual_seed(0))",
            "assert len(_h) == 3 and all(type(v) is float for v in _h) and _h[-1] < _h[0]",
        ],
    ),
]

KERNELS: list[tuple[str, list[str]]] = [
    (
        "strides",
        [
            "import unittest",
            "assert contiguous_strides((2, 3, 4)) == (12, 4, 1) and contiguous_strides((2, 0, 3)) == (3, 3, 1) and contiguous_strides(()) == ()",
            "assert element_offset((4, 3), (1, 4), 2, (3, 1)) == 9",
            "_ = unittest.TestCase().assertRaises(IndexError, element_offset, (4, 3), (1, 4), 0, (4, 0))",
            "assert transpose_view((2, 3), (3, 1), 0, 0, 1) == ((3, 2), (1, 3), 0)",
            "assert narrow_view((2, 3), (3, 1), 0, 1, 1, 2) == ((2, 2), (3, 1), 1)",
            "_g = gather_view(torch.arange(6.0), (3, 2), (1, 3), 0)",
            "assert _g.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]] and _g.is_contiguous()",
        ],
    ),
    (
        "c_kernel",
        [
            "import ctypes, unittest",
            "_lib = build_kernels('long add_constant(long a) { return a + 7; }')",
            "_lib.add_constant.restype = ctypes.c_long; _lib.add_constant.argtypes = [ctypes.c_long]",
            "assert _lib.add_constant(1000) == 1007",
            "_x = torch.tensor([-2.0, 0.0, 1.0, 3.0], dtype=torch.float64)",
            "assert torch.allclose(c_silu(_x), torch.nn.functional.silu(_x)) and torch.allclose(c_silu(_x.float()), torch.nn.functional.silu(_x.float()))",
            "_s = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1000.0]])",
            "assert torch.allclose(c_softmax(_s), torch.softmax(_s, -1)) and torch.allclose(c_softmax(_s.t()), torch.softmax(_s.t(), -1))",
            "assert c_softmax(_s.t()).is_contiguous() and c_softmax(_s.double()).dtype == torch.float64",
            "_ = unittest.TestCase().assertRaises(TypeError, c_softmax, torch.ones(2, 2, dtype=torch.int64))",
        ],
    ),
    (
        "custom_op",
        [
            "_x = torch.tensor([[1.0, 2.0, 3.0], [3.0, 1.0, 0.0]], dtype=torch.float64, requires_grad=True)",
            "_y = torch.ops.kernels.softmax(_x)",
            "assert torch.allclose(_y, torch.softmax(_x, -1)) and _y.is_contiguous()",
            "_v = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 0.0]], dtype=torch.float64)",
            "assert torch.allclose(torch.autograd.grad(_y, _x, _v)[0], torch.autograd.grad(torch.softmax(_x, -1), _x, _v)[0])",
            "_m = torch.ops.kernels.softmax(torch.empty(3, 5, device='meta').t())",
            "assert tuple(_m.shape) == (5, 3) and _m.device.type == 'meta' and _m.stride() == (3, 1) and _m.dtype == torch.float32",
        ],
    ),
    (
        "triton",
        [
            "_d = 'cuda' if torch.cuda.is_available() else 'cpu'  # compiled Triton reads CUDA tensors only",
            "_x = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0], [0.0, -1.0, 0.0, 1.0, 0.0]], device=_d); _x0 = _x.clone()",
            "assert torch.allclose(triton_softmax(_x), torch.softmax(_x, -1)) and torch.equal(_x, _x0)",
            "_t = torch.arange(12.0, device=_d).reshape(3, 4) / 4",
            "assert torch.allclose(triton_softmax(_t.t()), torch.softmax(_t.t(), -1)) and triton_softmax(_t.t()).is_contiguous()",
            "assert type(softmax_kernel).__module__.split('.')[0] == 'triton'",
        ],
    ),
    (
        "measure",
        [
            "_calls = []",
            "_t = time_op(lambda x: (_calls.append(1), time.sleep(0.3 if len(_calls) == 1 else 0.01)), torch.zeros(1), 3)",
            "assert len(_calls) == 4 and type(_t) is float and 0.01 <= _t < 0.2",
        ],
    ),
]

COMPONENTS: list[tuple[str, list[str]]] = [
    (
        "running_norm",
        [
            "_n = RunningNorm(2)",
            "assert [k for k, _ in _n.named_parameters()] == ['weight', 'bias'] and [k for k, _ in _n.named_buffers()] == ['running_mean', 'running_var', 'num_batches_tracked']",
            "assert list(_n.state_dict()) == list(nn.BatchNorm1d(2).state_dict()) and _n.num_batches_tracked.dtype == torch.long",
            "_ = _n.load_state_dict({'weight': torch.tensor([2.0, 1.0]), 'bias': torch.tensor([0.5, -1.0]), 'running_mean': torch.zeros(2), 'running_var': torch.ones(2), 'num_batches_tracked': torch.tensor(0)})",
            "_x = torch.tensor([[1.0, 2.0], [3.0, 6.0], [5.0, 7.0]])",
            "_out = _n(_x)",
            "assert torch.allclose(_out, torch.tensor([[-1.9494852, -2.3887286], [0.5, -0.5370905], [2.9494848, -0.0741809]]), atol=1e-4)",
            "assert torch.allclose(_n.running_mean, torch.tensor([0.3, 0.5])) and torch.allclose(_n.running_var, torch.tensor([1.3, 1.6])) and int(_n.num_batches_tracked) == 1",
            "_ = _n.eval(); _e = _n(_x)",
            "assert torch.allclose(_e, (_x - torch.tensor([0.3, 0.5])) / torch.sqrt(torch.tensor([1.3, 1.6]) + 1e-5) * torch.tensor([2.0, 1.0]) + torch.tensor([0.5, -1.0]), atol=1e-5)",
            "assert int(_n.num_batches_tracked) == 1",
        ],
    ),
    (
        "module_tools",
        [
            "_net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1, bias=False))",
            "assert count_parameters(_net) == 12 and count_parameters(_net, trainable_only=True) == 12 and type(count_parameters(_net)) is int",
            "assert freeze(_net, ['0.']) == ['0.weight', '0.bias']",
            "assert count_parameters(_net, trainable_only=True) == 3 and count_parameters(_net) == 12",
            "_snap = snapshot(_net); _w0 = _net[2].weight.detach().clone(); _p = _net[2].weight",
            "_ = _net[2].weight.data.add_(1.0)",
            "assert list(_snap) == list(_net.state_dict()) and torch.equal(_snap['2.weight'], _w0)",
            "_ = restore(_net, _snap)",
            "assert torch.equal(_net[2].weight.detach(), _w0) and _net[2].weight is _p",
        ],
    ),
    (
        "linear",
        [
            "_l = Linear(3, 2)",
            "_ = _l.weight.data.copy_(torch.tensor([[1.0, 0.0, -1.0], [2.0, 1.0, 0.5]])); _ = _l.bias.data.copy_(torch.tensor([0.5, -1.0]))",
            "_x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], requires_grad=True)",
            "_out = _l(_x); _ = _out.sum().backward()",
            "assert _out.tolist() == [[-1.5, 4.5], [-3.5, 0.0]] and _l.bias.grad.tolist() == [2.0, 2.0]",
            "assert _l.weight.grad.tolist() == [[1.0, 1.0, 7.0], [1.0, 1.0, 7.0]] and _x.grad.tolist() == [[3.0, 1.0, -0.5], [3.0, 1.0, -0.5]]",
            "assert Linear(3, 2, bias=False).bias is None and [k for k, _ in Linear(3, 2, bias=False).named_parameters()] == ['weight']",
            "_ = torch.manual_seed(0); _mine = Linear(4, 3); _ = torch.manual_seed(0); _ref = nn.Linear(4, 3)",
            "assert torch.allclose(_mine.weight, _ref.weight) and torch.allclose(_mine.bias, _ref.bias)",
            "assert torch.equal(ReLU()(torch.tensor([-1.0, 0.0, 2.0])), torch.tensor([0.0, 0.0, 2.0]))",
            "_s = Sequential(Linear(2, 3), ReLU(), Linear(3, 1))",
            "assert [k for k, _ in _s.named_parameters()] == ['0.weight', '0.bias', '2.weight', '2.bias'] and tuple(_s(torch.zeros(5, 2)).shape) == (5, 1)",
        ],
    ),
    (
        "losses",
        [
            "_a = torch.tensor([[1.0, 2.0], [3.0, 4.0]]); _b = torch.tensor([[0.0, 2.0], [5.0, 1.0]])",
            "assert float(mse_loss(_a, _b)) == 3.5 and float(mse_loss(_a, _b, 'sum')) == 14.0 and mse_loss(_a, _b, reduction='none').tolist() == [[1.0, 0.0], [4.0, 9.0]]",
            "_z = torch.tensor([-1000.0, -100.0, -2.0, 0.5, 100.0, 1000.0], requires_grad=True); _y = torch.tensor([1.0, 0.0, 0.25, 1.0, 0.0, 1.0])",
            "_l = bce_with_logits(_z, _y, reduction='none'); _ = _l.sum().backward()",
            "assert torch.allclose(_l, torch.tensor([1000.0, 0.0, 0.6269280, 0.4740770, 100.0, 0.0])) and torch.allclose(_z.grad, torch.tensor([-1.0, 0.0, -0.1307971, -0.3775407, 1.0, 0.0]))",
            "assert torch.allclose(bce_with_logits(_z, _y), _l.mean()) and torch.allclose(bce_with_logits(_z, _y, 'sum'), _l.sum())",
        ],
    ),
    (
        "sgd",
        [
            "_p = torch.tensor([1.0, -2.0], requires_grad=True); _o = SGD([_p], lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1)",
            "assert isinstance(_o, torch.optim.Optimizer)",
            "_p.grad = torch.tensor([0.5, 1.0]); _ = _o.step()",
            "assert torch.allclose(_p.detach(), torch.tensor([0.94, -2.08])) and torch.allclose(_o.state[_p]['momentum_buffer'], torch.tensor([0.6, 0.8]))",
            "_p.grad = torch.tensor([-1.0, 2.0]); _ = _o.step()",
            "assert torch.allclose(_o.state[_p]['momentum_buffer'], torch.tensor([0.087, 1.616])) and torch.allclose(_p.detach(), torch.tensor([0.9313, -2.2416]))",
        ],
    ),
    (
        "adam",
        [
            "_p = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True); _o = Adam([_p], lr=0.1)",
            "assert isinstance(_o, torch.optim.Optimizer)",
            "_p.grad = torch.tensor([0.5, -1.0], dtype=torch.float64); _ = _o.step()",
            "assert torch.allclose(_p.detach(), torch.tensor([0.9, -1.9], dtype=torch.float64))",
            "_p.grad = torch.tensor([0.1, 2.0], dtype=torch.float64); _ = _o.step()",
            "assert float(_o.state[_p]['step']) == 2.0 and torch.allclose(_o.state[_p]['exp_avg'], torch.tensor([0.055, 0.11], dtype=torch.float64))",
            "assert torch.allclose(_o.state[_p]['exp_avg_sq'], torch.tensor([0.00025975, 0.004999], dtype=torch.float64))",
            "assert torch.allclose(_p.detach(), torch.tensor([0.8196959063846518, -1.9366103534720749], dtype=torch.float64))",
        ],
    ),
    (
        "ring_dataset",
        [
            "_ds = RingDataset(3, 2, seed=0)",
            "assert isinstance(_ds, Dataset) and len(_ds) == 5 and _ds.X.dtype == torch.float32 and _ds.Y.tolist() == [[1.0], [1.0], [1.0], [0.0], [0.0]]",
            "assert torch.allclose(_ds.X, torch.tensor([[-6.2884288, 1.8000810], [-3.1718161, -3.4772682], [-1.6423575, 2.2938812], [-8.5104733, -0.9949105], [-2.6511736, -7.7701392]]), atol=1e-5)",
            "_x4, _y4 = _ds[4]",
            "assert torch.allclose(_x4, torch.tensor([-2.6511736, -7.7701392]), atol=1e-5) and _y4.tolist() == [0.0]",
        ],
    ),
    (
        "loaders",
        [
            "_b = collate_rings([(torch.tensor([3.0, 4.0]), torch.tensor([1.0])), (torch.tensor([0.0, -2.0]), torch.tensor([0.0]))])",
            "assert sorted(_b) == ['r', 'x', 'y'] and _b['x'].tolist() == [[3.0, 4.0], [0.0, -2.0]] and _b['y'].tolist() == [[1.0], [0.0]] and _b['r'].tolist() == [[5.0], [2.0]]",
            "_ds = TensorDataset(torch.arange(20.0).reshape(10, 2), torch.arange(10.0).reshape(10, 1))",
            "_tr, _va = make_loaders(_ds, 0.3, 4, 0)",
            "assert (len(_tr.dataset), len(_va.dataset)) == (7, 3) and [b['x'].shape[0] for b in _tr] == [4, 3] and [b['x'].shape[0] for b in _va] == [3]",
            "assert next(iter(_va))['y'].tolist() == [[8.0], [6.0], [2.0]]",
            "_ = torch.manual_seed(123); _ys1 = [b['y'].tolist() for b in make_loaders(_ds, 0.3, 4, 0)[0]]",
            "_ = torch.manual_seed(7); _ys2 = [b['y'].tolist() for b in make_loaders(_ds, 0.3, 4, 0)[0]]",
            "assert _ys1 == _ys2",
        ],
    ),
    (
        "linear_regression",
        [
            "_X, _y = make_linear_data(400, seed=0)",
            "_ = torch.manual_seed(0); _m = train_linear_regression(_X, _y)",
            "assert type(_m) is nn.Linear and tuple(_m.weight.shape) == (1, 2)",
            "assert abs(_m.weight[0, 0].item() - 2) < 0.2 and abs(_m.weight[0, 1].item() + 3) < 0.2 and abs(_m.bias.item() - 10) < 0.5",
        ],
    ),
    (
        "ring_classifier",
        [
            "_ = torch.manual_seed(0); _c = RingClassifier()",
            "assert [(k, tuple(p.shape)) for k, p in _c.named_parameters()] == [('fc1.weight', (4, 2)), ('fc1.bias', (4,)), ('fc2.weight', (8, 4)), ('fc2.bias', (8,)), ('fc3.weight', (1, 8)), ('fc3.bias', (1,))]",
            "assert isinstance(_c.loss_fn, nn.BCEWithLogitsLoss) and isinstance(_c.optimizer, torch.optim.Adam) and _c.optimizer is _c.optimizer",
            "_l = train_step(_c, torch.tensor([[5.0, 0.0], [0.0, 8.0]]), torch.tensor([[1.0], [0.0]]))",
            "assert type(_l) is float and all(int(_c.optimizer.state[p]['step']) == 1 for p in _c.parameters())",
            "_g = torch.Generator().manual_seed(0); _r = torch.cat([5 + torch.randn(1000, 1, generator=_g), 8 + torch.randn(1000, 1, generator=_g)]); _t = 2 * math.pi * torch.rand(2000, 1, generator=_g)",
            "_X = torch.cat([_r * torch.cos(_t), _r * torch.sin(_t)], 1); _Y = torch.cat([torch.ones(1000, 1), torch.zeros(1000, 1)])",
            "_ = torch.manual_seed(0); _c = train_ring_classifier(_X, _Y)",
            "assert not _c.training and tuple(_c.predict(_X).shape) == (2000, 1) and (_c.predict(_X) == _Y).float().mean().item() >= 0.85",
        ],
    ),
]

FIT_API: list[tuple[str, list[str]]] = [
    (
        "metrics",
        [
            "_a = BinaryAccuracy()",
            "_r1 = _a(torch.tensor([[2.0], [-1.0], [0.3], [0.0]]), torch.tensor([[1.0], [0.0], [0.0], [0.0]])); _r2 = _a(torch.tensor([[-0.2]]), torch.tensor([[1.0]]))",
            "assert _r1.dtype == torch.float32 and _r1.dim() == 0 and abs(_r1.item() - 0.75) < 1e-6 and _r2.item() == 0.0 and abs(_a.compute().item() - 0.6) < 1e-6",
            "_ = _a.reset(); _ = _a(torch.tensor([0.4, -3.0]), torch.tensor([1.0, 0.0]))",
            "assert _a.compute().item() == 1.0",
            "_e = MeanAbsoluteError()",
            "_r1 = _e(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.zeros(2, 2)); _r2 = _e(torch.tensor([[-1.0]]), torch.tensor([[1.0]]))",
            "assert abs(_r1.item() - 2.5) < 1e-6 and abs(_r2.item() - 2.0) < 1e-6 and abs(_e.compute().item() - 2.4) < 1e-6 and _e.compute().dtype == torch.float32",
            "_ = _e.reset(); _ = _e(torch.tensor([0.5, 0.5]), torch.tensor([0.0, 1.5]))",
            "assert abs(_e.compute().item() - 0.75) < 1e-6",
        ],
    ),
    (
        "run_epoch",
        [
            "_net = nn.Linear(1, 1); _ = _net.weight.data.fill_(1.0); _ = _net.bias.data.zero_()",
            "_M = type('_M', (), {'reset': lambda self: setattr(self, 'n', 0), '__call__': lambda self, p, t: setattr(self, 'n', self.n + len(t)), 'compute': lambda self: self.n})",
            "_data = [(torch.ones(4, 1), torch.zeros(4, 1)), (torch.full((1, 1), 2.0), torch.zeros(1, 1))]; _md = {'count': _M()}",
            "_r = run_epoch(_net, nn.MSELoss(), _data, _md); _r2 = run_epoch(_net, nn.MSELoss(), _data, _md)",
            "assert _r == {'loss': 2.5, 'count': 5.0} and list(_r) == ['loss', 'count'] and _r2 == _r and not _net.training and _net.weight.item() == 1.0",
            "_o = torch.optim.SGD(_net.parameters(), lr=0.1)",
            "_t = run_epoch(_net, nn.MSELoss(), [(torch.ones(4, 1), torch.zeros(4, 1))], None, _o)",
            "assert _t == {'loss': 1.0} and _net.training and abs(_net.weight.item() - 0.8) < 1e-6",
        ],
    ),
    (
        "early_stopping",
        [
            "import unittest",
            "assert [best_index([5.0, 3.0, 4.0, 4.0][:k]) for k in range(1, 5)] == [0, 1, 1, 1]",
            "assert [should_stop([5.0, 3.0, 4.0, 4.0][:k], 2) for k in range(1, 5)] == [False, False, False, True]",
            "assert [best_index([1.0, 3.0, 3.0, 2.0][:k], 'max') for k in range(1, 5)] == [0, 1, 1, 1]",
            "assert [should_stop([1.0, 3.0, 3.0, 2.0][:k], 1, mode='max') for k in range(1, 5)] == [False, False, True, True]",
            "assert best_index(np.array([2.0, 1.0, 1.0])) == 1 and best_index(pd.Series([2.0, 1.0, 1.0])) == 1",
            "_ = unittest.TestCase().assertRaises(ValueError, best_index, [1.0], 'avg')",
        ],
    ),
    (
        "keras_model",
        [
            "import io, os, sys, tempfile",
            "_net = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Dropout(0.5), nn.Linear(3, 1))",
            "_ = _net.load_state_dict({'0.weight': torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]), '0.bias': torch.zeros(3), '3.weight': torch.ones(1, 3), '3.bias': torch.zeros(1)})",
            "_km = KerasModel(_net, nn.MSELoss(), device='cpu')",
            "assert _km.net is _net and _km.device == torch.device('cpu') and isinstance(_km.optimizer, torch.optim.Adam) and _km.metrics_dict == {} and _km.lr_scheduler is None",
            "_o = torch.optim.SGD(_net.parameters(), lr=0.05); _k2 = KerasModel(_net, device='cpu')",
            "assert _k2.compile(nn.L1Loss(), None, _o) is _k2 and _k2.optimizer is _o and isinstance(_k2.loss_fn, nn.L1Loss)",
            "_X = torch.linspace(-2.0, 2.0, 14).reshape(7, 2); _want = torch.tanh(_X).sum(dim=1, keepdim=True)",
            "_p = _km.predict(DataLoader(TensorDataset(_X), batch_size=3))",
            "assert torch.allclose(_p, _want, atol=1e-6) and _p.device.type == 'cpu' and not _p.requires_grad",
            "assert torch.allclose(_km.predict([_X[:4], _X[4:]]), _want, atol=1e-6)",
            "_ev = _km.evaluate(DataLoader(TensorDataset(_X, torch.zeros(7, 1)), batch_size=7))",
            "assert list(_ev) == ['val_loss'] and abs(_ev['val_loss'] - (_want ** 2).mean().item()) < 1e-5",
            "_stdout, sys.stdout = sys.stdout, io.StringIO()",
            "_s = _km.summary(); _printed = sys.stdout.getvalue(); sys.stdout = _stdout",
            "assert list(_s.columns) == ['name', 'shape', 'numel', 'trainable'] and _s['name'].tolist() == ['0.weight', '0.bias', '3.weight', '3.bias'] and _s['numel'].tolist() == [6, 3, 3, 1]",
            "assert _printed.strip().splitlines()[-1] == 'total parameters: 13 (trainable: 13)'",
            "_ckpt = os.path.join(tempfile.mkdtemp(), 'zeros.pt'); _ = torch.save({k: torch.zeros_like(v) for k, v in _net.state_dict().items()}, _ckpt)",
            "_ = _km.load_ckpt(_ckpt)",
            "assert _net[3].weight.detach().abs().sum().item() == 0.0",
        ],
    ),
    (
        "fit",
        [
            "import os, tempfile",
            "_ckpt = os.path.join(tempfile.mkdtemp(), 'best.pt')",
            "_net = nn.Linear(1, 1, bias=False); _ = _net.weight.data.zero_()",
            "_km = KerasModel(_net, nn.MSELoss(), optimizer=torch.optim.SGD(_net.parameters(), lr=0.25), device='cpu')",
            "_h = _km.fit([(torch.ones(4, 1), torch.ones(4, 1))], [(torch.ones(4, 1), torch.zeros(4, 1))], epochs=10, ckpt_path=_ckpt, patience=2, verbose=False)",
            "assert type(_h) is pd.DataFrame and list(_h.columns) == ['epoch', 'train_loss', 'lr', 'val_loss'] and _h['epoch'].tolist() == [1, 2, 3]",
            "assert _h['train_loss'].tolist() == [1.0, 0.25, 0.0625] and _h['val_loss'].tolist() == [0.25, 0.5625, 0.765625] and _h['lr'].tolist() == [0.25] * 3",
            "assert _net.weight.item() == 0.5 and os.path.isfile(_ckpt)",
            "_h = _km.fit([(torch.ones(4, 1), torch.ones(4, 1))], epochs=2, ckpt_path=_ckpt, verbose=False)",
            "assert list(_h.columns) == ['epoch', 'train_loss', 'lr'] and _h['epoch'].tolist() == [1, 2] and _net.weight.item() == 0.875",
        ],
    ),
    (
        "plot_history",
        [
            "_fig = plot_history(pd.DataFrame({'epoch': [1, 2, 3], 'train_loss': [3.0, 2.0, 1.5], 'lr': [0.1, 0.1, 0.1], 'val_loss': [3.5, 2.5, 2.0]}), 'loss')",
            "_ax = _fig.axes[0]",
            "assert isinstance(_fig, matplotlib.figure.Figure) and len(_fig.axes) == 1 and [l.get_label() for l in _ax.get_lines()] == ['train_loss', 'val_loss']",
            "assert list(_ax.get_lines()[0].get_xdata()) == [1, 2, 3] and list(_ax.get_lines()[1].get_ydata()) == [3.5, 2.5, 2.0]",
            "assert _ax.get_xlabel() == 'epoch' and _ax.get_ylabel() == 'loss' and _ax.get_legend() is not None",
            "_ = plt.close(_fig)",
        ],
    ),
    (
        "book_tasks",
        [
            "_lm, _lh = train_linreg(lin_dl_train, lin_dl_val)",
            "assert type(_lm).__name__ == 'KerasModel' and isinstance(_lm.net, nn.Linear)",
            "assert list(_lh.columns) == ['epoch', 'train_loss', 'train_mae', 'lr', 'val_loss', 'val_mae']",
            "assert (_lm.net.weight.detach().cpu() - torch.tensor([[2.0, -3.0]])).abs().max().item() <= 0.25 and abs(_lm.net.bias.item() - 10.0) <= 1.0",
            "_rm, _rh = train_rings(ring_dl_train, ring_dl_val)",
            "assert type(_rm).__name__ == 'KerasModel' and [type(m).__name__ for m in _rm.net] == ['Linear', 'ReLU', 'Linear', 'ReLU', 'Linear'] and isinstance(_rm.loss_fn, nn.BCEWithLogitsLoss)",
            "assert list(_rh.columns) == ['epoch', 'train_loss', 'train_acc', 'lr', 'val_loss', 'val_acc']",
            "_g = torch.Generator().manual_seed(99); _r = torch.cat([5 + torch.randn(1000, 1, generator=_g), 8 + torch.randn(1000, 1, generator=_g)]); _t = 2 * np.pi * torch.rand(2000, 1, generator=_g)",
            "_X = torch.cat([_r * torch.cos(_t), _r * torch.sin(_t)], 1); _Y = torch.cat([torch.ones(1000, 1), torch.zeros(1000, 1)])",
            "assert ((_rm.net.to('cpu')(_X).detach() > 0).float() == _Y).float().mean().item() >= 0.88",
        ],
    ),
]

# The TensorFlow track: the same conventions (TensorFlow's own ops build the fixed inputs).
TF_DEVICES = [
    (
        "inventory",
        [
            "_i = inventory()",
            "assert _i['physical_cpus'] == len(tf.config.list_physical_devices('CPU')) and _i['physical_gpus'] == len(tf.config.list_physical_devices('GPU'))",
            "assert _i['logical'] == [_d.name for _d in tf.config.list_logical_devices()]",
        ],
    ),
    (
        "pick_device",
        [
            "assert pick_device('/CPU:1') == '/device:CPU:1' and pick_device('cpu:2') == '/device:CPU:2'",
            "assert pick_device('/device:CPU:9') == '/device:CPU:0' and pick_device('/GPU:7') == '/device:CPU:0'",
            "assert pick_device() == ('/device:GPU:0' if tf.config.list_logical_devices('GPU') else '/device:CPU:0')",
        ],
    ),
    (
        "placement",
        [
            "_a = tf.identity(tf.range(4.0))",
            "_b = copy_to(_a, '/CPU:1')",
            "assert device_of(_a) == '/device:CPU:0' and device_of(_b) == '/device:CPU:1' and _b.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]",
        ],
    ),
    (
        "data_parallel",
        [
            "_cpus = [_d.name for _d in tf.config.list_logical_devices('CPU')]",
            "_x = tf.reshape(tf.range(21.0), [7, 3]); _s, _p = parallel_sum(_x, _cpus)",
            "assert np.allclose(_s.numpy(), tf.reduce_sum(_x, axis=0).numpy()) and [tf.DeviceSpec.from_string(_q.device).device_index for _q in _p] == list(range(len(_cpus)))",
            "_A = tf.random.stateless_normal([10, 4], seed=[1, 2]); _B = tf.random.stateless_normal([4, 3], seed=[3, 4]); _C, _parts = parallel_matmul(_A, _B, _cpus)",
            "assert np.allclose(_C.numpy(), (_A @ _B).numpy(), atol=1e-5) and len(_parts) == len(_cpus)",
        ],
    ),
    (
        "linear_regression",
        [
            "_w, _b = make_linear('/CPU:1')",
            "assert device_of(_w) == '/device:CPU:1' and tuple(_w.shape) == (2, 1) and tuple(_b.shape) == (1,)",
            "_l = [float(linreg_step(_w, _b, X_lin, y_lin, 0.01, '/CPU:1')) for _ in range(300)]",
            "assert _l[-1] < _l[0] and np.allclose(_w.numpy().ravel(), [2.0, -3.0], atol=0.2)",
        ],
    ),
    (
        "ring_forward",
        [
            "_p = {'w1': tf.ones([2, 4]), 'b1': tf.zeros([4]), 'w2': tf.ones([4, 8]), 'b2': tf.zeros([8]), 'w3': -tf.ones([8, 1]) / 32.0, 'b3': tf.ones([1])}",
            "_y = ring_forward(_p, X_ring[:5], '/CPU:2')",
            "_h = np.maximum(np.maximum(X_ring[:5] @ np.ones((2, 4)), 0) @ np.ones((4, 8)), 0) @ (-np.ones((8, 1)) / 32.0) + 1.0",
            "assert device_of(_y) == '/device:CPU:2' and tuple(_y.shape) == (5, 1) and np.allclose(_y.numpy(), 1 / (1 + np.exp(-_h)), atol=1e-5)",
        ],
    ),
]

TF_BRICKS = [
    (
        "tensors",
        [
            "_v = tf.Variable([1.0, 2.0])",
            "_r = scale_in_place(_v, 3.0)",
            "assert _r is _v and _v.numpy().tolist() == [3.0, 6.0]",
            "_w = tf.Variable([0.0, 0.0]); _s = running_sum(_w, [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])])",
            "assert [x.numpy().tolist() for x in _s] == [[1.0, 2.0], [4.0, 6.0]] and _w.numpy().tolist() == [4.0, 6.0]",
            "_m = int_mean(tf.constant([1, 2]))",
            "assert _m.dtype == tf.float32 and abs(float(_m) - 1.5) < 1e-6",
        ],
    ),
    (
        "broadcasting",
        [
            "_c = center_columns(tf.constant([[1.0, 10.0], [3.0, 20.0]]))",
            "assert _c.numpy().tolist() == [[-1.0, -5.0], [1.0, 5.0]]",
            "_d = pairwise_sq_dists(tf.constant([[0.0, 0.0], [1.0, 1.0]]), tf.constant([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]]))",
            "assert _d.shape == (2, 3) and _d.numpy().tolist() == [[1.0, 4.0, 25.0], [1.0, 2.0, 13.0]]",
        ],
    ),
    (
        "tape",
        [
            "_y, _g = value_and_grad(lambda _x: tf.reduce_sum(_x ** 3), tf.constant([1.0, 2.0]))",
            "assert abs(float(_y) - 9.0) < 1e-5 and _g.numpy().tolist() == [3.0, 12.0]",
            "_a, _b = two_grads(lambda _x: tf.reduce_sum(_x ** 2), lambda _x: tf.reduce_sum(tf.sin(_x)), tf.constant([0.0, 1.0]))",
            "assert np.allclose(_a.numpy(), [0.0, 2.0]) and np.allclose(_b.numpy(), np.cos([0.0, 1.0]))",
        ],
    ),
    (
        "higher_order",
        [
            "_y, _d1, _d2 = derivatives(lambda _x: _x ** 3, tf.constant([1.0, 2.0]))",
            "assert np.allclose(_y.numpy(), [1.0, 8.0]) and np.allclose(_d1.numpy(), [3.0, 12.0]) and np.allclose(_d2.numpy(), [6.0, 12.0])",
        ],
    ),
    (
        "stop_gradient",
        [
            "_x = tf.constant([0.2, 1.7, -2.6])",
            "_th, _ = tf.test.compute_gradient(straight_through_round, [_x])",
            "assert np.allclose(straight_through_round(_x).numpy(), [0.0, 2.0, -3.0]) and np.allclose(_th[0], np.eye(3))",
        ],
    ),
    (
        "tracing",
        [
            "_g, _tr = make_traced(lambda _x: _x * 2)",
            "_o = [_g(tf.constant([1.0, 2.0])), _g(tf.constant([3.0, 4.0])), _g(tf.constant([1.0, 2.0, 3.0]))]",
            "assert len(_tr) == 2 and _o[1].numpy().tolist() == [6.0, 8.0]",
            "_cc = CallCounter(); _s = [_cc(tf.constant([1.0, 2.0])) for _ in range(3)]",
            "assert int(_cc.calls.numpy()) == 3 and float(_s[0]) == 3.0",
        ],
    ),
    (
        "signature",
        [
            "_st, _pm = make_standardize(), make_power_mean()",
            "_r = [_st(tf.range(_n, dtype=tf.float32)) for _n in (3, 4, 5)]",
            "assert _st.experimental_get_tracing_count() == 1 and np.allclose(_r[0].numpy(), [-1.2247449, 0.0, 1.2247449], atol=1e-5)",
            "_q = [_pm(tf.constant([1.0, 2.0, 4.0]), _p) for _p in (1.0, 2.0, 3.0)]",
            "assert _pm.experimental_get_tracing_count() == 1 and abs(float(_q[0]) - 7.0 / 3.0) < 1e-5",
        ],
    ),
    (
        "autograph",
        [
            "_ps = make_prefix_sum()",
            "_r = [float(_ps(tf.constant(_v, dtype=tf.float32))) for _v in ([1.0, 2.0, -1.0, 5.0], [1.0, 2.0, 3.0], [-1.0, 4.0], [])]",
            "assert _r == [3.0, 6.0, 0.0, 0.0] and _ps.experimental_get_tracing_count() == 1",
        ],
    ),
    (
        "linreg",
        [
            "assert abs(float(linreg_loss(tf.constant([[1.0], [3.0]]), tf.constant([[0.0], [1.0]]))) - 1.25) < 1e-6",
            "_w = tf.Variable(tf.zeros([2, 1])); _b = tf.Variable(tf.zeros([1, 1]))",
            "_h = fit_linreg(X_reg, Y_reg, _w, _b, keras.optimizers.SGD(learning_rate=0.01), epochs=5, batch_size=40, seed=0)",
            "assert len(_h) == 5 and _h[-1] < _h[0] and np.allclose(_w.numpy().ravel(), [2.0, -3.0], atol=0.3)",
        ],
    ),
    (
        "dnn",
        [
            "_ = tf.random.set_seed(0)",
            "_m = DNNModel()",
            "assert sorted(tuple(_v.shape) for _v in _m.trainable_variables) == [(1, 1), (1, 4), (1, 8), (2, 4), (4, 8), (8, 1)]",
            "_h = fit_dnn(_m, X_ring, Y_ring, keras.optimizers.Adam(learning_rate=0.05), epochs=5, batch_size=100, seed=0)",
            "assert len(_h) == 5 and _h[-1] < _h[0] and accuracy(_m(X_ring), Y_ring) >= 0.85",
        ],
    ),
]

TF_WALLS: list[tuple[str, list[str]]] = [
    (
        "dense_layer",
        [
            "_l = MyDense(3, activation='relu')",
            "assert len(_l.weights) == 0",
            "_x = np.arange(10.0, dtype='float32').reshape(2, 5) - 4.0; _y = _l(_x)",
            "assert [tuple(w.shape) for w in _l.weights] == [(5, 3), (3,)] and tuple(_y.shape) == (2, 3)",
            "_ = _l.set_weights([np.ones((5, 3), 'float32'), np.array([0.0, -1.0, -20.0], 'float32')])",
            "assert np.allclose(_l(_x).numpy(), [[0.0, 0.0, 0.0], [15.0, 14.0, 0.0]])",
            "assert _l.get_config()['units'] == 3 and _l.get_config()['activation'] == 'relu'",
            "assert tuple(MyDense(4)(np.ones((2, 3, 7), 'float32')).shape) == (2, 3, 4)",
        ],
    ),
    (
        "huber_loss",
        [
            "_t = tf.constant([[0.0, 0.0], [1.0, 1.0]]); _p = tf.constant([[0.5, 3.0], [1.0, -1.0]])",
            "assert np.allclose(Huber()(_t, _p).numpy(), 1.03125)",
            "assert np.allclose(Huber(reduction='none')(_t, _p, sample_weight=tf.constant([2.0, 0.5])).numpy(), [2.625, 0.375])",
            "assert np.allclose(Huber(delta=2.0, reduction='sum')(_t, _p).numpy(), 3.0625)",
        ],
    ),
    (
        "accuracy_metric",
        [
            "_m = ThresholdAccuracy()",
            "_ = _m.update_state([[1.0], [0.0], [1.0], [1.0]], [[0.9], [0.2], [0.4], [0.6]]); _ = _m.update_state([[0.0]], [[0.7]])",
            "assert abs(float(_m.result()) - 0.6) < 1e-6 and [v.name for v in _m.variables] == ['total', 'count']",
            "_ = _m.reset_state()",
            "assert float(_m.result()) == 0.0",
            "_ = _m.update_state([[0.0], [1.0]], [[0.1], [0.55]], sample_weight=[1.0, 2.0])",
            "assert abs(float(_m.result()) - 1.0) < 1e-6",
        ],
    ),
    (
        "momentum_sgd",
        [
            "_v = tf.Variable([1.0, -2.0]); _o = MomentumSGD(learning_rate=0.1, momentum=0.9)",
            "_ = _o.apply_gradients([(tf.constant([2.0, -4.0]), _v)])",
            "assert np.allclose(_v.numpy(), [0.8, -1.6])",
            "_ = _o.apply_gradients([(tf.constant([1.0, 1.0]), _v)])",
            "assert np.allclose(_v.numpy(), [0.52, -1.34])",
        ],
    ),
    (
        "pipeline",
        [
            "_ds = make_dataset(np.arange(10.0).reshape(10, 1), np.arange(10), batch_size=4, shuffle=False)",
            "assert [b.numpy().tolist() for _, b in _ds] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0]]",
            "_ds = make_dataset(np.arange(10.0).reshape(10, 1), np.arange(10), batch_size=4, seed=1)",
            "_e1 = [v for _, b in _ds for v in b.numpy().tolist()]; _e2 = [v for _, b in _ds for v in b.numpy().tolist()]",
            "assert sorted(_e1) == sorted(_e2) == [float(i) for i in range(10)] and _e1 != _e2",
            "_e3 = [v for _, b in make_dataset(np.arange(10.0).reshape(10, 1), np.arange(10), batch_size=4, seed=1) for v in b.numpy().tolist()]",
            "assert _e3 == _e1",
        ],
    ),
    (
        "features",
        [
            "_enc = make_feature_encoder(np.array([[1.0, 10.0], [3.0, 30.0]], 'float32'), ['Paris', 'Lima', 'Paris'], [18.0, 65.0])",
            "_out = _enc(np.array([[2.0, 20.0], [3.0, 10.0]], 'float32'), ['Oslo', 'Lima'], np.array([40.0, 70.0], 'float32'))",
            "assert np.allclose(_out.numpy(), [[0, 0, 1, 0, 0, 0, 1, 0], [1, -1, 0, 0, 1, 0, 0, 1]], atol=1e-5)",
        ],
    ),
    (
        "linear_regression",
        [
            "_X, _y = make_linear_data()",
            "_w = train_linear_regression(_X, _y).get_weights()",
            "assert abs(_w[0][0, 0] - 2) < 0.4 and abs(_w[0][1, 0] + 3) < 0.4 and abs(_w[1][0] - 10) < 0.5",
        ],
    ),
    (
        "ring_classifier",
        [
            "assert [type(l).__name__ for l in build_ring_classifier().layers] == ['Dense', 'Dense', 'Dropout', 'Dense']",
            "_X, _y = make_ring_data(1000, 1000, seed=1); _Xv, _yv = make_ring_data(1000, 1000, seed=2)",
            "_clf = train_ring_classifier(_X, _y); _p = np.asarray(predict_rings(_clf, _Xv))",
            "assert np.array_equal(_p, np.asarray(predict_rings(_clf, _Xv))) and ((_p > 0.5) == (_yv > 0.5)).mean() >= 0.85",
        ],
    ),
]

TF_HOUSE = [
    (
        "house_model",
        [
            "_ = keras.utils.set_random_seed(0)",
            "_m = HouseModel(keras.Sequential([keras.Input((2,)), layers.Dense(1)]), 'sigmoid')",
            "_ = _m.compile(optimizer=keras.optimizers.SGD(0.1), loss=keras.losses.BinaryCrossentropy(from_logits=True), metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)])",
            "_x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -3.0], [2.0, 2.0]], dtype='float32'); _y = np.array([[1.0], [0.0], [0.0], [1.0]], dtype='float32')",
            "_h = _m.fit(_x, _y, epochs=3, batch_size=4, verbose=0).history",
            "assert sorted(_h) == ['binary_accuracy', 'loss'] and len(_h['loss']) == 3 and _h['loss'][-1] < _h['loss'][0]",
            "_w = [_a.copy() for _a in _m.get_weights()]; _e = _m.evaluate(_x, _y, verbose=0, return_dict=True)",
            "assert all(np.array_equal(_a, _b) for _a, _b in zip(_w, _m.get_weights())) and sorted(_e) == ['binary_accuracy', 'loss']",
            "assert np.allclose(_m.predict(_x, verbose=0), 1 / (1 + np.exp(-(_x @ _w[0] + _w[1]))), atol=1e-5)",
        ],
    ),
    (
        "callbacks",
        [
            "_mm = keras.Sequential([keras.Input((1,)), layers.Dense(1)]); _mm.stop_training = False; _cb = StopAtThreshold('loss', 0.5, 'min'); _ = _cb.set_model(_mm)",
            "_ = _cb.on_train_begin(); _ = _cb.on_epoch_end(0, {'loss': 0.9})",
            "assert not _mm.stop_training and _cb.stopped_epoch is None",
            "_ = _cb.on_epoch_end(1, {'loss': 0.4})",
            "assert _mm.stop_training and _cb.stopped_epoch == 1",
            "_mm.stop_training = False; _c2 = StopAtThreshold('val_acc', 0.8, 'max'); _ = _c2.set_model(_mm); _ = _c2.on_train_begin()",
            "_ = _c2.on_epoch_end(0, {'val_acc': 0.7}); _ = _c2.on_epoch_end(1, {'val_acc': 0.85})",
            "assert _mm.stop_training and _c2.stopped_epoch == 1",
        ],
    ),
    (
        "fit_callbacks",
        [
            "_ = keras.utils.set_random_seed(0)",
            "_x = np.linspace(-1, 1, 40, dtype='float32')[:, None]; _y = 3 * _x + 1",
            "_m = keras.Sequential([keras.Input((1,)), layers.Dense(1)]); _ = _m.compile(optimizer=keras.optimizers.SGD(0.1), loss='mse')",
            "_p = os.path.join(tempfile.mkdtemp(), 'best.weights.h5')",
            "_h = train_house(_m, _x, _y, epochs=30, batch_size=10, patience=2, ckpt_path=_p)",
            "assert 'val_loss' in _h.history and os.path.exists(_p)",
            "_best = min(_h.history['val_loss'])",
            "assert abs(_m.evaluate(_x[30:], _y[30:], verbose=0) - _best) < 1e-4",
            "_m2 = keras.models.clone_model(_m); _ = _m2.compile(loss='mse'); _ = _m2.load_weights(_p)",
            "assert abs(_m2.evaluate(_x[30:], _y[30:], verbose=0) - _best) < 1e-4",
        ],
    ),
    (
        "book_tasks",
        [
            "_lm = train_linreg(*linreg_data(300, seed=0)); _xt, _yt = linreg_data(1000, seed=1)",
            "assert float(np.mean((_lm.predict(_xt, verbose=0) - _yt) ** 2)) <= 5.0",
            "_rm = train_rings(*rings_data(300, seed=0)); _xr, _yr = rings_data(1000, seed=1)",
            "assert float(np.mean((_rm.predict(_xr, verbose=0) > 0.5) == _yr)) >= 0.85",
        ],
    ),
]

TF_KERNELS: list[tuple[str, list[str]]] = [
    (
        "registry",
        [
            "assert 'CPU' in kernel_devices('Softmax') and kernel_devices('Softmax') == sorted(set(kernel_devices('Softmax')))",
            "assert has_kernel('Softmax', 'CPU', tf.float32) is True and has_kernel('Softmax', 'CPU', tf.int32) is False",
            "assert dense_strides((2, 3, 4)) == (12, 4, 1) and dense_strides((3, 0, 2)) == (2, 2, 1)",
        ],
    ),
    (
        "custom_op",
        [
            "_x = tf.constant([[1.0, 2.0, 3.0], [1000.0, 999.0, -5.0]])",
            "assert np.allclose(kit_ops.kit_silu(_x, beta=2.0).numpy(), (_x * tf.sigmoid(2.0 * _x)).numpy())",
            "assert np.allclose(kit_ops.kit_log_sum_exp(_x).numpy(), tf.reduce_logsumexp(_x, axis=-1).numpy())",
            "_s = tf.function(kit_ops.kit_log_sum_exp).get_concrete_function(tf.TensorSpec([None, 4, None])).structured_outputs.shape",
            "assert _s.as_list() == [None, 4]",
        ],
    ),
    (
        "gradient",
        [
            "_x = tf.constant([[0.5, -1.0, 2.0]], dtype=tf.float64)",
            "_th, _nu = tf.test.compute_gradient(kit_ops.kit_log_sum_exp, [_x])",
            "assert np.allclose(_th[0], tf.nn.softmax(_x).numpy().T.reshape(_th[0].shape), atol=1e-6)",
            "assert max_gradient_error('silu', tf.constant([[0.5, -1.0]], tf.float64)) < 1e-4",
        ],
    ),
    (
        "function_layer",
        [
            "_f = make_lse_graph(); _a = _f(tf.ones([2, 3])); _b = _f(tf.ones([4, 5]))",
            "assert _f.experimental_get_tracing_count() == 1 and np.allclose(_b.numpy(), np.log(5.0) + 1)",
            "_l = KitSiluLayer(beta=2.0); _c = KitSiluLayer.from_config(_l.get_config())",
            "assert _c.get_config()['beta'] == 2.0 and np.allclose(_l(tf.ones([1, 2])).numpy(), 1 / (1 + np.exp(-2.0)))",
        ],
    ),
    (
        "training",
        [
            "_X, _Y = make_rings(200, 200, seed=0); _m = fit_rings(_X, _Y, 0); _Xe, _Ye = make_rings(200, 200, seed=1)",
            "assert float(np.mean(np.argmax(_m(_Xe).numpy(), -1) == _Ye.numpy())) >= 0.9",
            "assert abs(float(logcosh_loss(tf.constant([[1.0]]), tf.constant([[0.0]]))) - np.log(np.cosh(1.0))) < 1e-5",
        ],
    ),
    (
        "gpu",
        [
            "assert 'KitSiluKernel' in op_source() and 'DEVICE_GPU' in op_source()",
        ],
    ),
    (
        "measure",
        [
            "_t = time_op(lambda _v: _v * 2, tf.ones([3]), repeat=3)",
            "assert isinstance(_t, float) and _t >= 0",
        ],
    ),
]

TESTS: dict[str, list[tuple[str, list[str]]]] = {
    "00_devices": DEVICES,
    "01_tensors": TENSORS,
    "02_autograd": AUTOGRAD,
    "02b_kernels": KERNELS,
    "03_components": COMPONENTS,
    "04_fit_api": FIT_API,
    "tf00_devices": TF_DEVICES,
    "tf01_bricks": TF_BRICKS,
    "tf02b_kernels": TF_KERNELS,
    "tf03_walls": TF_WALLS,
    "tf04_house": TF_HOUSE,
}

POINTS = 10

# The kit's notebooks start with `from autograder.student.selfcheck import Checker; check = Checker(...)`;
# in the peers' venvs a stub package provides it (check() does nothing, as in the kit's workers).
SELFCHECK_STUB = '''"""Benchmark stub: the kit's in-notebook check() does nothing under a peer grader."""
from autograder.execute.quiet import quiet_stderr  # noqa: F401  (a TensorFlow notebook's setup cell imports it from here)


class Checker:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return None

    def passed(self, *exercises):  # demos run once their exercise passes: never, as in the kit's workers
        return False
'''


_CHECK_LINE = re.compile(r'^check\("([^"]+)"\)\s*$', re.M)


def exercise_of_check_cell(source: str) -> str | None:
    """The exercise a master's code cell checks: a line `check("<exercise>")` (alone, or after the
    exercise's demo code as in 03_components), else None."""
    found = _CHECK_LINE.findall(source)
    return found[-1] if found else None
