import io

import pytest
import torch

D = "russet"


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_kwargs)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bfloat16,
                                   torch.bool, torch.complex64, torch.uint8, torch.float64],
                         ids=str)
def test_tensor_roundtrip(dtype):
    c = (torch.arange(12) % 5).reshape(3, 4).to(dtype)
    d = c.to(D)
    back = roundtrip(d)
    assert back.device.type == D and back.dtype == dtype
    assert torch.equal(back.cpu(), c)


def test_map_location_russet_to_cpu_and_back():
    c = torch.randn(5, 3)
    d = c.to(D)
    on_cpu = roundtrip(d, map_location="cpu")
    assert on_cpu.device.type == "cpu"
    assert torch.equal(on_cpu, c)
    on_dev = roundtrip(c, map_location=D)
    assert on_dev.device.type == D
    assert torch.equal(on_dev.cpu(), c)
    on_dev0 = roundtrip(c, map_location=torch.device(D, 0))
    assert on_dev0.device == torch.device(D, 0)
    mapped = roundtrip(d, map_location={"russet:0": "cpu"})
    assert mapped.device.type == "cpu" and torch.equal(mapped, c)


def test_state_dict_roundtrip():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    ref = {k: v.clone() for k, v in m.state_dict().items()}
    m = m.russet()
    sd = roundtrip(m.state_dict())
    for k, v in sd.items():
        assert v.device.type == D, k
        assert torch.equal(v.cpu(), ref[k]), k
    m2 = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    m2.load_state_dict(roundtrip(m.state_dict(), map_location="cpu"))
    for k, v in m2.state_dict().items():
        assert v.device.type == "cpu" and torch.equal(v, ref[k]), k
    m3 = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).russet()
    m3.load_state_dict(roundtrip(ref, map_location=D))
    for k, v in m3.state_dict().items():
        assert v.device.type == D and torch.equal(v.cpu(), ref[k]), k


@pytest.mark.parametrize("map_location", [None, "cpu", D])
def test_views_share_storage_after_load(map_location):
    c = torch.arange(20, dtype=torch.float32)
    d = c.to(D)
    obj = {"base": d, "slice": d[3:9], "t": d.view(4, 5).t(), "other": d[10:].view(2, 5)}
    back = roundtrip(obj, map_location=map_location)
    ptrs = {k: v.untyped_storage().data_ptr() for k, v in back.items()}
    assert len(set(ptrs.values())) == 1, "views must still share one storage"
    want = "cpu" if map_location == "cpu" else D
    for k, v in back.items():
        assert v.device.type == want, k
        assert v.stride() == obj[k].stride() and v.storage_offset() == obj[k].storage_offset(), k
    assert torch.equal(back["slice"].cpu(), c[3:9])
    assert torch.equal(back["t"].cpu(), c.view(4, 5).t())
    back["slice"].fill_(-1)
    assert back["base"].cpu()[3:9].eq(-1).all()


def test_save_to_file(tmp_path):
    d = torch.arange(6, device=D)
    p = tmp_path / "t.pt"
    torch.save({"x": d}, p)
    back = torch.load(p, weights_only=True)
    assert back["x"].device.type == D and torch.equal(back["x"].cpu(), torch.arange(6))


def test_storage_methods():
    d = torch.arange(4, dtype=torch.float32)
    s = d.untyped_storage().russet()
    assert s.is_russet and s.device.type == D
    assert s.nbytes() == 16
    back = s.cpu()
    assert torch.equal(torch.tensor([], dtype=torch.float32).set_(back), d)
