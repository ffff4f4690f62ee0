"""Is a hurdle row written as a violation? A lexical heuristic in six languages.

A hurdle's ``hit=true`` means "the fatal fault IS present", so its description must
describe the fault ("the deliverable is missing", "交付物缺失"). Written as a requirement
("the deliverable is a .pptx deck"), judges answer ``hit=true`` when it is satisfied and
the whole task scores 0 — the failure that zeroed 28% of hurdle-bearing jobs (SPEC §3).

What it looks for, in English, Chinese (simplified and traditional), Japanese, Spanish,
French and German:

- **violation cues**: negation and absence (not, no, without, missing, lacks, 没有, 缺失,
  未, ない, sin, sans, ohne…), failure and error words (fails, incorrect, wrong, broken,
  错误, 失败, 損壞…), and named faults (empty, garbled, overlapping, truncated, placeholder,
  fabricated, plagiarism, harmful, unsafe, excessive…);
- **attributed assertions** (a violation cue): the deliverable *claims*, *asserts*, *alleges* or
  *purports* something ("the answer claims the bridge is 5 km long", "Claims the study was peer
  reviewed"): the verb after its subject or opening a sentence, never the noun "claim";
- **reported reasons** (a violation cue, trial 30 P-2): a plain reporting verb (*says*, *states*, *tells*,
  *presents*, *describes*) right after the deliverable with its own reason or certainty ("the answer says the
  sky is blue because it reflects the ocean", "presents the estimate as fact"), when the rest of the row has
  no requirement cue (`_REPORTED_FAULT`); a bare report ("the answer says the sky is blue") stays neutral;
- **advice with an action** (trial 31 P-4; the hurdle reading only, not R026): the deliverable *tells* (the reader)
  *to* …, *recommends*, *advises*, *instructs*, *suggests*, *urges* + *to* a verb, *that* or a verb in -ing ("the
  answer tells the reader to use boiling water"), when the rest of the row has no requirement cue (`advice_cues`);
  a bare object ("the answer recommends a doctor") stays neutral;
- **requirement cues**: obligation (should, must, needs to, 应, 必须, 需要, べき, debe, doit,
  muss…), presence (includes, contains, provides, has, shows, displays, is present, exists,
  包含, 提供, 存在…) and
  quality adverbs (correctly, clearly, completely, 正确, 完整, 清晰…).

- **negated faults** (English only; trial 16 P-8): a negation (not, never, no, without, n't,
  free of/from, avoids) followed within three words by a *fault word* (`_FAULT_WORDS`: refuse,
  error, mistake, placeholder, hallucinate, fabricate, typo, off-topic, harmful, unsafe, bug,
  crash, inaccurate, incorrect, wrong, broken, garbled, overlapping, truncated, misleading,
  offensive, plagiarism, lorem ipsum, irrelevant, dangerous, contradiction) describes the
  *absence* of a fault — a requirement ("does not refuse", "without refusing", "no slide contains
  placeholder text", "contains no factual errors"). Such a span is no violation cue. A word in
  between that acts on the fault (mention, flag, fix, correct, catch, warn…, `_ACTS_ON_FAULT`)
  or a conjunction (and, but, or…) breaks the span: "does not mention the error" is a violation.
  When the head clause (`head_clause`: the text without parentheses, quotes and the examples after
  *such as*, *like*, *e.g.*, *for example*, *including*) negates a fault, only the head is read: the
  examples it lists are of the absent fault ("no placeholder text such as Lorem ipsum", trial 18 P-4).

`classify` returns ``"violation"`` when any violation cue (or advice cue) is present, else
``"requirement"`` when a requirement cue is, else ``"neutral"``. Lint makes
``requirement`` an ERROR (R020) and ``neutral`` a WARN (R021) on a hurdle a model reads (not on a code row,
whose method never reads the description: trial 19 P-5); violation cues inside a negated
fault are not counted, so "contains no factual errors" is a requirement (R020) and "does not
refuse" alone is neutral (R021). Measured on the fixture
rubrics (every criterion treated as a weight-0 hurdle): see `bench/lint.py --polarity`
and the README; the selftests pin the figures.
"""

