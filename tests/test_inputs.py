"""Hostile buffers and values at the Python API: they are copied, rejected or computed, never crash.

Both engines (the NumPy engine and the compiled solver, with its single-state entry
points) see the same cases: read-only, memory-mapped, misaligned, byte-swapped and
strided arrays as inputs and as ``out=``, and values that would lose information
(bool, complex, strings, objects), which are a TypeError naming the argument.
Models without a moving joint (J = 0) work everywhere, checked against Pinocchio.
"""

from __future__ import annotations

import numpy as np
import pytest

import rbdgen
from helpers import assert_close, random_states
from models import body
from rbdgen.testing import ARGUMENTS, PinocchioReference

FIXED, FLOATING = "panda", "solo12"


@pytest.fixture(params=["numpy", "compiled"])
def engine(request, compiled):
    """``engine(name)``: the NumPy engine or the compiled solver of test robot ``name``."""
    if request.param == "numpy":
        from helpers import solver
        return solver
    return compiled


def _state(s, n=None, seed=3):
    """``(head, {name: array})``: one state (n None) or a batch of n."""
    st = random_states(s, n or 1, seed)
    pick = (lambda x: x[0]) if n is None else (lambda x: x)
    head = st.head(0 if n is None else None)
    return head, {k: pick(getattr(st, k)) for k in ("q", "qd", "qdd", "tau")}


def _call(s, op, head, arrays, convert=lambda x: x, **kwargs):
    return getattr(s, op)(*head, *(convert(arrays[n]) for n in ARGUMENTS[op]), **kwargs)


# -- odd buffers ------------------------------------------------------------------------------
def misaligned(x):
    """A copy of ``x`` at an odd address (a float64 view one byte into a buffer)."""
    raw = np.zeros(x.nbytes + 1, np.uint8)
    view = raw[1:].view(x.dtype).reshape(x.shape)
    view[...] = x
    assert not view.flags.aligned
    return view


def read_only(x):
    y = x.copy()
    y.flags.writeable = False
    return y


def memmap(tmp_path, x, mode):
    """``x`` written to a file and mapped back (``mode`` "r": read-only)."""
    path = tmp_path / f"mm{np.random.default_rng().integers(1 << 30)}.bin"
    np.ascontiguousarray(x, np.float64).tofile(path)
    return np.memmap(path, dtype=np.float64, mode=mode, shape=x.shape)


INPUT_FORMS = {
    "misaligned": misaligned,
    "byte-swapped": lambda x: x.astype(x.dtype.newbyteorder()),
    "strided": lambda x: np.repeat(x, 2, axis=-1)[..., ::2],
    "read-only": read_only,
    "bytes buffer": lambda x: np.frombuffer(np.ascontiguousarray(x).tobytes()).reshape(x.shape),
    "Fortran order": np.asfortranarray,
    "float32": lambda x: x.astype(np.float32),
    "list": lambda x: x.tolist(),
}


@pytest.mark.parametrize("batch", [None, 3])
@pytest.mark.parametrize("form", list(INPUT_FORMS))
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_odd_input_buffers_give_the_plain_result(engine, name, form, batch):
    """Every readable buffer of real numbers is accepted; the result is the plain arrays' (float32: its values')."""
    s = engine(name)
    head, arrays = _state(s, batch)
    convert = INPUT_FORMS[form]
    if form == "float32":  # the values change; compare with the float64 arrays of the same values
        exact = lambda x: np.asarray(x).astype(np.float32).astype(np.float64)  # noqa: E731
        arrays = {k: exact(v) for k, v in arrays.items()}
        head = tuple(rbdgen.BaseState(*(exact(getattr(b, f)) for f in
                                        ("translation", "rotation_xyzw", "velocity", "acceleration"))) for b in head)
    for op in ("mass_matrix", "inverse_dynamics", "forward_dynamics"):
        expected = _call(s, op, head, arrays)
        assert np.array_equal(_call(s, op, head, arrays, convert), expected), op
        if s.floating:
            odd = rbdgen.BaseState(*(convert(np.asarray(getattr(head[0], f))) for f in
                                     ("translation", "rotation_xyzw", "velocity", "acceleration")))
            assert np.array_equal(_call(s, op, (odd,), arrays), expected), op
    if form != "list":  # loads are Load objects or an array
        loads = np.random.default_rng(1).normal(size=((batch,) if batch else ()) + (s.link_count, 6))
        loads = loads.astype(np.float32).astype(np.float64)  # exact in float32 too
        expected = _call(s, "gravity", head, arrays, loads=loads)
        assert np.array_equal(_call(s, "gravity", head, arrays, loads=convert(loads)), expected)


