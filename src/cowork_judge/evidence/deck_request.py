"""Does a task prompt ask the agent to deliver a PowerPoint deck? The one classifier `cowork-judge init` (which extras
the verifier gets: `install.extras.prompt_names_deck`), `lint-rubric` (M012, M015, and M006's "names a deliverable")
and the run's warnings (`engine.evidence_step.init_picks_deck_extras`) share, for a rubric whose rows do not say so
themselves (model-judged rows alone: trial 20 P-5).

A prompt asks for a deck when, outside its prohibitions (`_util.prohibitions`: "do not make slides"), it names a
PowerPoint file (a dotted suffix, `evidence.kinds.DECK_FILE_MENTION`: "water.pptx", "a .pptx file"), or one of its
sentences that is a request, not a question ("How do I add slides in PowerPoint?"), asks for one in words (trial 38
P-2: "Save it as a PowerPoint presentation", "a PPTX", "Make a slide deck", "制作一份PPT"):

- a PowerPoint format named as a thing ("a PowerPoint file", "a PPTX deck") in a sentence that also has a making
  or delivering word (`_MAKE`, `_PLACE`);
- a format as the form of the result ("save it as a PPTX", "export to PowerPoint", "in PowerPoint format") after a
  making word;
- a deck word as the object of a making word ("Create a ten-slide deck", "Build the slides"), with no preposition
  between them ("Write speaker notes for the deck" asks for notes) and no derived product after it ("a presentation
  outline"); "presentation" counts only when the prompt also names slides, a deck, a PowerPoint format or an output
  folder (a "presentation" alone may be a talk).

A heuristic, measured on a blind set written without it (`bench/task_kind/blind_deck_trial38.json`; figures in
docs/lint-rubric.md). Its errors are loud either way: a deck task read as none leaves its model-judged rows unjudged
``extras_missing``; a chat task read as a deck task gets the deck extras and a lint/run warning. Pure, standard library
only (read before the evidence machinery is imported).
"""

from __future__ import annotations

import re

from cowork_judge._util.prohibitions import without_prohibitions
from cowork_judge.evidence.kinds import DECK_FILE_MENTION

_FORMAT = r"(?:power\s?points?|pptx?|ppsx)"
_DECK = r"(?:slide[\s-]?decks?|decks?|slides|slide\s?shows?|slideshows?)"
_MAKE = (r"(?:create|make|build|prepare|produce|design|generate|assemble|put\s+together|draft|craft|deliver|save|"
         r"export|write|convert|turn|render|output|return|provide|submit|compose|develop|give\s+me|need|want|store|place|put)")
_PLACE = r"(?:deliverable|output|outputs|result|folder|directory|/app/|workspace)"
_NOT_BETWEEN = r"(?:for|of|about|on|from|with|in|to|into|at|by|based|using|that|which|who|when|how|if)"
_DERIVED = (r"(?:outlines?|scripts?|notes|tips|ideas|titles?|agendas?|summar(?:y|ies)|abstracts?|checklists?|structures?|"
            r"texts?|content|plans?|talks?|speech(?:es)?|templates?|reviews?|feedback|rehearsals?|transcripts?|"
            r"narrations?|handouts?|topics?|questions?|skills?|advice)")
_QUESTION_START = re.compile(r"^\s*(?:how|what|why|which|when|where|who|whom|whose|is|are|was|were|should|shall|does|"
                             r"do|did|am|isn't|aren't|(?:can|could|would|will)(?!\s+you\b))\b|如何|怎么|怎样|为什么|什么|是否",
                             re.IGNORECASE)
_HOW_TO = re.compile(r"\bhow\s+(?:to|do|does|can|could|should|would)\b|如何|怎么|怎样", re.IGNORECASE)
"""A question inside a request ("Can you tell me how to export the slides?"): the sentence asks how, not for a deck."""
_USER_DOES = r"(?<!\bI\s)(?<!\bI'll\s)(?<!\bI’ll\s)(?<!\bI\swill\s)(?<!\bwe'll\s)(?<!\bwe\swill\s)(?<!\bwe\s)"
"""Not after a first-person subject: "I'll build the deck myself" is the user's doing, not a request."""

AS_THING = re.compile(rf"\b(?:an?|the|one|single|your)\s+{_FORMAT}\b(?:\s*\(\s*\.?pptx?\s*\))?\s+(?:files?|documents?|"
                      rf"formats?|versions?|{_DECK}|presentations?)\b|\b{_FORMAT}\s+format\b", re.IGNORECASE)