from __future__ import annotations

import re
from typing import Literal

Polarity = Literal["violation", "requirement", "neutral"]

# Word-delimited cues (Latin script), matched case-insensitively on word boundaries.
_VIOLATION_WORDS = (
    # English: negation and absence
    r"not", r"no", r"none", r"nothing", r"never", r"neither", r"nor", r"without", r"cannot", r"\w+n['’]t",
    r"missing", r"absent", r"absence", r"lacks?", r"lacking", r"omits?", r"omitted", r"omission",
    r"unable", r"instead of", r"other than",
    # English: failure and error
    r"fails?", r"failed", r"failing", r"failure", r"incorrect(ly)?", r"wrong(ly)?", r"erroneous(ly)?",
    r"errors?", r"mistakes?", r"mistaken(ly)?", r"inaccurate(ly)?", r"broken", r"corrupt(ed)?", r"invalid",
    r"unreadable", r"unusable", r"illegible", r"malformed", r"crash(es|ed)?", r"false(ly)?", r"fake",
    r"untrue", r"bogus", r"contradict(s|ed|ory)?", r"inconsistent", r"violat(es|ed|ion|ions)",
    # English: named faults
    r"empty", r"blank", r"garbled", r"overlap(s|ping)?", r"clipped", r"cut off", r"truncated",
    r"overflow(s|ing)?", r"placeholders?", r"lorem ipsum", r"irrelevant", r"off-topic", r"unrelated",
    r"fabricat(es|ed|ion)", r"hallucinat(es|ed|ion|ions)", r"invented", r"plagiari[sz](ed|m)", r"copied",
    r"leak(s|ed)?", r"expos(es?|ed)", r"hard-?coded", r"harmful", r"unsafe", r"dangerous", r"misleading", r"offensive",
    r"inappropriate(ly)?", r"excessive(ly)?", r"overly", r"poor(ly)?", r"insufficient(ly)?",
    r"inadequate(ly)?", r"incomplete", r"unfinished", r"partial(ly)?", r"outdated", r"unsupported",
    r"ignor(es|ed)", r"skip(s|ped)", r"refus(es|ed|al)", r"deleted?", r"removed?", r"overwrit(es|ten)",
    r"duplicated?", r"too (long|short|few|many|small|large)", r"fewer than", r"less than", r"exceeds?",
    # Spanish
    r"falta(n)?", r"ausente", r"ausencia", r"sin", r"vac[ií][oa]", r"incorrect[oa]", r"err[oó]ne[oa]",
    r"falla", r"fallo", r"rot[oa]", r"dañad[oa]", r"omite", r"carece", r"ningún", r"ninguna",
    # French
    r"ne", r"pas", r"aucune?", r"manque", r"manquante?", r"absente", r"sans", r"vide", r"erron[ée]e?",
    r"erreur", r"échoue", r"cass[ée]e?", r"omet",
    # German
    r"fehlt", r"fehlen", r"fehlend(e|er|es)?", r"kein(e|en|er)?", r"nicht", r"ohne", r"leer(e|er|es)?",
    r"falsch(e|er|es)?", r"fehlerhaft(e|er|es)?", r"fehler", r"unvollständig(e|er|es)?", r"beschädigt(e)?",
)
_REQUIREMENT_WORDS = (
    # English
    r"should", r"must", r"shall", r"needs? to", r"has to", r"have to", r"required", r"requires?",
    r"ensures?", r"make sure", r"includes?", r"including", r"contains?", r"provides?", r"presents?",
    r"covers?", r"exists?", r"is present", r"are present", r"is available", r"are available",
    # presence verbs (issue 26: "the deck has a title slide" was only a warning)
    r"has", r"have", r"shows?", r"displays?", r"features?", r"is shown", r"are shown", r"is visible", r"are visible",
    r"correctly", r"properly", r"accurately", r"clearly", r"completely", r"fully", r"successfully",
    r"adequately", r"appropriately", r"complete", r"accurate", r"correct", r"valid", r"well",
    # Spanish
    r"debe(n|ría)?", r"incluye", r"contiene", r"proporciona", r"correctamente", r"complet[oa]",
    # French
    r"doit", r"doivent", r"devrait", r"inclut", r"contient", r"fournit", r"correctement", r"complète?",
    # German
    r"muss", r"müssen", r"soll(te)?", r"enthält", r"beinhaltet", r"liefert", r"korrekt", r"vollständig",
    r"richtig",
)
# CJK cues are substrings (no word boundaries in Chinese or Japanese).
_VIOLATION_CJK = (
    "缺失", "缺少", "缺乏", "没有", "沒有", "未", "无", "無", "不", "非", "错误", "錯誤", "有误", "有誤", "错", "錯",
    "为空", "為空", "空白", "空的", "遗漏", "遺漏", "漏掉", "失败", "失敗", "损坏", "損壞", "乱码", "亂碼",
    "重叠", "重疊", "遮挡", "遮擋", "截断", "截斷", "溢出", "违反", "違反", "违规", "違規", "虚构", "虛構",
    "编造", "編造", "捏造", "抄袭", "抄襲", "泄露", "洩露", "有害", "误导", "誤導", "矛盾", "幻觉", "幻覺",
    "丢失", "丟失", "残留", "殘留", "占位", "佔位", "跑题", "跑題", "离题", "離題", "过多", "過多", "过度",
    "過度", "超出", "仅", "僅", "只有", "硬编码", "硬編碼",
    # Japanese
    "ない", "なし", "欠落", "欠如", "不足", "誤り", "間違", "失敗", "文字化け", "破損", "欠け",
)
_NOT_VIOLATION_CJK = (
    "不仅", "不僅", "不同", "不错", "不錯", "不断", "不斷", "非常", "无论", "無論", "并非仅", "未来", "未來",
    "少なくない",
)
"""Words that contain a violation character but do not negate ('not only', 'different',
'very', 'whatever', 'future'); removed before the CJK cues are looked for."""
_REQUIREMENT_CJK = (
    "应", "應", "需要", "需", "必须", "必須", "须", "須", "要求", "要有", "确保", "確保", "包含", "包括", "含有", "提供", "给出", "給出",
    "正确", "正確", "准确", "準確", "完整", "清晰", "清楚", "存在", "成功", "合理", "恰当", "恰當", "齐全", "齊全",
    # Japanese
    "べき", "必要", "必ず", "含む", "含まれ", "正しく", "正確", "明確", "提供",
)