def test_memmapped_inputs(engine, tmp_path):
    s = engine(FIXED)
    head, arrays = _state(s, 4)
    expected = s.inverse_dynamics(arrays["q"], arrays["qd"], arrays["qdd"])
    for mode in ("r", "r+"):
        mapped = [memmap(tmp_path, arrays[k], mode) for k in ("q", "qd", "qdd")]
        assert np.array_equal(s.inverse_dynamics(*mapped), expected)
        assert np.array_equal(s.inverse_dynamics(*(m[0] for m in mapped)), expected[0])


def test_misaligned_and_swapped_inputs_are_copied_before_the_c(compiled, monkeypatch):
    """The compiled solver's general path hands the C aligned, native float64 arrays only
    (the entry points copy every array that is not one, see ``pyentry.h``)."""
    c = compiled(FLOATING)
    head, arrays = _state(c, 2)
    seen = []
    evaluate = type(c)._evaluate

    def spy(self, op, inputs, *rest):
        seen.extend(inputs.values())
        return evaluate(self, op, inputs, *rest)

    monkeypatch.setattr(type(c), "_evaluate", spy)
    base = rbdgen.BaseState(misaligned(head[0].translation), head[0].rotation_xyzw.astype(">f8"),
                            misaligned(head[0].velocity), head[0].acceleration)
    type(c).inverse_dynamics(c, base, misaligned(arrays["q"]), arrays["qd"].astype(">f8"), arrays["qdd"],
                             loads=misaligned(np.ones((c.link_count, 6))))
    assert seen and all(a.flags.aligned and a.dtype == np.float64 and a.dtype.isnative for a in seen)


# -- out= ---------------------------------------------------------------------------------------
def _bad_outs(tmp_path, shape):
    """(label, array) pairs that must be rejected as ``out=`` for a result of ``shape``."""
    mapped = memmap(tmp_path, np.zeros(shape), "r")
    return [
        ("read-only", read_only(np.zeros(shape))),
        ("read-only memmap", mapped),
        ("immutable bytes", np.frombuffer(bytes(8 * int(np.prod(shape)))).reshape(shape)),
        ("misaligned", misaligned(np.zeros(shape))),
        ("byte-swapped", np.zeros(shape, ">f8")),
        ("float32", np.zeros(shape, np.float32)),
        ("int", np.zeros(shape, np.int64)),
        ("wrong shape", np.zeros(shape + (1,))),
        ("a list", np.zeros(shape).tolist()),
    ] + ([("flat", np.zeros(int(np.prod(shape))))] if len(shape) > 1 else [])


@pytest.mark.parametrize("batch", [None, 2])
@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_bad_out_is_a_value_error_naming_out(engine, tmp_path, name, batch):
    s = engine(name)
    head, arrays = _state(s, batch)
    for op in ("mass_matrix", "inverse_dynamics"):
        expected = _call(s, op, head, arrays)
        for label, out in _bad_outs(tmp_path, expected.shape):
            before = np.array(out, copy=True)
            with pytest.raises(ValueError, match=r"^out: expected a writeable, aligned float64 array of shape"):
                _call(s, op, head, arrays, out=out)
            assert np.array_equal(np.asarray(out), before), (op, label)  # untouched


@pytest.mark.parametrize("name", [FIXED, FLOATING])
def test_good_out_forms(engine, tmp_path, name):
    """Strided, Fortran-ordered and writeable memory-mapped ``out=`` receive the result."""
    s = engine(name)
    head, arrays = _state(s, 3)
    expected = _call(s, "mass_matrix", head, arrays)
    for out in (np.zeros(expected.shape + (2,))[..., 0], np.asfortranarray(np.zeros(expected.shape)),
                memmap(tmp_path, np.zeros(expected.shape), "r+")):
        assert _call(s, "mass_matrix", head, arrays, out=out) is out
        assert np.array_equal(out, expected)


def test_out_overlapping_an_input(engine):
    """``out=`` may be one of the inputs: the result is as if it were not."""
    s = engine(FIXED)
    _, arrays = _state(s, 4)
    expected = s.inverse_dynamics(arrays["q"], arrays["qd"], arrays["qdd"])
    qdd = arrays["qdd"].copy()
    assert s.inverse_dynamics(arrays["q"], arrays["qd"], qdd, out=qdd) is qdd
    assert np.array_equal(qdd, expected)
    single = arrays["qdd"][1].copy()
    s.inverse_dynamics(arrays["q"][1], arrays["qd"][1], single, out=single)
    assert np.array_equal(single, expected[1])


