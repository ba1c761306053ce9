"""Read a model's free-text answer: which option it chose, or whether it states the right answer.

Models rarely answer with a bare letter; they write "The answer is (C) Clockwise throughout.",
quote the option text, or reason for a paragraph first. These parsers are deterministic and
conservative: when a response could mean two things they return "no answer" rather than guess,
because a scorer that guesses in a model's favour inflates its accuracy.

``parse_choice`` precedence (the first step that decides wins):

1. JSON: a response such as ``{"answer": "B"}`` (also inside a ```json fence) is parsed by its
   ``answer`` / ``choice`` / ``option`` value.
2. The whole response is one letter, optionally bracketed or followed by ``.`` or ``:``
   ("B", "(b)", "B.", "[C]"); lower case is accepted here because nothing else is said.
3. The response opens with a letter marker and then text: "B. Clockwise", "(B) ...", "B) ...",
   "B: ...", "B - ...". The letter wins over the text after it, not over an explicit answer
   statement (4) naming another letter: "A. Actually, the answer is C." is no answer
   (Vinoground's scorer, which reads the first character, would take it as A).
4. An explicit answer statement: "Answer: B", "The answer is (C)", "final answer: b.",
   "<answer>B</answer>", "correct option is B". A lower-case letter counts only when brackets
   or punctuation close it ("answer is a." but not "answer is a clockwise turn"). Several
   statements (a leading marker counts as one) naming different letters, or a letter past
   the last option: the last "final answer" wins if there is one, else no answer ("The
   answer is A. Actually, the answer is C.", or "Answer: C" with two options, then "not A").
5. A weaker cue: "option B", "I choose B", "go with B", or a bracketed letter "(C)" anywhere.
   One letter only; several different ones make this step undecided.
6. Option text: an option's words appear in the response (case, punctuation and hyphens
   ignored; "anticlockwise" = "counterclockwise"; number words = digits). A match inside a
   longer matched option does not count ("clockwise throughout" inside "counter-clockwise
   throughout"), nor one negated in its clause ("not clockwise throughout"). Two or more
   options left: no answer.
7. A lone capital letter standing as a word ("... so I pick\nB"), except "A" or "I" followed by
   a lower-case word (the article and the pronoun; "A or B" still names two letters). Two
   different letters: no answer. If step 6 found an
   option and a lone letter names a different one, the response contradicts itself: no answer.

Standard library only: the lmms-eval export copies this file beside the task's ``utils.py``
(``lmms_utils``), which imports it there when tempogen is not installed.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "once": "1",
    "two": "2",
    "twice": "2",
    "three": "3",
    "thrice": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
}
NEGATIONS = frozenset(
    "not no never neither nor without isnt doesnt dont didnt arent wasnt werent cannot cant "
    "wont hasnt havent hadnt shouldnt wouldnt couldnt".split()
)
NEGATION_WINDOW = 3  # tokens before a match, within its clause, that can negate it

# Words that carry no answer content: dropped before key-word matching in ``grade_open``.
STOPWORDS = frozenset(
    "a an the it its it's this that these those there here is are was were be been being am "
    "do does did has have had of in on at to from by with and or as for so then first finally "
    "he she they them his her their him we you i me my our your which what who whom whose "
    "when where why how very just also into onto over actually times".split()
)
YES = frozenset({"yes", "yeah", "yep", "yup"})
# An answer that opens by rejecting the question's premise: "No, ...", "Not really. ...".
REJECT_PREFIX = re.compile(
    r"^\s*(?:(?:no|nope|not really|incorrect|false|wrong"
    r"|(?:it|they|he|she|that)\s+(?:does|do|did|is|are|was|were)\s*(?:not|n[\'\u2019]?t))"
    r"\s*[,.;:!\-\u2013\u2014]+|actually\b)\s*",
    re.IGNORECASE,
)

_CLAUSE_BREAK = re.compile(r"[.;!?,:\n]+|\bbut\b|\bhowever\b|\bwhereas\b", re.IGNORECASE)
_COMPOUNDS = (
    (re.compile(r"\b(?:counter|anti)[\s\-]*clock[\s\-]*wise\b"), "counterclockwise"),
    (re.compile(r"\bclock[\s\-]+wise\b"), "clockwise"),
)
_LETTER_JOINERS = frozenset({"or", "and", "nor", "vs", "versus", "then"})
_JSON_KEYS = ("answer", "choice", "option", "final_answer", "prediction", "response")


def normalize_text(text: str) -> str:
    """Lower-case words only: accents folded, apostrophes dropped, hyphens and punctuation as
    spaces, "anti-clockwise" and "counter clockwise" as "counterclockwise", number words as
    digits. Two strings that differ only in such spelling normalize equal."""
    return " ".join(_words(text))


def _words(text: str) -> list[str]:
    return [w for clause in _clauses(text) for w in clause]


def _clauses(text: str) -> list[list[str]]:
    """Normalized words, grouped by clause (a negation reaches only within its clause)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"['\u2019\u2018`]", "", text)
    for pattern, repl in _COMPOUNDS:
        text = pattern.sub(repl, text)
    out = []
    for clause in _CLAUSE_BREAK.split(text):
        words = [NUMBER_WORDS.get(w, w) for w in re.findall(r"[a-z0-9]+", clause)]
        if words:
            out.append(words)
    return out