def _words(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(words) + r")(?![\w-])", re.IGNORECASE)


_VIOLATION = _words(_VIOLATION_WORDS)
_REQUIREMENT = _words(_REQUIREMENT_WORDS)


_CLAIM_VERBS = r"(?:claims|claimed|asserts|asserted|alleges|alleged|purports|purported)"
_CLAIMANTS = (r"answer|response|reply|assistant|agent|model|chatbot|bot|it|he|she|deck|report|summary|text|output|"
              r"author|document|essay|email|slides?|paper|message|submission|solution")
_ASSERTION = re.compile(
    r"(?:^|[.;:!?]\s+)(?:falsely\s+|wrongly\s+)?" + _CLAIM_VERBS + r"(?![\w-])"  # "Claims the study was …" (HealthBench style)
    r"|(?<![\w-])(?:" + _CLAIMANTS + r")\s+(?:\w+ly\s+)?" + _CLAIM_VERBS + r"(?![\w-])"  # "the answer claims …"
    r"|(?<![\w-])claim(?:s|ed|ing)?\s+to\s+(?:have|be|know)(?![\w-])",  # "claims to have run the tests"
    re.IGNORECASE)
"""An assertion the text attributes to the deliverable — its subject *claims*, *asserts*, *alleges* or
*purports* something (trial 13 L1): a hurdle "the answer claims the bridge is 5 km long" describes what
the fault is (that claim, made), not what is required. Read as a verb only, after the one who makes the
claim or at the start of a sentence: the noun ("supports each claim with a source", "the response's
claims are cited") is no cue. A violation cue."""

