"""The OWL-ViT + CLIP path end to end with tiny random-weight models built here (no download):
photo → weighted scene → clingo answer; the scene validates like any other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from qlang.commands.main import cli

transformers = pytest.importorskip("transformers")


def _tokenizer() -> object:
    """A CLIP tokenizer over single letters: enough to turn prompts into ids."""
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = {t: i for i, t in enumerate([*letters, *(c + "</w>" for c in letters),
                                         "<|startoftext|>", "<|endoftext|>"])}
    return transformers.CLIPTokenizer(vocab=vocab, merges=[])


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    import torch

    torch.manual_seed(0)
    root = tmp_path_factory.mktemp("tiny")
    text = {"vocab_size": 54, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 2, "max_position_embeddings": 64, "bos_token_id": 52,
            "eos_token_id": 53, "pad_token_id": 53}
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 2, "image_size": 64, "patch_size": 16}
    side = {"height": 64, "width": 64}
    clip, owl = root / "clip", root / "owlvit"
    transformers.CLIPModel(transformers.CLIPConfig(text_config=text, vision_config=vision,
                                                   projection_dim=16)).save_pretrained(clip)
    transformers.CLIPProcessor(image_processor=transformers.CLIPImageProcessor(
        size={"shortest_edge": 64}, crop_size=side), tokenizer=_tokenizer()).save_pretrained(clip)
    # OWL-ViT's class head matches image patches against text embeddings of the text width
    transformers.OwlViTForObjectDetection(transformers.OwlViTConfig(
        text_config=text, vision_config=vision, projection_dim=32)).save_pretrained(owl)
    transformers.OwlViTProcessor(image_processor=transformers.OwlViTImageProcessor(
        size=side, crop_size=side), tokenizer=_tokenizer()).save_pretrained(owl)
    return owl, clip


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import numpy as np
    from PIL import Image

    path = tmp_path_factory.mktemp("photo") / "patches.png"
    pixels = np.full((96, 128, 3), 230, dtype=np.uint8)
    pixels[20:70, 10:60] = (200, 30, 30)
    pixels[40:90, 70:120] = (40, 70, 210)
    Image.fromarray(pixels).save(path)
    return path


def test_owlvit_and_clip_make_a_scene_that_clingo_answers(weights: tuple[Path, Path], photo: Path,
                                                          tmp_path: Path) -> None:
    owl, clip = weights
    program = tmp_path / "q.txt"
    program.write_text("query(unique(select(scene(), cup)), color)")
    scene = tmp_path / "scene.json"
    options = ["--backend", "owlvit", "--detector", str(owl), "--clip", str(clip), "--device", "cpu",
               "--threshold", "0", "--attribute-threshold", "0", "--top-n", "3"]
    result = CliRunner().invoke(cli, ["perceive", str(photo), "--program", str(program), "-o", str(scene),
                                      *options])
    assert result.exit_code == 0, result.output
    graph = json.loads(scene.read_text())
    assert graph["backend"] == "owlvit" and 1 <= len(graph["objects"]) <= 3
    first = next(iter(graph["objects"].values()))
    assert first["name"] == "cup" and len(first["attributes"]) == 3  # --values: 3 per category
    assert all(0 < a["confidence"] < 1 for a in first["attributes"])
    result = CliRunner().invoke(cli, ["solve", "--program", str(program), "--scene", str(scene)])
    assert result.exit_code == 0, result.output
    colours = {a["value"] for o in graph["objects"].values() for a in o["attributes"]}
    assert result.output.splitlines()[0].split("\t")[0] in colours


def test_relations_are_scored_on_union_boxes(weights: tuple[Path, Path], photo: Path) -> None:
    from qlang.vision.concepts import Concepts
    from qlang.vision.image import read
    from qlang.vision.owlvit import OwlViT
    from qlang.vision.perception import Thresholds

    owl, clip = weights
    perceiver = OwlViT(str(owl), str(clip), "cpu")
    concepts = Concepts(classes=frozenset({"cup", "table"}), relations=frozenset({"on", "near"}))
    perception = perceiver.perceive(read(photo), concepts, Thresholds(detection=0, relation=0, objects=2))
    assert len(perception.objects) == 2
    assert {(r.subject, r.object) for r in perception.relations} == {(0, 1), (1, 0)}
    assert {r.name for r in perception.relations} == {"on", "near"}


def test_owlvit_without_weights_is_a_usage_error(photo: Path) -> None:
    result = CliRunner().invoke(cli, ["perceive", str(photo), "--backend", "owlvit"])
    assert result.exit_code == 1 and "--detector" in result.output
