"""The ImageNet classifier named on regions: its labels as GQA classes through WordNet, and the
classes COCO's detector lacks found on a real photo (scikit-image's astronaut's helmet)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qlang.ontology import load
from qlang.vision import models, regions
from qlang.vision.concepts import Concepts
from qlang.vision.labels import gqa_class, imagenet_classes, imagenet_senses, imagenet_table
from qlang.vision.perception import Detection, SeenBox, Thresholds
from qlang.wordnet import names
from tests.conftest import run

data = pytest.importorskip("skimage.data")

#: ImageNet labels and the GQA class WordNet files each under
LABELS = {"crash helmet": "helmet", "football helmet": "helmet", "park bench": "bench",
          "reflex camera": "camera", "cowboy hat, ten-gallon hat": "hat", "wooden spoon": "spoon",
          "tabby, tabby cat": "cat", "moped": "motorcycle",
          "mountain bike, all-terrain bike, off-roader": "bicycle", "boxer": "dog", "Loafer": "shoe",
          "trolleybus, trolley coach, trackless trolley": "bus", "passenger car, coach, carriage": "carriage",
          "fig": "fruit", "ocarina, sweet potato": "instrument", "Chihuahua": "dog", "cock": "bird",
          "kite": "bird", "abacus": "calculator"}
#: ImageNet labels no GQA class names, though a word of theirs is one (a sea star is no star)
UNNAMED = ("starfish, sea star", "mink", "beaver")


@pytest.mark.parametrize(("label", "cls"), LABELS.items())
def test_an_imagenet_label_is_the_gqa_class_wordnet_files_it_under(label: str, cls: str) -> None:
    assert imagenet_classes()[label] == cls


@pytest.mark.parametrize("label", UNNAMED)
def test_an_imagenet_label_of_no_gqa_class_names_none(label: str) -> None:
    assert imagenet_classes()[label] is None


def test_the_table_is_what_wordnet_says() -> None:
    """The shipped table (scripts/imagenet_classes.py) against WordNet itself."""
    labels = models.path(models.CLASSIFIER_LABELS).read_text(encoding="utf-8").splitlines()
    assert imagenet_classes() == imagenet_table(labels)
    assert len(imagenet_classes()) == 999


def test_each_imagenet_label_is_its_synsets_lemma_list() -> None:
    """ImageNet's synset ids (from timm) read through WordNet 3.0 spell the classifier's labels,
    in order: the two `crane`s are the bird and the machine."""
    labels = models.path(models.CLASSIFIER_LABELS).read_text(encoding="utf-8").splitlines()
    found = imagenet_senses()
    assert [names(s) for s in found] == [[w.strip().lower() for w in label.split(",")] for label in labels]
    cranes = [s.name() for label, s in zip(labels, found, strict=True) if label == "crane"]
    assert cranes == ["crane.n.05", "crane.n.04"]


def test_a_name_of_attribute_values_and_a_class_is_that_class() -> None:
    """GQA names a stone wall a wall of stone, though WordNet files it under fence; a sea lion,
    `sea` being no attribute, stays a seal."""
    assert imagenet_classes()["stone wall"] == "wall"
    assert imagenet_classes()["steel drum"] == "drum"
    assert imagenet_classes()["sea lion"] == "seal"


def test_only_a_label_for_a_person_names_a_class_of_people() -> None:
    """A ruler, a weasel, a cassette player or a scorpion seen on a region is no person."""
    ontology = load()
    people = {label for label, cls in imagenet_classes().items()
              if cls is not None and (cls == "person" or "person" in ontology.ancestors(cls))}
    assert people == {"scuba diver", "ballplayer, baseball player", "groom, bridegroom"}
    assert {gqa_class(label) for label in ("rule, ruler", "weasel", "cassette player", "scorpion")} \
        .isdisjoint({"person", "player"})


def test_regions_are_named_only_for_classes_the_detector_lacks() -> None:
    detected = frozenset({"person", "cup", "spoon"})
    asked = Concepts(classes=frozenset({"helmet", "person", "spoon", "flagpole-less"}))
    assert regions.wanted(asked, detected) == {"helmet"}
    assert regions.wanted(None, detected) == frozenset()
    assert regions.wanted(Concepts(classes=frozenset({"vehicle"})), detected, ["motorcycle"]) == frozenset()


def test_a_region_repeating_a_detection_of_its_family_is_dropped() -> None:
    person = Detection("person", 0.8, SeenBox(0, 0, 100, 200), "person")
    same = Detection("woman", 0.6, SeenBox(5, 0, 100, 195), "imagenet: x")
    elsewhere = Detection("helmet", 0.5, SeenBox(150, 150, 200, 200), "imagenet: crash helmet")
    assert regions.merge([person], [same, elsewhere]) == [person, elsewhere]


def test_the_astronauts_helmet_is_found_though_coco_has_no_helmet(tmp_path: Path) -> None:
    from qlang.vision.image import read
    from qlang.vision.ssd import SSD

    perception = SSD().perceive(read(Path(data.__file__).parent / "astronaut.png"),
                                Concepts(classes=frozenset({"helmet"})), Thresholds())
    helmets = [d for d in perception.objects if d.name == "helmet"]
    assert helmets and helmets[0].label.startswith("imagenet: ") and helmets[0].confidence >= regions.LEAST
    assert "classify regions" in perception.stages.seconds


def test_a_word_gqa_lacks_is_seen_through_the_labels_wordnet_files_under_it() -> None:
    """A rocket is no GQA class, but the classifier's missile is a kind of rocket: the SSD
    glimpses it, never covers it, so a "no" about it is no evidence."""
    from qlang.api import parse
    from qlang.signatures import Kind
    from qlang.vision.filed import filed
    from qlang.vision.recall import blind_no, doubt
    from qlang.vision.sight import SIGHTS

    assert filed("rocket") == {"missile"} and filed("gravel") == frozenset()
    asked = Concepts(classes=frozenset({"rocket", "gravel"}))
    assert regions.wanted(asked, frozenset({"person"})) == {"rocket"}
    ssd = SIGHTS["ssd"]
    assert ssd.sees(Kind.CLASS, "rocket") and not ssd.sees(Kind.CLASS, "gravel") and not ssd.covers("rocket")
    assert doubt(ssd, "rocket") == \
        "the ssd detector finds rocket only through the ImageNet classifier on regions"
    assert blind_no(ssd, parse("exist(select(scene(), rocket))"), "no") == ("rocket",)


def test_the_rocket_is_found_and_not_denied_on_photos() -> None:
    rocket = str(Path(data.__file__).parent / "rocket.jpg")
    status, out, _ = run("ask", "Is there a rocket?", "--image", rocket, "--translator", "small")
    assert (status, out.splitlines()[:2]) == (0, ["answer:  yes", "program: exist(select(scene(), rocket))"])
    coffee = str(Path(data.__file__).parent / "coffee.png")
    status, out, _ = run("ask", "Is there a rocket?", "--image", coffee, "--translator", "small")
    assert status == 4 and out.startswith("answer:  cannot tell (the ssd detector finds rocket only through")
