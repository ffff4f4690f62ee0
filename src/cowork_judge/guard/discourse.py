"""Reading a finding in its context: is the text *addressing* this evaluator, or talking about
such text for a purpose of its own?

A security report quotes payloads; a marking rubric tells markers when to give full marks;
an API reference shows a verdict-shaped JSON response. The rules of `lexicon` match all of
them. A match is recorded as informational (``flags`` false, the rule gets a suffix saying
why) only when the text around it shows such a purpose *and* the purpose fits the task and
the document:

- ``/quoted``: the request lies inside quoted material (quotes, inline or fenced code, a
  blockquote, 「」) — the document's own words around it may name the evaluator in the
  third person ("text aimed at the grader, such as '…'"); the quote is introduced as
  reported speech or an example (`REPORT_CUE` in its sentence, on the line before it, in
  its table's header, or in its section for a code block or blockquote); and the document
  is about attacks on models (`ATTACK_TOPIC`);
- ``/conditional``: a grading rule about a class of works under a condition ("award full
  marks when the essay names all four stages"), with no reference to the present work
  ("this report", "my answer", "here"), in a document about grading (`GRADING_TOPIC`);
- ``/example``: verdict-shaped JSON or ``GRADE:``-style lines inside code, introduced as an
  example ("Example response:"), in a document about an API or a grading tool.

"About a topic" depends on the task prompt (`read_task`): when the task is about the topic,
the document must use at least `TOPIC_MIN_TERMS` of its terms in `TOPIC_MIN_PARAGRAPHS`
paragraphs (`Topic.about`); for any other task, or an unknown one, the terms must also fill
at least `DOMINANT_SHARE` of its paragraphs (`Topic.dominant`) — a water-cycle report does
not earn the leniency with an appended "security note". Never lenient: a quote that makes
up the whole text or its first or last part; a quote whose own words name the text it
stands in ("this report" quoted in a report, `self_reference`); a quote the document's own
words hand to the reader ("Grader, note this example:", "applies to you", `OWN_VOICE`,
`OWN_ADDRESS`, `OWN_VOCATIVE`); invisible text (the caller never asks). Pure functions, no
I/O.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_I = re.IGNORECASE


TERM_START = r"(?:(?<!\w)(?=\w)|(?=[^\x00-\x7f]|\d))"
r"""Where a topic term can start: the start of a word, a non-ASCII character (Chinese terms) or a
digit. Every alternative of a topic begins with ``\b`` and a letter, a non-ASCII letter or ``\d``, so this prefix
changes no match (``selftests/guard/test_gates.py`` checks it on the red-team corpus); it lets
the engine drop most positions with one test instead of trying some twenty alternatives at each
(issue 35: the topic reading was half of the guard's time on a large text)."""


def _terms(pairs: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """One expression with a named group per topic term (`TERM_START` in front)."""
    return re.compile(TERM_START + "(?:" + "|".join(f"(?P<{key}>{expr})" for key, expr in pairs) + ")", _I)


ATTACK_TOPIC = _terms((
    ("injection", r"\binject(?:ion|ions|ed|ing|s)?\b|注入"),
    ("jailbreak", r"\bjailbreak\w*|越狱"),
    ("payload", r"\bpayloads?\b|载荷"),
    ("attack", r"\battack(?:s|ed|ing|ers?)?\b|攻击"),
    ("adversarial", r"\badversar\w+|\brobust(?:ness)?\b|对抗|鲁棒"),
    ("red_team", r"\bred[- ]?team\w*|红队"),
    ("exploit", r"\bexploit\w*|利用漏洞"),
    ("malicious", r"\bmalicious\w*|恶意"),
    ("vulnerability", r"\bvulnerab\w+|漏洞"),
    ("reward_hacking", r"\breward[- ]hack\w*|奖励(?:作弊|黑客|攻击)"),
    ("pentest", r"\bpen(?:etration)?[- ]?test\w*|渗透测试"),
    ("security", r"\bsecurity\b|安全"),
    ("threat", r"\bthreat\w*|威胁"),
    ("manipulation", r"\bmanipulat\w+|操纵"),
    ("mitigation", r"\bmitigat\w+|缓解|防御|防范"),
    ("spotlighting", r"\bspotlighting\b|\bdelimiters?\b|分隔符"),
    ("judge", r"\b(?:judge|grader|evaluator|reward\s+model)s?\b|评分模型|评审模型|裁判模型"),
    ("detection", r"\bdetect(?:ion|ions|or|ors|ed|s)?\b|\bscann(?:er|ers|ing)\b|\bfalse[- ]positives?\b|\bsuspicious\b|"
                  r"检测|扫描|误报|可疑"),
    ("forgery", r"\bforg(?:e|ed|ery|eries|ing)\b|\bfake[ds]?\b|\bspoof\w*|\bimpersonat\w+|伪造|冒充"),
    ("disclosure", r"\bbug[- ]bount(?:y|ies)\b|\bseverity\b|\bresponsible\s+disclosure\b|\bCVE-\d+|\bproof[- ]of[- ]concept\b|"
                   r"漏洞赏金|严重程度|危害等级|高危|中危|低危"),
    ("concealment", r"\b(?:hidden|invisible|white|concealed)\s+(?:text|instructions?|prompts?|fonts?|paragraphs?)\b|"
                    r"\bhid(?:e|es|ing)\s+(?:\w+\s+)?(?:text|instructions?|prompts?|messages?)\b|"
                    r"隐藏(?:的)?(?:文字|文本|指令|内容)|白色字体|白色文字"),
    ("phishing", r"\bphish\w*|\bscams?\b|\bfraud\w*|\bsocial\s+engineering\b|网络钓鱼|诈骗"),
    ("cheating", r"\bcheat\w*|\bgam(?:e|ed|ing)\s+the\s+(?:judge|grader|evaluator|reward|benchmark)|作弊|违规"),
))
"""Words of a text *about* attacks on models (a security report, a postmortem, a survey, a
course handout); each alternative counts once however often it occurs."""
GRADING_TOPIC = _terms((
    ("rubric", r"\brubrics?\b|评分标准|评分细则|评分表"),
    ("marking", r"\bmark(?:ing|s)?\s+schemes?\b|\bmarking\b|\bmarkers?\b|\bmarked\b|"
                r"\b(?:give|award|lose|deduct|get)s?\s+(?:no\s+|full\s+|half\s+|\d+\s+)?marks\b|阅卷|批改"),
    ("grading", r"\bgrad(?:e|es|ed|ing|er|ers)\b|\bautograd\w*|评分|打分"),
    ("coursework", r"\b(?:assignments?|homework|exams?|students?|pupils?|quiz(?:zes)?|tests?|test\s+cases?|submissions?)\b|"
                   r"作业|考试|测验|学生|试卷"),
    ("criteria", r"\bcriteri(?:a|on)\b|评分项|标准"),
    ("points", r"\b\d+\s*(?:points?|marks?|pts)\b|\d+\s*分"),
    ("band", r"\b(?:bands?|levels?|descriptors?)\b|等级|档"),
    ("assessment", r"\bassess(?:ment|ments|or|ors)?\b|\bexaminers?\b|考核|考官"),
    ("review", r"\breview(?:er|ers|ed|ing)?\b|\bchecklist\b|\bapprov(?:e|al|ed)\b|评审|审查"),
    ("rating", r"\brating\b|\bscor(?:e|es|ed|ing)\b|得分|分值"),
    ("judging", r"\bjudg(?:e|es|ing)\b|评委|评判"),
    ("questions", r"\bquestions?\s+\d+\b|\bpart\s+[A-H]\b|\b(?:correct|right|wrong|incorrect|model)\s+answers?\b|"
                  r"\banswers?\s+(?:key|sheet)s?\b|第\s*\d+\s*题|答案|题目"),
    ("scale", r"\b\d+\s*/\s*\d+\b|\bfrom\s+\d+\s+to\s+\d+\b|\bout\s+of\s+\d+\b|\b\d+-point\s+scale\b|满分\s*\d+|\d+\s*分制"),
))
"""Words of a text about grading (a marking rubric, a review checklist, judging guidelines)."""
API_TOPIC = _terms((
    ("api", r"\bAPIs?\b|接口"),
    ("endpoint", r"\bendpoints?\b|\b(?:GET|POST|PUT|PATCH|DELETE)\s+/"),
    ("request", r"\brequests?\b|请求"),
    ("response", r"\bresponses?\b|响应"),
    ("field", r"\bfields?\b|字段"),
    ("schema", r"\bschemas?\b|\bJSON\b"),
    ("parameter", r"\bparam(?:eter)?s?\b|参数"),
    ("http", r"\bHTTP\b|\bstatus\s+code\b|状态码"),
    ("returns", r"\breturns?\b|返回"),
    ("output", r"\boutputs?\b|\bCLI\b|\bexit\s+code\b|输出"),
))
"""Words of a text documenting an API, a data format or a tool's output."""
EVALUATOR_SUBJECT = re.compile(r"\b(?:llm|ai|model|automated)[- ]?(?:judge|grader|evaluator|graders|judges|evaluators)\b|"
                               r"\bllm[- ]as[- ]a[- ]judge\b|评分模型|大模型评审|自动评分|"
                               r"\b(?:llms?|(?:large\s+)?language\s+models?|ai)\b[^.\n]{0,30}?\b(?:to\s+(?:grade|judge|score|mark)|"
                               r"as\s+(?:an?\s+)?(?:judge|grader|evaluator)s?)\b|"
                               r"(?:大模型|语言模型|AI)[^。！？\n]{0,8}?(?:打分|评分|裁判|评审|批改|阅卷)", _I)
"""A task about LLM judges is a task about attacks on them (a course handout, a survey)."""
TOPIC_MIN_TERMS = 3
"""Distinct topic terms (outside quotes and code) that make a document about the topic …"""
TASK_ATTACK_MIN_TERMS = 2
"""Distinct attack terms a document needs when its task prompt is about attacks on models
(`Reader._fits`): the task already says what the document is about. The other topics keep
`TOPIC_MIN_TERMS`: their task words are common ("output/report.md" names an output)."""
TOPIC_MIN_PARAGRAPHS = 2
"""… found in at least this many paragraphs (when the document has more than one): a report
on the water cycle does not become a security report by one appended paragraph."""

QUOTED = re.compile(
    r"```.{0,4000}?```|~~~.{0,4000}?~~~|`[^`\n]{1,400}`|\"(?:[^\"\n]|\n(?![ \t]*\n)){2,400}\"|"
    r"\u201c(?:[^\u201d\n]|\n(?![ \t]*\n)){2,400}\u201d|(?<!\w)'[^'\n]{2,300}'(?!\w)|\u2018[^\u2019\n]{2,300}\u2019|"
    r"\u300c[^\u300d\n]{1,300}\u300d|\u300e[^\u300f\n]{1,300}\u300f|\u00ab[^\u00bb\n]{2,300}\u00bb|^[ \t]{0,3}>[^\n]{0,600}$",
    re.DOTALL | re.MULTILINE)
"""Quoted material: fenced code, inline code, double/single/typographic quotes (a double
quote may wrap onto a second line, never across a blank line), CJK corner brackets,
guillemets, Markdown blockquote lines."""
REPORT_CUE = re.compile(
    r"\b(?:such\s+as|like|e\.g\.?|i\.e\.?|for\s+(?:example|instance)|examples?|samples?|read|reads|reading|said|says|saying|"
    r"write|wrote|writes|writing|written|add(?:s|ed)?|ask(?:s|ed|ing)?|tell(?:s|ing)?|told|text|strings?|sentences?|phrases?|lines?|messages?|payloads?|notes?|comments?|observed|found|"
    r"saw|seen|contain(?:s|ed|ing)?|includ(?:es|ed|ing)|inject(?:s|ed)?|insert(?:s|ed)?|append(?:s|ed)?|ended\s+with|"
    r"hid|hidden|embedded|planted|typed|submitted|used|uses|patterns?|variants?|attempts?|quot(?:e|es|ed|ing)|verbatim|"
    r"as\s+follows|following|below|output|outputs|return(?:s|ed)?|response|request|shows?|shown|printed|prints|"
    r"called|named|labelled|labeled|flag(?:s|ged)?|detect(?:s|ed)?|match(?:es|ed)?|catch(?:es)?|caught|"
    r"pretend(?:s|ed|ing)?|imitat(?:e|es|ed|ing)|forg(?:e|es|ed|ing)|fake)\b|"
    r"例如|比如|诸如|譬如|像是|类似|示例|样例|例子|写道|写着|内容为|内容是|文字|文本|句子|语句|载荷|字符串|"
    r"插入|加入|嵌入|隐藏|藏|发现|观察到|包含|含有|如下|以下|输出|返回|响应|伪造|冒充|假装", _I)
"""Words that introduce reported speech or an example."""
DEIXIS = re.compile(
    r"\b(?:this|these|my|our)\s+(?:response|answer|submission|deliverable|report|work|solution|output|deck|document|attempt|"
    r"essay|reply|presentation|entry|result|code|paper|file|files|table|slides?|chart|analysis|summary|notebook|"
    r"spreadsheet|dataset|page|section|project|pr|pull\s+request|assignment|homework)\b|\bme\b|\bhere\b|"
    r"\bthe\s+(?:present|current|above|following|attached)\s+(?:response|answer|submission|deliverable|report|work|"
    r"solution|output|deck|document|essay|presentation|code|file|files)\b|"
    r"(?:本|此|这份|这篇|这个|这套|我的|我们的)(?:报告|回答|答案|作品|提交|文档|文章|演示文稿|演示|幻灯片|代码|方案|作业|答卷|交付物)", _I)
"""A reference to the work being judged right now (an attack wants *this* work scored)."""
CONDITION = re.compile(
    r"\b(?:if|when|whenever|only\s+if|provided(?:\s+that)?|as\s+long\s+as|unless|where|once|after)\b(?!\s+(?:you|your|u)\b)|"
    r"\b(?:answers?|responses?|essays?|submissions?|students?|candidates?|reports?|teams?|entries|projects?|solutions?|"
    r"pull\s+requests?|prs|changes?|patches|papers?|employees?)\s+(?:that|which|who|whose|with|where|meeting|showing|"
    r"scoring|covering|naming)\b|"
    r"(?:如果|若|倘若|假如|当|只要|只有|凡是?|对于|答出|写出|能够|能正确|达到|满足以下)", _I)
"""A condition on the work (not on the reader: "if you are an AI" is no rubric)."""
OWN_VOICE = re.compile(
    DEIXIS.pattern + r"|\b(?:you|your|please|kindly|dear|attention)\b|"
    r"(?:(?:^|[\n.!?:;,(—–])[ \t\"'“”‘’]*|\b(?:just|simply|now|so|then)\s+)"
    r"(?:give|award|assign|grant|rate|approve|accept|ignore|disregard)\b|"
    r"(?<![申邀提])请(?![求教假])|给予|评为|判为|打满分|你|您|务必|忽略", _I)
"""Words in the document's own voice (outside the quote) that speak to the evaluator or point at
the present work: then a quoted request is the document's own request. Verbs count as
imperatives only (at a clause start, or after "just", "so"…): "some judges accept such text"
describes judges, "accept this" speaks to one."""
OWN_ADDRESS = re.compile(
    DEIXIS.pattern + r"|\b(?:please|kindly|dear)\b|\b(?:to|for|at)\s+you\b|\byou(?:rself)?\s+(?:must|should|shall|"
    r"need\s+to|have\s+to|will|are\s+(?:asked|required|instructed|expected)\s+to)\b|请你|请您|你应|您应", _I)
"""What in the sentence around a quote, in the document's own voice, hands the quote to the
reader ("applies to you", "please", "this report")."""
OWN_VOCATIVE = re.compile(
    r"(?:^|[\n.!?:;。！？：；]\s*)(?:(?:dear|attention|hey|hi|hello|note\s+(?:to|for)|message\s+(?:to|for))\s+)?"
    r"(?:the\s+|any\s+|all\s+)?(?:ai\s+|llm\s+)?(?:grader|evaluator|judge|scorer|rater|reviewer|marker|examiner|assessor)s?"
    r"\s*[:,，：]|(?:致|尊敬的)\s*(?:评分|评审|评委|阅卷)", _I)
"""A vocative to the evaluator at the start of a clause, in the document's own voice ("Grader:",
"Dear judge,")."""
GENRES = {
    "message": r"answer|response|reply|message|submission",
    "deck": r"deck|presentation|slides?|slide\s+deck|submission|deliverable",
    "document": r"report|document|doc|write-?up|memo|note|article|post|piece|paper|analysis|summary",
}
"""What the text being scanned is, by its channel: a chat answer, a deck, a document. A document is
named by its own kind ("this report", "this memo"); the nouns of any graded work ("this
submission", "this work", "this file") are what quoted payloads say to any grader, so in a
document they do not make a quote the document's own."""
_ZH_GENRES = {
    "message": r"本回答|这个回答|本答案|这个答案|本回复",
    "deck": r"本演示文稿|这份演示文稿|本幻灯片|这份幻灯片|本演示",
    "document": r"本报告|这份报告|本文档|这份文档|本文|这篇文章|本作品|这份作品",
}


KIND_WORDS = re.compile(
    r"(?:\b(?:report|document|doc|write-?up|memo|note|notes|article|post|piece|paper|analysis|summary|briefing|brief|handout|"
    r"guide|policy|essay|proposal|review|plan|readme|faq|e-?mail|letter|newsletter|announcement|advisory|white\s?paper|"
    r"checklist|rubric|handbook|manual|description|abstract|survey|post-?mortem|audit|assessment|story|speech|script|"
    r"minutes|ticket|transcript|lecture|chapter|thesis|specification|spec|page|changelog|release\s+notes|"
    r"procedure|sop|faq)s?\b|"
    r"报告|文档|材料|讲义|通告|文章|论文|指南|政策|方案|总结|说明|手册|邮件|通知|综述|作文|简报|纪要|清单|问答|提纲|"
    r"反思|规范|制度|教案|试卷|答卷|作业)"
    r"(?![\s-]*(?:grad|scor|mark|review|check|judg|evaluat|system|service|model|platform|tool|bot|contest|competition|"
    r"generator|writer|dataset|pipeline|评分|批改|阅卷|评审|评判|系统|平台|模型|比赛|大赛))", _I)
"""Words that name what kind of text a document is ("report", "briefing", "handout", 报告, 材料);
not as a modifier ("an essay grader", 作文评分系统: the essay is what is graded, not the document)."""
_TITLE = re.compile(r"\A\s*(?:#{1,3}[ \t]*)?([^\n:：。.!?！？]{1,80})")
"""A document's title: its first line, up to a colon or a full stop ("Security assessment: …")."""


KIND_SYNONYMS = ({"report", "write-up", "writeup", "document"}, {"briefing", "brief"}, {"article", "post", "blog post"},
                 {"handout", "note", "lecture"}, {"报告", "文档"}, {"材料", "讲义"}, {"文章", "论文"})
"""Kinds a text may call itself by interchangeably: a report's payload that says "this write-up"
names the report."""


def kinds_in(text: str) -> frozenset[str]:
    """The kinds of text (`KIND_WORDS`, lower case, singular, with their `KIND_SYNONYMS`) that `text` names."""
    found = {m.group(0).lower().rstrip("s") if m.group(0).isascii() else m.group(0) for m in KIND_WORDS.finditer(text)}
    return frozenset(found.union(*(group for group in KIND_SYNONYMS if found & group)))


def self_reference(genre: str, kinds: frozenset[str] = frozenset()) -> re.Pattern[str]:
    """A reference to the present text itself ("this report" in a document, "this deck" in a
    deck, "this answer" in a chat answer): a quoted request that names the very text it stands
    in is the text's own request, however it is framed.

    A document is named by its own kind when it is known (`kinds`: what the task prompt asks
    for and what the document's title calls it): a briefing quoting a payload that says "this
    report" does not name itself, a report does. "This document" and 本文 always name it."""
    if genre != "document" or not kinds:
        return re.compile(rf"\b(?:this|the\s+present|my|our)\s+(?:{GENRES[genre]})\b|{_ZH_GENRES[genre]}", _I)
    english = "|".join(sorted(re.escape(k) for k in kinds if k.isascii()) + ["document", "doc"])
    chinese = "|".join(sorted(re.escape(k) for k in kinds if not k.isascii()) + ["文档"])
    return re.compile(rf"\b(?:this|the\s+present|my|our)\s+(?:{english})s?\b|本文|(?:本|这份|这篇|此|我的)(?:{chinese})", _I)


EXAMPLE_CUE = re.compile(
    r"\b(?:examples?|samples?|e\.g\.?|for\s+instance|response|request|returns?|output|outputs|prints?|body|payload|"
    r"looks?\s+like|such\s+as|format)\b|示例|样例|例如|输出|返回|响应|格式", _I)
"""Words that introduce a code block as an example of a format."""
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_STOP = r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)\.(?!\w)|[!?。！？]"
"""A sentence's last character: "e.g." and "i.e." do not end a sentence, nor does the dot of "3.5"."""
_SENTENCE_END = re.compile(rf"{_STOP}|\n")


@dataclass(frozen=True)
class TaskTopics:
    """What the task prompt is about, from its words: attacks on models, grading, an API or
    tool output. Built with `read_task`; None stands for an unknown task (no gate)."""

    attacks: bool
    grading: bool
    api: bool
    kinds: frozenset[str] = frozenset()
    """The kinds of text the task asks for (`kinds_in`: "report", "briefing", 材料…)."""


def read_task(text: str | None) -> TaskTopics | None:
    """The topics of a task prompt (None when there is none)."""
    if text is None or not text.strip():
        return None
    return TaskTopics(attacks=bool(ATTACK_TOPIC.search(text) or EVALUATOR_SUBJECT.search(text)),
                      grading=bool(GRADING_TOPIC.search(text)), api=bool(API_TOPIC.search(text)), kinds=kinds_in(text))


def quote_spans(body: str) -> list[tuple[int, int]]:
    """Quoted spans of `body` (see `QUOTED`), consecutive blockquote lines merged into one."""
    spans: list[tuple[int, int]] = []
    for m in QUOTED.finditer(body):
        a, b = m.start(), m.end()
        if spans and body[spans[-1][1]:a].strip() == "" and body[a:b].lstrip().startswith(">") \
                and body[spans[-1][0]:spans[-1][1]].lstrip().startswith(">"):
            spans[-1] = (spans[-1][0], b)
        else:
            spans.append((a, b))
    return spans


def _outside(body: str, spans: list[tuple[int, int]]) -> str:
    parts, pos = [], 0
    for a, b in spans:
        parts.append(body[pos:a])
        parts.append(" " * (b - a))
        pos = max(pos, b)
    parts.append(body[pos:])
    return "".join(parts)


_MARKUP = re.compile(r"[\s#>*_`|\-–—:;,.!?。！？]+")
DOMINANT_SHARE = 0.5
"""Share of a document's paragraphs that must use a topic's terms unless the task is about that
topic: the document as a whole, not an added section, is about it."""


@dataclass(frozen=True)
class Topic:
    """How a document uses one topic's terms (outside its quotes and code)."""

    terms: int
    """Distinct terms used."""
    paragraphs: int
    """Paragraphs (blank-line separated, headings and short lines left out) using one."""
    share: float
    """`paragraphs` over all such paragraphs (0 for a document without one)."""

    @property
    def about(self) -> bool:
        """At least `TOPIC_MIN_TERMS` terms, in at least `TOPIC_MIN_PARAGRAPHS` paragraphs (or all
        of them, when there are fewer)."""
        return self.terms >= TOPIC_MIN_TERMS and (self.paragraphs >= TOPIC_MIN_PARAGRAPHS or self.share >= 1.0)

    @property
    def dominant(self) -> bool:
        """`about`, and in at least `DOMINANT_SHARE` of the paragraphs."""
        return self.about and self.share >= DOMINANT_SHARE


def _paragraphs(text: str) -> list[tuple[str, bool]]:
    """The paragraphs of `text` (blank-line separated), each with whether it counts for a topic's
    share (at least 30 characters besides markup): split once for all topics."""
    return [(para, len(_MARKUP.sub("", para)) >= 30) for para in _PARAGRAPH.split(text)]


def _topic(paragraphs: list[tuple[str, bool]], topic: re.Pattern[str]) -> Topic:
    """How `paragraphs` (`_paragraphs`) use `topic`'s terms: one pass of `topic` over each."""
    keys: set[str] = set()
    with_terms = 0
    for para, counted in paragraphs:
        found = {m.lastgroup for m in topic.finditer(para) if m.lastgroup}
        keys |= found
        with_terms += bool(found) and counted
    counted_paragraphs = sum(counted for _, counted in paragraphs)
    return Topic(len(keys), with_terms, with_terms / counted_paragraphs if counted_paragraphs else 0.0)


@dataclass(frozen=True)
class Discourse:
    """A document's topics, read outside its quotes and code: attacks, grading, an API."""

    attacks: Topic
    grading: Topic
    api: Topic
    kinds: frozenset[str] = frozenset()
    """The kinds of text its title (first line) calls it (`kinds_in`)."""

    @classmethod
    def read(cls, body: str, code: bool = False) -> Discourse:
        """The topics of `body` (comparable text of the whole document), outside its quotes
        unless it is a code or data file (`code`: its prose is in its strings and comments)."""
        plain = _paragraphs(body if code else _outside(body, quote_spans(body)))
        title = _TITLE.match(body)
        return cls(attacks=_topic(plain, ATTACK_TOPIC), grading=_topic(plain, GRADING_TOPIC), api=_topic(plain, API_TOPIC),
                   kinds=kinds_in(title.group(1)) if title else frozenset())


def _sentence(body: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``body[start:end]``: back to the previous sentence end, on to the next."""
    a = max((m.end() for m in _SENTENCE_END.finditer(body, max(0, start - 400), start)), default=max(0, start - 400))
    m = _SENTENCE_END.search(body, end, end + 400)
    return a, m.start() if m else min(len(body), end + 400)


def _frame(body: str, a: int, b: int, cue: re.Pattern[str]) -> bool:
    """Whether the quote ``body[a:b]`` is introduced or followed by a `cue` word: in its sentence,
    on the line before it, in the header of its table, or — a code block or a blockquote — in
    the text of its section before it (back to the previous heading, other quotes left out)."""
    window = body[max(0, a - 300):a]
    s0 = max((m.end() for m in re.finditer(rf"{_STOP}|\n[ \t]*\n", window)), default=0)
    before = window[s0:]
    line_start = body.rfind("\n", 0, a)
    if not before.strip() or body[line_start + 1:a].strip() == "":
        before = f"{before} {window.rstrip().rsplit(chr(10), 1)[-1]}"
    if body.startswith(("```", "~~~"), a) or body[a:b].lstrip().startswith(">"):
        section = body[max(0, a - 800):a]
        heading = max((m.end() for m in re.finditer(r"^[ \t]{0,3}#[^\n]*$", section, re.MULTILINE)), default=0)
        before = f"{before} {_outside(section[heading:], quote_spans(section[heading:]))}"
    line_end = body.find("\n", a)
    if body[line_start + 1:line_end if line_end >= 0 else len(body)].lstrip().startswith("|"):
        rows, header = body[:line_start + 1].rstrip("\n").split("\n"), ""  # a table row: its header names the cells
        while rows and rows[-1].lstrip().startswith("|"):
            header = rows.pop()
        before = f"{before} {header}"
    after = body[b:b + 200]
    after = after[:m.start()] if (m := _SENTENCE_END.search(after)) else after
    return bool(cue.search(before) or cue.search(after))


_CONTENT = re.compile(r"[^\s#>*_`\-–—:;,.!?。！？\"'“”‘’「」()]")
"""A character that is not markup or punctuation."""


def _content_bounds(body: str) -> tuple[int, int]:
    """The offsets of the first and the last content character of `body` (`_CONTENT`), or
    ``(len(body), -1)`` when it has none: computed once, so `_edge` costs nothing per finding."""
    first = _CONTENT.search(body)
    if first is None:
        return len(body), -1
    last = first.start()
    for chunk_end in range(len(body), 0, -4096):  # from the end, a chunk at a time
        found = [m.start() for m in _CONTENT.finditer(body, max(first.start(), chunk_end - 4096), chunk_end)]
        if found:
            last = found[-1]
            break
    return first.start(), last


def _edge(bounds: tuple[int, int], a: int, b: int) -> bool:
    """The quote ``[a, b)`` makes up the start or the end of the text (nothing but markup around
    it); `bounds` from `_content_bounds`."""
    return a <= bounds[0] or b > bounds[1]


EVALUATOR_RULES = frozenset({"en.evaluator_score", "en.as_evaluator", "en.deserves_score", "en.give_score", "en.mark_all_met",
                             "en.evaluator_should", "en.be_marked", "en.rubric_as_met", "en.record_as", "en.verdict_for_all",
                             "en.check_verdict", "en.expected_verdict", "zh.verdict_request",
                             "en.rubric_claim", "en.meets_rubric", "zh.score_demand", "zh.give_full", "zh.rubric_claim",
                             "zh.as_evaluator", "zh.evaluator_score", "en.deserves_verdict", "shape.en_address",
                             "shape.en_vocative", "shape.zh_address"})
"""Rules that a grading rule of a rubric can match (not the orders to drop the instructions)."""
REPORTED_RULES = frozenset({"en.deserves_score", "en.evaluator_score", "zh.evaluator_score", "en.rubric_claim", "zh.rubric_claim"})
"""Rules that match a statement of a grade as well as a request for one: in a document about
grading, a sentence that neither points at the present work (`DEIXIS`, the document's own kind)
nor speaks to anyone (`OWN_VOICE`, `OWN_VOCATIVE`) reports a grade given ("it earns full marks for
structure", 满分作文须经复核) — ``/reported``."""
FORMAT_RULES = frozenset({"fp.verdict_json", "fp.grade_line", "fp.score_line", "fp.hit_line", "fp.row_verdict_line"})
"""Rules that an example of a data format or a tool's output can match."""


@dataclass
class Reader:
    """Reads each finding of one text in context (see the module docstring).

    Args:
        body: the comparable text the findings' offsets refer to.
        document: the topics of the whole document (None: `body` is the whole document).
        task: the task prompt's topics (None: unknown, no gate).
    """

    body: str
    document: Discourse | None = None
    task: TaskTopics | None = None
    genre: str = "document"
    """What `body` is (a key of `GENRES`)."""
    code: bool = False
    """`body` is a code or data file (``.json``, ``.py``, ``.yaml``…): all of it is shown as code,
    so a verdict-shaped value in it is an example of its format when the document fits an API or
    grading."""

    def __post_init__(self) -> None:
        self.quotes = quote_spans(self.body)
        self._starts = [a for a, _ in self.quotes]
        self.whole = self.document is None
        self.topics = self.document or Discourse.read(self.body, self.code)
        self.itself = self_reference(self.genre, self.topics.kinds | (self.task.kinds if self.task else frozenset()))
        self.blanked = _outside(self.body, self.quotes)
        """`body` with its quoted material blanked (offsets kept): the document's own voice."""
        self._bounds = _content_bounds(self.body)

    def quote_at(self, at: int) -> tuple[int, int] | None:
        """The quoted span holding offset `at`, or None."""
        i = bisect.bisect_right(self._starts, at) - 1
        return self.quotes[i] if i >= 0 and self.quotes[i][0] <= at < self.quotes[i][1] else None

    def quote_over(self, start: int, end: int) -> tuple[int, int] | None:
        """The first quoted span overlapping ``body[start:end]``, or None."""
        i = max(0, bisect.bisect_right(self._starts, start) - 1)
        return next(((a, b) for a, b in self.quotes[i:i + 64] if a < end and start < b), None)

    def _fits(self, topic: Topic, task_allows: bool | None) -> bool:
        """The document is about the topic: a task about it needs the document to use
        `TOPIC_MIN_TERMS` of the topic's terms (a short API reference of two paragraphs is about
        its API when the task asks for one; issue 35's blind round); any other task, or an unknown one, needs the whole document to be about
        it (`Topic.dominant`), not an added section."""
        least = TASK_ATTACK_MIN_TERMS if topic is self.topics.attacks else TOPIC_MIN_TERMS
        return topic.terms >= least if task_allows else topic.dominant

    def leniency(self, rule: str, start: int, end: int, quote: tuple[int, int] | None) -> str | None:
        """``quoted``, ``conditional`` or ``example`` when the evidence ``body[start:end]`` of
        `rule` (its match, or the sentence of a window rule) is talked about rather than
        addressed to the evaluator; None when it flags.

        `quote` is the quoted span the finding stands on (the caller found that the rule does
        not match the document's own voice, `blanked`, there), or None. A quoted request is a
        quotation even when the document's own words around it name the evaluator ("text
        addressed to the grader, such as '…'"), unless those words speak to the evaluator or
        point at the present work (`OWN_VOICE`), or the quote names the very text it stands in
        (`self_reference`: "this report" quoted in a report)."""
        task = self.task
        if quote is not None:
            a, b = quote
            own = self.blanked[start:end]
            s, e = _sentence(self.body, a, b)
            around = self.blanked[s:e]
            if (self.whole and _edge(self._bounds, a, b)) or OWN_VOICE.search(own) or OWN_VOCATIVE.search(own) or \
                    OWN_ADDRESS.search(around) or OWN_VOCATIVE.search(around) or self.itself.search(self.body, a, b):
                return None
            code = self.code or self.body.startswith(("`", "~~~"), a)
            if self._fits(self.topics.attacks, task.attacks if task else None):
                return "quoted"
            fits = self._fits(self.topics.api, task.api if task else None) or \
                self._fits(self.topics.grading, task.grading if task else None)
            if code and fits and (rule in FORMAT_RULES or self.body.startswith(("```", "~~~"), a)):
                return "example"
            return None
        if self.code and rule in FORMAT_RULES and (self._fits(self.topics.api, task.api if task else None) or
                                                   self._fits(self.topics.grading, task.grading if task else None)):
            return "example"
        if rule in EVALUATOR_RULES and self._fits(self.topics.grading, task.grading if task else None):
            s, e = _sentence(self.body, start, end)
            sentence = self.body[s:e]
            if CONDITION.search(sentence) and not DEIXIS.search(sentence):
                return "conditional"
            if rule in REPORTED_RULES and not (DEIXIS.search(sentence) or OWN_VOICE.search(sentence) or
                                               OWN_VOCATIVE.search(sentence) or self.itself.search(sentence)):
                return "reported"
        return None