_REPORT_VERBS = r"(?:says|said|states|stated|tells|told|presents|presented|describes|described)"
_REPORTED_FAULT = re.compile(
    r"(?<![\w-])(?:" + _CLAIMANTS + r")\s+" + _REPORT_VERBS + r"(?![\w-])[^.;!?]*?"
    r"(?<![\w-])(?:because|since|due to|caused by|as a result of|as (?:an? )?(?:fact|true|certain|proven|settled|"
    r"established|definitive|guaranteed))(?![\w-])",
    re.IGNORECASE)
"""A statement the text attributes to the deliverable with a plain reporting verb (*says*, *states*, *tells*,
*presents*, *describes*) that carries the deliverable's own reason or certainty — "the answer says the sky is blue
*because* it reflects the ocean", "the report presents the estimate *as fact*" (trial 30 P-2): the wrong
explanation or the overclaim is the fault. A violation cue only when the rest of the row has no requirement
cue and the verb directly follows the one who says it ("the answer correctly states … because …" stays a
requirement); a bare
report ("the answer says the sky is blue", HealthBench's "States that …") could as well be the requirement,
so it stays neutral (R021)."""


_FAULT_WORDS = (
    r"refus(e|es|ed|al|als|ing)", r"errors?", r"mistakes?", r"placeholders?", r"hallucinat\w*", r"fabricat\w*",
    r"typos?", r"off-topic", r"harmful", r"unsafe", r"bugs?", r"crash(es|ed|ing)?", r"inaccura\w*", r"incorrect\w*",
    r"wrong\w*", r"broken", r"garbled", r"overlap(s|ping)?", r"truncated", r"misleading", r"offensive",
    r"plagiari\w*", r"lorem ipsum", r"irrelevant", r"dangerous", r"contradictions?",
    r"claim(s|ed|ing)?", r"assert(s|ed|ing)?", r"alleg(e|es|ed|ing)", r"purport(s|ed|ing)?",
)
"""Words that name a fault: negated ("no factual errors", "does not refuse") they describe a good deliverable. The
claim verbs of an attributed assertion (`_ASSERTION`) are among them (trial 34 P-1): "the answer does not claim the
sky reflects the ocean" is the absence of the fault "the answer claims …", so a hurdle worded so is backwards."""
_ACTS_ON_FAULT = (
    r"mentions?", r"flags?", r"identif(y|ies)", r"correct(s)?", r"fix(es)?", r"catch(es)?", r"detects?", r"notes?",
    r"notices?", r"acknowledges?", r"address(es)?", r"warns?", r"explains?", r"reports?", r"points?", r"spots?",
    r"finds?", r"admits?", r"discloses?", r"names?", r"lists?", r"gives?", r"avoids?",
)
"""Verbs that act on a fault: the author asks for the fault to be pointed out, explained or mended (trial 31 P-1
added names, lists, gives, avoids). Between a negation and a fault word they make the fault the object of a
missing good action ("does not mention the error", "does not fix the bug": violations); a positive row whose
main clause has one before a fault noun asks for that action (`fault_cues`: "names a common mistake")."""
_CONJUNCTIONS = (r"and", r"but", r"or", r"nor", r"so", r"then", r"that", r"which")
"""Words that start a new clause: they too break a negated-fault span."""
_NEGATED_FAULT = re.compile(
    r"(?<![\w-])(?:not|never|no|none of|without|\w+n['’]t|free (?:of|from)|avoid(?:s|ed|ing)?)"
    r"(?:\s+(?!(?:" + "|".join(_ACTS_ON_FAULT + _CONJUNCTIONS) + r")(?![\w'’-]))[\w'’-]+){0,3}?"
    r"\s+(?:" + "|".join(_FAULT_WORDS) + r")(?![\w-])",
    re.IGNORECASE)

_FAULT_NOUNS = (
    r"errors?", r"mistakes?", r"bugs?", r"crash(es)?", r"typos?", r"pitfalls?", r"flaws?", r"failures?",
    r"omissions?", r"violations?", r"contradictions?", r"inconsistenc(y|ies)", r"placeholders?",
    r"hallucinations?", r"fabrications?", r"overlaps?", r"leaks?",
)
"""Nouns that name a fault as a thing to be pointed out ("the off-by-one error"); an adjective ("the wrong unit")
is not one: "gives the wrong unit" is the fault itself."""
_ACTED_ON_FAULT = re.compile(
    r"(?<![\w-])(?:" + "|".join(_ACTS_ON_FAULT) + r")(?:\s+(?:out|about|against|on|to))?"
    r"(?:\s+[\w'’-]+){0,4}?\s+(?:" + "|".join(_FAULT_NOUNS) + r")(?![\w-]).*",
    re.IGNORECASE)