# -- values that lose information ------------------------------------------------------------------
NOT_REAL = {
    "complex": lambda x: np.asarray(x) + 0j,
    "strings": lambda x: [str(v) for v in np.ravel(x)] if np.ndim(x) == 1 else np.asarray(x).astype(str),
    "objects": lambda x: np.asarray(x, dtype=object),
    "bool": lambda x: np.asarray(x) != 0,
}


@pytest.mark.parametrize("kind", list(NOT_REAL))
def test_non_real_arrays_are_type_errors(engine, kind):
    convert = NOT_REAL[kind]
    p = engine(FIXED)
    _, arrays = _state(p)
    message = r"expected real numbers \(float or integer\), got an array of"
    for k, name in enumerate(ARGUMENTS["inverse_dynamics"]):
        args = [arrays[n] for n in ARGUMENTS["inverse_dynamics"]]
        args[k] = convert(args[k])
        with pytest.raises(TypeError, match=rf"^{name}: {message}"):
            p.inverse_dynamics(*args)
    with pytest.raises(TypeError, match=rf"^loads: {message}"):
        p.gravity(arrays["q"], loads=convert(np.zeros((p.link_count, 6))))
    for field in ("torque", "force"):
        with pytest.raises(TypeError, match=rf"^load {field} on link 'panda_hand': {message}"):
            p.gravity(arrays["q"], loads=[rbdgen.Load("panda_hand", **{field: convert(np.ones(3))})])
    s = engine(FLOATING)
    head, arrays = _state(s)
    fields = {"translation": "base translation", "rotation_xyzw": "base rotation_xyzw",
              "velocity": "base velocity", "acceleration": "base acceleration"}
    for field, label in fields.items():
        values = {f: getattr(head[0], f) for f in fields}
        values[field] = convert(values[field])
        with pytest.raises(TypeError, match=rf"^{label}: {message}"):
            s.mass_matrix(rbdgen.BaseState(**values), arrays["q"])


