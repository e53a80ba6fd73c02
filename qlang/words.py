"""English words as questions say them: plurals and singulars, articles, and a question's text
compared for sameness.  Shared by the small parser, augmentation, the example pool, the
concept extractor and evaluation."""

from __future__ import annotations

_IRREGULAR = {"man": "men", "woman": "women", "person": "people", "child": "children",
              "foot": "feet", "tooth": "teeth", "goose": "geese", "mouse": "mice", "ox": "oxen",
              "leaf": "leaves", "knife": "knives", "shelf": "shelves", "loaf": "loaves",
              "wolf": "wolves", "calf": "calves", "half": "halves", "life": "lives",
              "wife": "wives", "scarf": "scarves", "thief": "thieves", "potato": "potatoes",
              "tomato": "tomatoes", "sheep": "sheep", "deer": "deer", "fish": "fish",
              "moose": "moose", "bison": "bison", "aircraft": "aircraft"}
_NOT_MAN = frozenset({"human", "german", "roman", "shaman", "ottoman"})


def plural(name: str) -> str:
    """A class name's English plural, inflecting its last word.

    >>> [plural(w) for w in ("tennis racket", "man", "policeman", "bus", "bench", "shelf", "pants")]
    ['tennis rackets', 'men', 'policemen', 'buses', 'benches', 'shelves', 'pants']
    """
    head, _, last = name.rpartition(" ")
    if last in _IRREGULAR:
        last = _IRREGULAR[last]
    elif last.endswith("man") and last not in _NOT_MAN:
        last = last[:-3] + "men"
    elif plural_only(last):
        pass
    elif last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        last = last[:-1] + "ies"
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        last += "es"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def singulars(name: str) -> list[str]:
    """The names whose plural `name` is (none for a singular): `plural` read backwards, each
    rule's inverse kept where `plural` gives `name` back; a vocabulary picks among them.

    >>> [singulars(w) for w in ("dishes", "tennis rackets", "people", "shelves", "pants", "cat")]
    [['dish', 'dishe'], ['tennis racket'], ['person'], ['shelf', 'shelve'], ['pant'], []]
    """
    head, _, last = name.rpartition(" ")
    candidates = [one for one, many in _IRREGULAR.items() if many == last]
    if last.endswith("men"):
        candidates.append(last[:-3] + "man")
    if last.endswith("ies"):
        candidates.append(last[:-3] + "y")
    if last.endswith("es"):
        candidates.append(last[:-2])
    if last.endswith("s"):
        candidates.append(last[:-1])
    found = (f"{head} {one}" if head else one for one in dict.fromkeys(candidates))
    return [one for one in found if one != name and plural(one) == name]


def progressives(word: str) -> list[str]:
    """The progressive forms (``-ing``) a verb's base or third person may be of, for a
    relation a question says in the present (`sits on` for `sitting on`): spelling rules read
    forwards, so some are no word; a vocabulary picks among them.

    >>> [progressives(w) for w in ("sits", "drives", "lies", "carries", "watches", "wear")]
    [['sitting', 'siting'], ['driving'], ['lying'], ['carrying'], ['watching'], ['wearing']]
    """
    if word.endswith("ies"):
        bases = [word[:-3] + "y", word[:-1]]
    elif word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh", "o")):
        bases = [word[:-2]]
    elif word.endswith("s") and not word.endswith("ss"):
        bases = [word[:-1]]
    else:
        bases = [word]
    forms: list[str] = []
    for base in bases:
        if base.endswith("ie"):
            forms.append(base[:-2] + "ying")
        elif base.endswith("e") and not base.endswith("ee"):
            forms.append(base[:-1] + "ing")
        else:
            vowels = [letter in "aeiou" for letter in base[-3:]]
            if vowels == [False, True, False] and base[-1] not in "wxy":  # sit, sitting
                forms.append(base + base[-1] + "ing")
            forms.append(base + "ing")
    return list(dict.fromkeys(forms))


def plural_only(name: str) -> bool:
    """Whether a name is already plural (`pants`, `glasses`, `people`): it swaps only with such."""
    last = name.rpartition(" ")[2]
    if last in _IRREGULAR:
        return False
    return last in _IRREGULAR.values() or (last.endswith("s")
                                           and not last.endswith(("ss", "us", "is")))


def article(word: str) -> str:
    """ "a" or "an" before a word, by its sound as far as spelling tells."""
    vowel = word[:1].lower() in tuple("aeiou") and not word.lower().startswith(
        ("uni", "use", "usu", "eu", "one", "once"))
    return "an" if vowel or word.lower().startswith(("hour", "honest", "heir")) else "a"


def normal_question(text: str) -> str:
    """A question's text as compared for sameness: case and spacing ignored."""
    return " ".join(text.lower().split())