def _flat(clauses: list[list[str]]) -> tuple[list[str], list[int]]:
    """Words in order and, for each, the index of its clause."""
    words, clause_of = [], []
    for k, clause in enumerate(clauses):
        words.extend(clause)
        clause_of.extend([k] * len(clause))
    return words, clause_of


def _negated(words: list[str], clause_of: list[int], start: int) -> bool:
    """True when a negation word stands within ``NEGATION_WINDOW`` words before ``start``,
    in the same clause."""
    for j in range(max(0, start - NEGATION_WINDOW), start):
        if clause_of[j] == clause_of[start] and words[j] in NEGATIONS:
            return True
    return False


def _find_all(words: list[str], phrase: list[str]) -> list[int]:
    """Start indices of ``phrase`` as a contiguous word sequence in ``words``."""
    n = len(phrase)
    if not n:
        return []
    return [i for i in range(len(words) - n + 1) if words[i : i + n] == phrase]


def _unwrap_json(text: str) -> str | None:
    """The answer value of a JSON-object response (fenced or not), or None."""
    m = re.search(r"\{.*\}", text, re.DOTALL)
    if not m:
        return None
    try:
        obj = json.loads(m.group(0))
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(obj, dict):
        return None
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in _JSON_KEYS:
        value = lowered.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return str(value)
    return None


def _letter_closed(text: str, end: int, letter: str) -> bool:
    """Whether the letter ending at ``end`` stands alone as an answer, judged by what follows.

    End of text, closing bracket or punctuation: yes. A space: only for a capital that is not
    "A"/"I" followed by a lower-case word (the article and pronoun; "A or B" still counts).
    """
    rest = text[end:]
    if not rest or rest[0] in ")]}*.,;:!?\"'<>\n" or rest.strip() == "":
        return True
    if rest[0] in " \t" and letter.isupper():
        nxt = rest.lstrip(" \t")
        word = re.match(r"[A-Za-z]*", nxt).group(0)
        if letter in "AI" and word[:1].islower() and word not in _LETTER_JOINERS:
            return False
        return True
    return False


_BARE = re.compile(r"[\(\[\{]?\s*([A-Za-z])\s*[\)\]\}]?\s*[.:]?")
_LEADING = re.compile(
    r"[\(\[]?([A-Za-z])(?:[\)\]]\s*[.:]?\s*|[.:)]\s+|\s+[-\u2013\u2014]\s*)(?=\S)"
)
_STRONG = re.compile(
    r"(?P<kw>(?:final\s+answer|(?:correct|best|right)\s+(?:answer|option|choice)|answer)\b|<answer>)"
    r"(?:\s*(?:is|would\s+be|should\s+be|will\s+be|[:=\-]))?"
    r"(?:\s*(?:option|choice|letter))?\s*[:\-]?\s*\**\s*[\(\[]?\s*(?P<letter>[A-Za-z])(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_WEAK_WORD = re.compile(
    r"\b(?i:option|choice|choose|chose|select|selected|pick|picked|go\s+with|going\s+with)"
    r"\s*[:\-]?\s*[\(\[]?\s*(?P<letter>[A-Z])(?![A-Za-z0-9\-])"
)
_WEAK_BRACKET = re.compile(r"[\(\[](?P<letter>[A-Za-z])[\)\]]")
_LONE = re.compile(r"(?<![A-Za-z0-9'\u2019\-/])(?P<letter>[A-Z])(?![A-Za-z0-9'\u2019\-/])")


def _clean(text: str) -> str:
    """Drop markdown emphasis and code fences; trim."""
    text = re.sub(r"```[a-zA-Z]*", " ", text)
    return text.replace("**", "").replace("__", "").replace("`", "").strip()


def _index(letter: str, n: int) -> int | None:
    k = LETTERS.find(letter.upper())
    return k if 0 <= k < n else None