"""A PowerPoint format named as one thing: "a PowerPoint presentation", "the PPTX file", "a PowerPoint (pptx) deck"
(not "reviewing PowerPoint decks": a deliverable is one, with its article), or "in PowerPoint format"; read
in a sentence that names a place for the result (`_PLACE`: "The deliverable is a PowerPoint file")."""
AS_FORM = re.compile(rf"{_USER_DOES}\b{_MAKE}\b.{{0,60}}?\b(?:(?:as|into|to|in)\s+(?:an?\s+|the\s+)?{_FORMAT}|(?:as|into)\s+"
                     rf"(?:an?\s+|the\s+)?(?:[\w'’-]+\s+){{0,3}}?(?:{_FORMAT}|{_DECK}))\b(?!\s+{_DERIVED}\b)", re.IGNORECASE)
"""A format or a deck as the form of the result, at most 60 characters after a making word: "save it as a PPTX", "export the slides to
PowerPoint", "in PowerPoint format"; a deck word only after "as" or "into" ("Turn this post into a slide deck"; "the
figures in my slides" names no result)."""
CJK_REQUEST = re.compile(r"(?<!我在)(?<!我正在)(?<!我们在)(?:制作|做|生成|创建|准备|输出|保存|导出|设计|写|交付|提交|整理|转换|转|改)[^。！？\n]{0,30}?"
                         r"(?:幻灯片|演示文稿|简报|PPT)", re.IGNORECASE)
"""A Chinese request for a deck: a making word (整理成, 转换为 too; not the user's own "我在做"), then 幻灯片/演示文稿/简报/PPT within 30 characters."""


def _as_object(words: str) -> re.Pattern[str]:
    """A deck word (`words`) as the object of a making word: at most five words between, none a preposition or a
    clause word (`_NOT_BETWEEN`), and no derived product (`_DERIVED`: "outline", "notes") right after it."""
    between = rf"(?:(?!{_NOT_BETWEEN}\b)[\w'’-]+\s+){{0,5}}?"
    return re.compile(rf"{_USER_DOES}\b{_MAKE}\s+{between}(?:{words})\b(?!\s+{_DERIVED}\b)", re.IGNORECASE)


AS_OBJECT = _as_object(rf"{_FORMAT}|{_DECK}")
"""A deck word as the object of a making word: "Create a ten-slide deck", "Make a PowerPoint", "Build the slides"."""
AS_OBJECT_PRESENTATION = _as_object(r"presentations?")
"""The same for "presentation", read only when the prompt names a deck otherwise (`_DECKISH`)."""
_DECKISH = re.compile(rf"\b(?:{_FORMAT}|{_DECK}|slide)\b|/app/|output/|幻灯片|演示文稿", re.IGNORECASE)
_SENTENCE = re.compile(r"(?:[^.!?\n。！？]|[.!?](?![\s.!?]|$))+(?:[.!?]+(?=\s|$)|[。！？]+|\n|$)")


def request_sentences(prompt: str) -> list[str]:
    """The sentences of `prompt` (split at . ! ? before a space or the end — not inside "deck.pptx" — at 。！？ and at
    line breaks) that are not questions: a question
    ends with ? (or ？) and starts with a question word ("How", "What", "Should", "Can PowerPoint…", 如何…) or asks how
    ("Can you tell me how to…?"); "Can you make…?" is a request."""
    out = []
    for match in _SENTENCE.finditer(prompt):
        sentence = match.group(0)
        if sentence.rstrip().endswith(("?", "？")) and (_QUESTION_START.search(sentence) or _HOW_TO.search(sentence)):
            continue
        out.append(sentence)
    return out


READ_CHARS = 100_000
"""How much of a prompt `asks_for_deck` reads: its first 100,000 characters (a task's request is at its start; a
1 MB synthetic prompt took 1.2–2.7 s to read whole on this 2-core machine at load 2–3; its first 100,000
characters 0.3–0.4 s)."""


def asks_for_deck(prompt: str) -> bool:
    """True when `prompt` (a task prompt; its first `READ_CHARS` characters) asks the agent to deliver a PowerPoint
    deck (see the module docstring: a dotted PowerPoint suffix, or a request sentence asking for one in words),
    outside its prohibitions."""
    allowed = without_prohibitions(prompt[:READ_CHARS])
    deckish = _DECKISH.search(allowed) is not None
    for sentence in request_sentences(allowed):
        if (DECK_FILE_MENTION.search(sentence) or AS_FORM.search(sentence) or AS_OBJECT.search(sentence)
                or CJK_REQUEST.search(sentence) or (deckish and AS_OBJECT_PRESENTATION.search(sentence))):
            return True
        if AS_THING.search(sentence) and re.search(_PLACE, sentence, re.IGNORECASE):
            return True
    return False


__all__ = ["AS_FORM", "AS_OBJECT", "AS_OBJECT_PRESENTATION", "AS_THING", "CJK_REQUEST", "READ_CHARS", "asks_for_deck",
           "request_sentences"]