def test_bool_scalars_and_links_are_type_errors(engine):
    s = engine(FLOATING)
    head, arrays = _state(s)
    base = head[0]
    for field in ("velocity", "acceleration"):
        for flag in (False, True, np.False_):
            with pytest.raises(TypeError, match=rf"^base {field}: expected real numbers"):
                s.mass_matrix(rbdgen.BaseState(base.translation, base.rotation_xyzw, **{field: flag}), arrays["q"])
    for link in (True, False, np.True_):
        with pytest.raises(TypeError, match=r"^loads: a Load's link is a link name or an integer id, got"):
            s.gravity(base, arrays["q"], loads=[rbdgen.Load(link, (1.0, 0, 0))])
    with pytest.raises(TypeError, match=r"^q: expected real numbers \(float or integer\), got an array of bool$"):
        s.mass_matrix(base, [True, False] * (s.joint_count // 2))
    with pytest.raises(TypeError, match=r"^loads: a Load's link is a link name or an integer id, got 1.0"):
        s.gravity(base, arrays["q"], loads=[rbdgen.Load(1.0, (1.0, 0, 0))])


def test_mask_of_the_wrong_dtype_is_a_type_error(engine):
    s = engine(FIXED)
    _, arrays = _state(s, 3)
    for mask in ([1, 0, 1], np.array([1.0, 0.0, 1.0]), ["yes", "no", "yes"]):
        with pytest.raises(TypeError, match=r"^mask: expected a boolean array, got an array of"):
            s.gravity(arrays["q"], mask=mask)


def test_integers_are_converted_exactly(engine):
    s = engine(FIXED)
    q = [0, 1, 0, -1, 0, 1, 0]
    expected = s.mass_matrix(np.array(q, dtype=float))
    for form in (q, np.array(q, np.int8), np.array(q, np.int64), np.array(q, np.int32)):
        assert np.array_equal(s.mass_matrix(form), expected)
    assert np.array_equal(s.mass_matrix(np.array([0, 1, 0, 1, 0, 1, 0], np.uint16)),
                          s.mass_matrix([0.0, 1, 0, 1, 0, 1, 0]))
    with pytest.raises(ValueError, match=r"^q: integer beyond 2\*\*53 has no exact float64 value$"):
        s.mass_matrix(np.array([2**53 + 1, 0, 0, 0, 0, 0, 0]))


# -- no moving joint -----------------------------------------------------------------------------------
WELDED = """<robot name="welded">
  <link name="base"><inertial><mass value="3"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="tool"><inertial><origin xyz="0 0 0.1"/><mass value="0.5"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="weld" type="fixed"><parent link="base"/><child link="tool"/><origin xyz="0.2 0 0"/></joint>
</robot>"""


def _static_models(tmp_path):
    """(urdf path, floating): a fixed model with only a welded link, and a lone floating body."""
    welded, lone = tmp_path / "welded.urdf", tmp_path / "lone.urdf"
    welded.write_text(WELDED)
    lone.write_text(body(2.0, (0.1, 0.2, 0.3), com="0.1 -0.05 0.02", name="lone"))
    return [(welded, False), (lone, True)]


def test_models_without_moving_joints(tmp_path, build_model):
    """J = 0: a 0x0 (fixed) or 6x6 (floating) mass matrix and empty/6-vectors, in both engines, as Pinocchio."""
    rng = np.random.default_rng(5)
    for path, floating in _static_models(tmp_path):
        model = rbdgen.load_urdf(path, floating=floating)
        G = 6 if floating else 0
        assert (model.joint_count, model.generalized_count) == (0, G)
        ref = PinocchioReference(str(path), floating)
        quat = rng.normal(size=4)
        base = (rng.normal(size=3), quat / np.linalg.norm(quat), rng.normal(size=6), rng.normal(size=6))
        ref_base = base if floating else None
        head = (rbdgen.BaseState(*base),) if floating else ()
        empty, tau = np.zeros(0), rng.normal(size=G)
        loads = np.zeros((len(model.links), 6))
        loads[-1] = rng.normal(size=6)  # the welded tool, or the lone body
        ref_loads = [(model.link_names[-1], loads[-1, :3], loads[-1, 3:])]
        expected = {
            "mass_matrix": ref.mass_matrix(ref_base, empty),
            "velocity_product_forces": ref.velocity_product_forces(ref_base, empty, empty),
            "gravity": ref.gravity(ref_base, empty, ref_loads),
            "inverse_dynamics": ref.inverse_dynamics(ref_base, empty, empty, empty, ref_loads),
        }
        engines = [rbdgen.NumpySolver(model),
                   build_model(model, prefix=f"static_{int(floating)}", ops=None)]
        for s in engines:
            for op, value in expected.items():
                kwargs = {"loads": loads} if op in ("gravity", "inverse_dynamics") else {}
                got = getattr(s, op)(*head, *([empty] * len(ARGUMENTS[op])), **kwargs)
                assert got.shape == value.shape == (((G, G) if op == "mass_matrix" else (G,)))
                if floating:
                    assert_close(got, value, 1e-12, op)
                batch_head = (rbdgen.BaseState(*(np.tile(b, (2, 1)) for b in base)),) if floating else ()
                batch = getattr(s, op)(*batch_head, *([np.zeros((2, 0))] * len(ARGUMENTS[op])), **kwargs)
                assert batch.shape == (2,) + value.shape and np.array_equal(batch[1], got)
            for op in ("forward_dynamics", "forward_dynamics_crba"):
                acc = getattr(s, op)(*head, empty, empty, tau, loads=loads)
                assert acc.shape == (G,)
                if floating:  # forward dynamics inverts inverse dynamics: ID(acc) = tau
                    moved = (rbdgen.BaseState(base[0], base[1], base[2], acc),)
                    assert_close(s.inverse_dynamics(*moved, empty, empty, empty, loads=loads), tau, 1e-12, op)
            terms = s.passive_terms(*head, empty, empty)
            assert terms["mass_matrix"].shape == (G, G)
        if floating:
            assert np.linalg.eigvalsh(expected["mass_matrix"]).min() > 0
        functions = rbdgen.generate(model, ops=["mass_matrix", "inverse_dynamics"])
        M = functions.casadi("mass_matrix")
        assert (M.size1_out(0), M.size2_out(0)) == (G, G)
        ID = functions.casadi("inverse_dynamics")
        assert (ID.size1_out(0), ID.size2_out(0)) == (G, 1)
        if floating:
            tau = np.asarray(ID(np.concatenate(base), empty, empty, empty, loads.ravel())).ravel()
            assert_close(tau, expected["inverse_dynamics"], 1e-12, "casadi")