def _by_option_text(text: str, options: Sequence[str]) -> list[int]:
    """Options whose words appear in ``text``, not inside a longer matched option, not negated."""
    words, clause_of = _flat(_clauses(text))
    spans: list[tuple[int, int, int]] = []  # (start, end, option)
    for k, option in enumerate(options):
        phrase = _words(str(option))
        for start in _find_all(words, phrase):
            spans.append((start, start + len(phrase), k))
    kept = set()
    for start, end, k in spans:
        inside = any(
            s <= start and end <= e and (e - s) > (end - start)
            for s, e, other in spans
            if other != k
        )
        if not inside and not _negated(words, clause_of, start):
            kept.add(k)
    # Options with identical normalized text (duplicates) count once, as the first of them.
    firsts = {}
    for k in sorted(kept):
        firsts.setdefault(tuple(_words(str(options[k]))), k)
    return sorted(firsts.values())


def _statements(text: str, n: int) -> list[tuple[int | None, bool]]:
    """Every explicit answer statement (step 4) in order: the option it names (None for a
    letter past the last option) and whether it is a "final answer"."""
    out: list[tuple[int | None, bool]] = []
    for m in _STRONG.finditer(text):
        letter = m.group("letter")
        if _letter_closed(text, m.end("letter"), letter):
            out.append((_index(letter, n), m.group("kw").lower().startswith("final")))
    return out


def _agreed(stated: list[tuple[int | None, bool]]) -> int | None:
    """The option several statements give: the last "final answer" if there is one, else the
    one they all name; None when they differ or name a letter no option has."""
    finals = [k for k, final in stated if final]
    if finals:
        return finals[-1]
    named = {k for k, _ in stated}
    return named.pop() if len(named) == 1 else None


def parse_choice(response: str, options: Sequence[str]) -> int | None:
    """The 0-based option a free-text response chooses, or None when it is unparsable or
    ambiguous. Letters are A, B, C, ... in option order; see the module docstring for the
    order in which the cues are tried."""
    if not isinstance(response, str) or not options:
        return None
    n = len(options)
    text = _clean(response)
    if not text:
        return None
    if "{" in text:
        inner = _unwrap_json(text)
        if inner is not None and inner.strip() != text:
            return parse_choice(inner, options)

    # 2. a bare letter
    m = _BARE.fullmatch(text)
    if m:
        return _index(m.group(1), n)

    # 3. a leading letter marker and 4. explicit answer statements: they must agree
    stated = _statements(text, n)
    m = _LEADING.match(text)
    if m:
        k = _index(m.group(1), n)
        if k is not None:
            return _agreed([(k, False), *stated])
    if stated:
        return _agreed(stated)

    # 5. weaker cues ("option B", "(C)"), 6. option text, 7. lone capital letters; a cue that
    # names a different option than the text does makes the response contradict itself.
    weak = set()
    for pattern in (_WEAK_WORD, _WEAK_BRACKET):
        for m in pattern.finditer(text):
            k = _index(m.group("letter"), n)
            if k is not None:
                weak.add(k)
    by_text = _by_option_text(text, options)
    if weak:
        if len(weak) > 1 or (len(by_text) == 1 and by_text[0] not in weak):
            return None
        return weak.pop()
    if len(by_text) > 1:
        return None
    lone = set()
    for m in _LONE.finditer(text):
        letter = m.group("letter")
        k = _index(letter, n)
        if k is not None and _letter_closed(text, m.end("letter"), letter):
            lone.add(k)
    if by_text:
        return by_text[0] if not lone or lone == {by_text[0]} else None
    if len(lone) == 1:
        return lone.pop()
    return None