"""An action on a fault in a main clause, to its end: "names a common mistake", "identifies the off-by-one error
in the loop", "warns about the risk of a crash on empty input" (trial 31 P-1): the row asks for the fault to be
pointed out, so its fault words are no R026 cue."""

_ADVICE = re.compile(
    r"(?<![\w-])(?:" + _CLAIMANTS + r")\s+(?:tells|told|instructs|instructed|advises|advised|recommends|recommended"
    r"|suggests|suggested|urges|urged)(?:\s+(?:the\s+)?(?:reader|user|patient|customer|client|caller|them|him|her|you"
    r"|people)s?)?\s+(?:to\s+[\w'’-]+|that|(?!(?:some|any|every|no)thing)\w+ing)(?![\w-])",
    re.IGNORECASE)
"""Advice the deliverable gives, with an action (trial 31 P-4): "the answer tells the reader to use boiling water",
"the response recommends taking …", "advises that …". On a hurdle the advice is the fault (a violation cue for the
hurdle reading only, when the rest of the row has no requirement cue); on a positive row it is the requirement
("the answer recommends seeing a doctor"), so `fault_cues` (R026) does not read it. A bare object ("recommends a
doctor") names no action and stays neutral (R021)."""


_EXAMPLES = re.compile(
    r"\([^()]*\)"  # a parenthesis: "(no 'Lorem ipsum', 'TODO' or 'Click to add title')"
    r"|[\"“”][^\"“”]*[\"“”]"  # a double-quoted string
    r"|(?<![\w])['‘][^'‘’]*['’](?![\w])"  # a single-quoted string ("'TODO'", not the apostrophe of "doesn't")
    r"|,?\s*(?<![\w-])(?:such as|like|e\.\s?g\.|for (?:example|instance)|including)(?![\w-])[^.;:!?()]*",
    re.IGNORECASE)
"""What lists or quotes examples: a parenthesis, a quoted string, and what follows *such as*, *like*, *e.g.*,
*for example*, *for instance* or *including* up to the end of the clause."""


def head_clause(text: str) -> str:
    """`text` without its example lists and quotes (`_EXAMPLES`): "The deck has no placeholder text such as
    Lorem ipsum." → "The deck has no placeholder text." What the sentence itself says."""
    return _EXAMPLES.sub(" ", text)


def negated_faults(text: str) -> list[str]:
    """The negated faults in `text` ("does not refuse" → ``["not refuse"]``), in order; empty when
    there is none. English only. Each describes the absence of a fault: requirement wording on a hurdle."""
    return [m.group(0) for m in _NEGATED_FAULT.finditer(text)]


def violation_cues(text: str) -> list[str]:
    """The violation cues found in `text`, in order (empty when there is none); an attributed assertion
    (`_ASSERTION`: "the answer claims …") counts as one. Cues inside a negated fault (`negated_faults`:
    "no factual errors") are not counted. When the head clause (`head_clause`) negates a fault, the examples
    it lists are examples of that absent fault ("no placeholder text such as Lorem ipsum", trial 18 P-4):
    the head alone is read."""
    head = head_clause(text)
    if _NEGATED_FAULT.search(head):
        text = head
    text = _NEGATED_FAULT.sub(" ", text)
    found = [m.group(0).strip(" .;:!?") for m in _ASSERTION.finditer(text)]
    if not requirement_cues(_REPORTED_FAULT.sub(" ", text)):
        found += [m.group(0).strip(" .;:!?") for m in _REPORTED_FAULT.finditer(text)]
    found += [m.group(0) for m in _VIOLATION.finditer(text)]
    cjk = text
    for word in _NOT_VIOLATION_CJK:
        cjk = cjk.replace(word, " ")
    found += [cue for cue in _VIOLATION_CJK if cue in cjk]
    return found


