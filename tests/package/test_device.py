"""Device choice: cuda, then mps, then cpu; COURSE_DEVICE overrides. Availability is faked."""

import pytest
import torch

from embedding_course import device


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(device.DEVICE_ENV_VAR, raising=False)


def fake(monkeypatch, cuda: bool, mps: bool):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(device, "_mps_available", lambda: mps)


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [(True, True, "cuda"), (True, False, "cuda"), (False, True, "mps"), (False, False, "cpu")],
)
def test_automatic_order_is_cuda_then_mps_then_cpu(monkeypatch, no_env, cuda, mps, expected):
    fake(monkeypatch, cuda, mps)
    assert device.pick_device().type == expected


def test_environment_variable_forces_cpu_even_with_a_gpu(monkeypatch):
    fake(monkeypatch, cuda=True, mps=True)
    monkeypatch.setenv(device.DEVICE_ENV_VAR, "cpu")
    assert device.pick_device().type == "cpu"


def test_environment_variable_is_case_and_space_insensitive(monkeypatch):
    fake(monkeypatch, cuda=True, mps=False)
    monkeypatch.setenv(device.DEVICE_ENV_VAR, "  CUDA ")
    assert device.pick_device().type == "cuda"


def test_argument_wins_over_environment(monkeypatch):
    fake(monkeypatch, cuda=False, mps=True)
    monkeypatch.setenv(device.DEVICE_ENV_VAR, "cpu")
    assert device.pick_device("mps").type == "mps"


def test_unknown_device_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(device.DEVICE_ENV_VAR, "tpu")
    with pytest.raises(ValueError, match=r"unknown device 'tpu'.*allowed: cuda, mps, cpu"):
        device.pick_device()


@pytest.mark.parametrize("name", ["cuda", "mps"])
def test_requesting_a_missing_gpu_says_so(monkeypatch, no_env, name):
    fake(monkeypatch, cuda=False, mps=False)
    with pytest.raises(ValueError, match=f"'{name}' was requested but torch sees no"):
        device.pick_device(name)


def test_build_info_names_device_and_versions(monkeypatch, no_env):
    fake(monkeypatch, cuda=False, mps=False)
    info = device.build_info()
    assert info["device"] == "cpu"
    assert info["torch"] == torch.__version__
    assert set(info) == {"device", "device_name", "torch", "python"}


def test_build_info_names_the_processor_not_its_architecture(monkeypatch, no_env, tmp_path):
    fake(monkeypatch, cuda=False, mps=False)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9R14\n")
    assert device.cpu_name(cpuinfo) == "AMD EPYC 9R14"
    # without the file (not Linux), or without a model name (some arm64 systems): what Python knows
    monkeypatch.setattr(device.platform, "processor", lambda: "")
    monkeypatch.setattr(device.platform, "machine", lambda: "aarch64")
    no_model = tmp_path / "arm"
    no_model.write_text("processor\t: 0\nBogoMIPS\t: 50.00\n")
    assert device.cpu_name(no_model) == device.cpu_name(tmp_path / "missing") == "aarch64"
    monkeypatch.setattr(device, "cpu_name", lambda: "AMD EPYC 9R14")
    assert device.build_info()["device_name"] == "AMD EPYC 9R14"


def test_build_info_names_the_gpu(monkeypatch, no_env):
    fake(monkeypatch, cuda=True, mps=False)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda _device: "Fake GPU 9000")
    assert device.build_info()["device_name"] == "Fake GPU 9000"


def test_to_numpy_reads_trainable_tensors_lists_and_arrays():
    weight = torch.nn.Parameter(torch.arange(6.0).reshape(2, 3))  # requires a gradient
    with pytest.raises(RuntimeError):
        weight.numpy()  # what the helper is for (a GPU tensor fails the same way)
    array = device.to_numpy(weight)
    assert array.shape == (2, 3) and array.dtype == "float32"
    assert device.to_numpy([[1, 2]], dtype=float).dtype == "float64"
    assert device.to_numpy(array) is array