def _stem(word: str) -> str:
    """A light English stemmer: turns / turned / turning -> turn, moves / move -> mov."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if not word.endswith(suffix) or len(word) - len(suffix) < 3:
            continue
        if suffix == "ed" and word.endswith("eed"):
            continue
        if suffix == "s" and word.endswith("ss"):
            continue
        word = word[: -len(suffix)]
        break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _key_words(words: list[str]) -> list[int]:
    """Positions of the content words of an answer: not stop words, not negations."""
    return [i for i, w in enumerate(words) if w not in STOPWORDS and w not in NEGATIONS]


Span = tuple[int, int, int]  # first word, one past the last, number of key words matched


def _span(resp: tuple[list[str], list[int]], candidate: str) -> Span | None:
    """Where one candidate answer is stated in a parsed response (word span), or None.

    See ``grade_open`` for the rules.
    """
    resp_words, resp_clause = resp
    core = REJECT_PREFIX.sub("", candidate, count=1)
    rejects_premise = core != candidate
    if rejects_premise and resp_words[0] in YES:
        return None  # "Yes, ..." accepts the false premise the answer rejects

    ans_words, ans_clause = _flat(_clauses(core))
    if not ans_words:  # the answer was only "No." (premise rejected, nothing else to say)
        ok = rejects_premise and resp_words[0] in {"no", "nope"} | NEGATIONS
        return (0, 1, 1) if ok else None
    if ans_words[0] in YES and not _key_words(ans_words[1:]):
        return (0, 1, 1) if resp_words[0] in YES else None  # a plain "Yes" / "Yes, it does"

    keys = _key_words(ans_words)
    if not keys:  # the answer is all stop words: require the whole phrase
        starts = _find_all(resp_words, ans_words)
        return (starts[0], starts[0] + len(ans_words), len(ans_words)) if starts else None

    # Key words the answer states positively must appear, in the answer's order, not negated.
    # Key words the answer negates ("it does NOT turn clockwise; it turns counterclockwise")
    # must not appear un-negated; when the answer only negates, they must appear negated.
    negated = {i for i in keys if _negated(ans_words, ans_clause, i)}
    positive = [i for i in keys if i not in negated]
    positive_stems = {_stem(ans_words[i]) for i in positive}
    negated = {i for i in negated if _stem(ans_words[i]) not in positive_stems}
    if not positive:
        hits = []
        for i in negated:
            target = _stem(ans_words[i])
            js = [
                j
                for j, w in enumerate(resp_words)
                if _stem(w) == target and _negated(resp_words, resp_clause, j)
            ]
            if not js:
                return None
            hits.append(js[0])
        return (min(hits), max(hits) + 1, len(hits))
    for i in negated:
        target = _stem(ans_words[i])
        if any(
            _stem(w) == target and not _negated(resp_words, resp_clause, j)
            for j, w in enumerate(resp_words)
        ):
            return None
    # Earliest in-order occurrence of the positive key words.
    found: list[int] = []
    pos = 0
    for i in positive:
        target = _stem(ans_words[i])
        j = next(
            (
                j
                for j in range(pos, len(resp_words))
                if _stem(resp_words[j]) == target and not _negated(resp_words, resp_clause, j)
            ),
            None,
        )
        if j is None:
            return None
        found.append(j)
        pos = j + 1
    return (found[0], found[-1] + 1, len(found))


def _covers(b: Span, a: Span, ties: bool) -> bool:
    """Span ``b`` says more than span ``a``: it contains ``a``'s words and is longer or matched
    more key words (``ties``: or exactly as many)."""
    if not (b[0] <= a[0] and a[1] <= b[1]):
        return False
    if (b[1] - b[0]) > (a[1] - a[0]) or b[2] > a[2]:
        return True
    return ties and b[2] == a[2]


def grade_open(
    response: str,
    answer: str,
    accepted: Sequence[str] | None = None,
    rejected: Sequence[str] | None = None,
) -> bool:
    """Whether an open-ended response states ``answer`` (or one of the ``accepted`` phrasings).

    Conservative key-word matching on normalized text (see ``normalize_text``): the content
    words of the answer (stop words dropped) must all appear in the response, in the answer's
    order, none negated where the answer is not ("not counterclockwise" fails; an answer that
    negates a word needs it negated, or absent if the answer also states something). An answer
    that rejects a false premise ("No, it turns counter-clockwise", "It does not; ...") is
    graded by its corrected content, and a response opening with "Yes" fails it. A bare
    "Yes" / "No" answer is graded by the response's first word.

    ``rejected`` lists wrong answers (say, the other answers a question like this one has): a
    response fails when it states one of them, unless the right answer's statement covers it
    (same words or more); and a right phrasing covered by a wrong one that says more does not
    count ("clockwise" inside "counter-clockwise, then clockwise"). Known limits: synonyms need
    ``accepted``; without ``rejected``, a response hedging between two answers passes.
    """
    if not isinstance(response, str) or not isinstance(answer, str):
        return False
    resp = _flat(_clauses(response))
    if not resp[0]:
        return False
    if REJECT_PREFIX.match(answer) and resp[0][0] in YES:
        return False  # the answer rejects the question's premise; "Yes, ..." accepts it
    candidates = [answer, *(a for a in (accepted or ()) if isinstance(a, str) and a.strip())]
    right = [s for c in candidates if (s := _span(resp, c)) is not None]
    if not right:
        return False
    wrong = [
        s
        for c in (rejected or ())
        if isinstance(c, str) and c.strip() and (s := _span(resp, c)) is not None
    ]
    wrong = [w for w in wrong if not any(_covers(r, w, ties=True) for r in right)]
    right = [r for r in right if not any(_covers(w, r, ties=False) for w in wrong)]
    return bool(right) and not wrong
