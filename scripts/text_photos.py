"""Render the photos with words of qlang/data/text (see its README): signs, labels and numbers
painted onto plain panels and onto scikit-image's bundled photographs, with Pillow's own font,
and write their questions (with the words painted as the gold answers) beside scikit-image's
page() and text().

    PYTHONPATH=. .venv/bin/python scripts/text_photos.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from skimage import data

OUT = Path(__file__).resolve().parent.parent / "qlang" / "data" / "text"
#: (file, background, [(text, size, colour, panel colour or None, (x, y))], question, answer)
PHOTOS = [
    (
        "stop.jpg",
        (90, 120, 90),
        [("STOP", 64, "white", (200, 20, 20), (90, 60))],
        "What does the sign say?",
        "STOP",
    ),
    (
        "exit.jpg",
        (40, 40, 40),
        [("EXIT", 56, (255, 255, 255), (20, 140, 60), (100, 70))],
        "What does the sign say?",
        "EXIT",
    ),
    (
        "open.jpg",
        (230, 220, 200),
        [("OPEN", 48, (200, 0, 0), None, (110, 40)), ("9am - 5pm", 32, "black", None, (95, 120))],
        "What are the opening hours?",
        "9am - 5pm",
    ),
    (
        "sale.jpg",
        (250, 250, 250),
        [("SALE", 60, "white", (220, 30, 90), (80, 30)), ("50% off", 40, "black", None, (90, 130))],
        "How much is off?",
        "50%",
    ),
    (
        "parking.jpg",
        (70, 100, 160),
        [("PARKING", 44, "white", (30, 60, 160), (60, 80))],
        "What does the sign say?",
        "PARKING",
    ),
    (
        "street.jpg",
        (60, 60, 60),
        [("Baker Street", 40, "white", (20, 90, 40), (50, 80))],
        "What street is this?",
        "Baker Street",
    ),
    (
        "bakery.jpg",
        (245, 235, 215),
        [
            ("Sunrise Bread", 40, (120, 60, 20), None, (50, 60)),
            ("fresh every morning", 26, (60, 60, 60), None, (55, 130)),
        ],
        "What is the bakery called?",
        "Sunrise Bread",
    ),
    (
        "platform.jpg",
        (20, 30, 80),
        [("Platform 4", 44, (255, 220, 0), None, (70, 80))],
        "Which platform is it?",
        "Platform 4",
    ),
    ("speed.jpg", (240, 240, 240), [("30", 90, "black", None, (120, 50))], "What is the speed limit?", "30"),
    (
        "price.jpg",
        (255, 250, 200),
        [("Apples", 40, (30, 120, 30), None, (80, 40)), ("$2.99", 54, (200, 0, 0), None, (90, 110))],
        "How much are the apples?",
        "$2.99",
    ),
    (
        "room.jpg",
        (180, 150, 110),
        [("Room 214", 48, (240, 240, 240), (90, 60, 30), (70, 80))],
        "What is the room number?",
        "214",
    ),
    (
        "menu.jpg",
        (250, 250, 245),
        [
            ("MENU", 40, "black", None, (120, 20)),
            ("Soup", 30, "black", None, (60, 90)),
            ("Salad", 30, "black", None, (60, 140)),
            ("Pizza", 30, "black", None, (60, 190)),
        ],
        "What is on the menu?",
        "Soup Salad Pizza",
    ),
    (
        "warning.jpg",
        (250, 200, 0),
        [("DANGER", 52, "black", None, (75, 50)), ("High voltage", 34, "black", None, (75, 130))],
        "What is the danger?",
        "High voltage",
    ),
    (
        "library.jpg",
        (200, 210, 220),
        [("PUBLIC LIBRARY", 36, (30, 30, 90), None, (40, 90))],
        "What building is this?",
        "PUBLIC LIBRARY",
    ),
    (
        "bus.jpg",
        (240, 180, 0),
        [("42 Airport", 46, (255, 140, 0), (20, 20, 20), (60, 80))],
        "Where does the bus go?",
        "Airport",
    ),
    (
        "taxi.jpg",
        (255, 210, 0),
        [("TAXI", 60, "black", None, (110, 70))],
        "What does the roof sign say?",
        "TAXI",
    ),
    (
        "welcome.jpg",
        (120, 170, 220),
        [("Welcome to Lisbon", 34, "white", None, (30, 90))],
        "Which city is this?",
        "Lisbon",
    ),
    (
        "year.jpg",
        (200, 190, 170),
        [("EST. 1998", 48, (60, 40, 20), None, (70, 80))],
        "When was it established?",
        "1998",
    ),
]
#: words painted onto scikit-image's photographs:
#: (file, photo, text, size, colour, panel, place, question, answer)
ON_PHOTOS = [
    (
        "coffee_cafe.jpg",
        "coffee",
        "CAFE",
        50,
        "white",
        (60, 30, 20),
        (20, 20),
        "What does the sign say?",
        "CAFE",
    ),
    (
        "coffee_espresso.jpg",
        "coffee",
        "Espresso 2.50",
        34,
        "black",
        (240, 240, 240),
        (20, 330),
        "How much is an espresso?",
        "2.50",
    ),
    (
        "chelsea_name.jpg",
        "chelsea",
        "Chelsea",
        44,
        "white",
        (40, 40, 40),
        (20, 20),
        "What is the cat's name?",
        "Chelsea",
    ),
    (
        "astronaut_nasa.jpg",
        "astronaut",
        "NASA",
        50,
        "white",
        (10, 40, 120),
        (20, 20),
        "What does the label say?",
        "NASA",
    ),
    (
        "rocket_launch.jpg",
        "rocket",
        "LAUNCH 2026",
        36,
        "white",
        (0, 0, 0),
        (20, 20),
        "What year is the launch?",
        "2026",
    ),
    (
        "astronaut_mission.jpg",
        "astronaut",
        "Mission 7",
        40,
        "black",
        (250, 250, 250),
        (300, 450),
        "Which mission is this?",
        "Mission 7",
    ),
]


def panel(
    draw: ImageDraw.ImageDraw, text: str, size: int, colour: object, fill: object, place: tuple[int, int]
) -> None:
    font = ImageFont.load_default(size=size)
    if fill is not None:
        x0, y0, x1, y1 = draw.textbbox(place, text, font=font)
        draw.rectangle((x0 - 14, y0 - 12, x1 + 14, y1 + 12), fill=fill)
    draw.text(place, text, font=font, fill=colour)


def main() -> None:
    (OUT / "photos").mkdir(parents=True, exist_ok=True)
    questions = []
    for number, (name, background, lines, question, answer) in enumerate(PHOTOS, start=1):
        image = Image.new("RGB", (400, 260), background)
        draw = ImageDraw.Draw(image)
        for text, size, colour, fill, place in lines:
            panel(draw, text, size, colour, fill, place)
        image.save(OUT / "photos" / name, quality=90)
        questions.append(
            {"id": f"p{number:02d}", "photo": f"photos/{name}", "question": question, "answers": [answer]}
        )
    for number, (name, photo, text, size, colour, fill, place, question, answer) in enumerate(
        ON_PHOTOS, len(PHOTOS) + 1
    ):
        image = Image.fromarray(np.asarray(getattr(data, photo)())).convert("RGB")
        panel(ImageDraw.Draw(image), text, size, colour, fill, place)
        image.save(OUT / "photos" / name, quality=90)
        questions.append(
            {"id": f"p{number:02d}", "photo": f"photos/{name}", "question": question, "answers": [answer]}
        )
    sample = [
        ("skimage:page", "What is the page's title?", "Region-based segmentation"),
        ("skimage:page", "What does the page determine first?", "markers of the coins"),
        ("skimage:page", "Where are the markers found?", "at the two extreme parts of the histogram"),
        ("skimage:page", "What are the markers?", "pixels that we can label unambiguously"),
        ("skimage:text", "What is written on the paper?", "(s) = 1"),
        ("skimage:text", "Which letter is in the brackets?", "s"),
    ]
    for number, (photo, question, answer) in enumerate(sample, len(questions) + 1):
        questions.append({"id": f"p{number:02d}", "photo": photo, "question": question, "answers": [answer]})
    (OUT / "photos.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")


if __name__ == "__main__":
    main()