def advice_cues(text: str) -> list[str]:
    """The advice with an action `text` attributes to the deliverable (`_ADVICE`: "the answer tells the reader to
    use boiling water"), empty when there is none or the rest of the row has a requirement cue. A violation cue of
    the hurdle reading (`classify`) only."""
    if requirement_cues(_ADVICE.sub(" ", text)):
        return []
    return [m.group(0) for m in _ADVICE.finditer(text)]


def requirement_cues(text: str) -> list[str]:
    """The requirement cues found in `text`, in order (empty when there is none)."""
    return [m.group(0) for m in _REQUIREMENT.finditer(text)] + [cue for cue in _REQUIREMENT_CJK if cue in text]


def classify(text: str) -> Polarity:
    """``violation`` (a violation cue is present), ``requirement`` (only requirement cues)
    or ``neutral`` (neither). Pure, deterministic, no I/O."""
    if violation_cues(text) or advice_cues(text):
        return "violation"
    if requirement_cues(text):
        return "requirement"
    return "neutral"


_CLAUSE_END = re.compile(
    r"[,;:.!?()]|(?<![\w-])(?:that|when|whenever|if|unless|with|while|which|where|because|whether|to|for|so|as|than"
    r"|and|or|but)(?![\w-])", re.IGNORECASE)
"""Where the main clause of a row ends: punctuation, or a word that opens a complement, a condition or a
second clause ("Notes that vasopressin is no longer recommended", "should load, with clear error handling")."""
_BARE_NEGATION = re.compile(r"(?:not|no|none|nothing|never|neither|nor|without|cannot|\w+n['’]t)", re.IGNORECASE)


def main_clause(text: str) -> str:
    """The head clause (`head_clause`) up to its first clause boundary (`_CLAUSE_END`): what the row says
    the deliverable *is* or *does*. "Correctly states that compression depth … with no changes" → "Correctly
    states"; "A slide still shows placeholder text such as 'TODO'." → "A slide still shows placeholder text"."""
    head = head_clause(text).strip()
    end = _CLAUSE_END.search(head)
    return (head[:end.start()] if end else head).rstrip()


def fault_cues(text: str) -> list[str]:
    """Why `text` reads as a fault on its face (trial 22 P-1), empty when it does not: an attributed
    assertion (`_ASSERTION`) in the head clause ("the answer claims that light travels instantly"), or a
    violation cue (`violation_cues`, the hurdle reading and vocabulary) in the main clause (`main_clause`)
    with no bare negation beside it ("a slide still shows placeholder text", "the summary omits the
    conclusion"). A main clause with a negation describes an absence, an honest requirement: "does not
    recommend aspirin", "nothing on the slide is clipped", "the slide is not blank". An action on a fault noun
    (`_ACTED_ON_FAULT`: "names a common mistake", "identifies the off-by-one error", trial 31 P-1) asks for the
    fault to be pointed out: its words are no cue. Advice (`advice_cues`) is not read. Narrower than `classify` on purpose: on the fixtures' 441 requirement rows the full
    reading finds a violation cue in 75 (17 %), this one in 2 (see `bench/lint.py --polarity`)."""
    head = head_clause(text)
    found = [m.group(0).strip(" .;:!?") for m in _ASSERTION.finditer(head)]
    cues = violation_cues(_ACTED_ON_FAULT.sub(" ", main_clause(text)))
    if not any(_BARE_NEGATION.fullmatch(cue) for cue in cues):
        found += cues
    return list(dict.fromkeys(found))


def reads_as_requirement(text: str) -> bool:
    """True when the hurdle reading calls `text` a requirement: R020's case (`classify` is ``requirement``)
    or R021's negated-fault case (``neutral`` with a negated fault: "the answer is free of factual errors")."""
    kind = classify(text)
    return kind == "requirement" or (kind == "neutral" and bool(negated_faults(text)))


__all__ = ["Polarity", "advice_cues", "classify", "fault_cues", "head_clause", "main_clause", "negated_faults", "reads_as_requirement",
           "requirement_cues", "violation_cues"]
