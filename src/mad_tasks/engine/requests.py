"""What a call asks for, beside its prompt: `Call.asks`.

Every method describes each call it makes with one of these records. The prompt says it in words for
the model; the record says it in values (answers already parsed, candidates, sides) for whatever
needs to know without reading the words: the simulated model answers from it, and test scripts
reply by it. So a prompt can be reworded without touching either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .answers import AnswerFormat
from .protocols.voting import BallotRules


class Request:
    """Base of what a call asks for, in values (each method family declares its own kinds): the
    simulated model answers by the request's class, the test scripts by its fields. `acts`: the
    call is an agent's turn at the task, which an acting agent (`-S debater=react`) takes with
    its tools."""

    acts: ClassVar[bool] = False


@dataclass(frozen=True)
class AnswerRequest(Request):
    """Reasoning, then a final answer in `fmt`."""

    acts: ClassVar[bool] = True

    fmt: AnswerFormat
    # the answers of other agents the prompt shows (`-S peers=self`: the agent's own shown in
    # their place; `noise`: none)
    shown: tuple[str, ...] = ()
    current: str | None = None  # the solution under discussion (decision debates)
    agreement: bool = False  # the reply must start with [AGREE] or [DISAGREE]
    confidence: bool = False  # a CONFIDENCE line before the answer (CortexDebate)


@dataclass(frozen=True)
class ReasoningRequest(Request):
    """Reasoning steps only, no final answer (decision debates, reasoning style)."""

    acts: ClassVar[bool] = True

    agreement: bool = False  # the reply must start with [AGREE] or [DISAGREE]


@dataclass(frozen=True)
class ExtractRequest(Request):
    """The solution that `text` gives, restated in `fmt`; `conclude`: the text is reasoning only,
    so write the solution it leads to."""

    fmt: AnswerFormat
    text: str
    conclude: bool = False


@dataclass(frozen=True)
class PersonaRequest(Request):
    """One more expert persona, different from the roles already `taken`."""

    taken: tuple[str, ...] = ()


@dataclass(frozen=True)
class PersonasRequest(Request):
    """`count` different expert personas in one reply, as a JSON list."""

    count: int


@dataclass(frozen=True)
class BallotRequest(Request):
    """A ballot under `rules` over the candidates, numbered from 0, whose answers these are."""

    fmt: AnswerFormat
    candidates: tuple[str, ...]
    rules: BallotRules


@dataclass(frozen=True)
class DefenceRequest(Request):
    """A D3 advocate's defence of answer `side` ("A" or "B"): argued, merged or summarised."""

    side: str


@dataclass(frozen=True)
class ScoreRequest(Request):
    """A D3 judge's scores of the answers shown as A and B, one row per criterion, then totals."""

    a: str
    b: str
    criteria: int
    form: AnswerFormat | None = None  # how the totals are stated (an authors' form), if not ANSWER


@dataclass(frozen=True)
class FeedbackRequest(Request):
    """A D3 judge's feedback, without scores, on the defences of the answers shown as A and B
    (MORE's feedback-only call, `judge_calls=split`)."""

    a: str
    b: str


@dataclass(frozen=True)
class VerdictRequest(Request):
    """A D3 juror's vote between the answers shown as A and B (a PRD reviewer's preference, which
    may also find them equal)."""

    a: str
    b: str
    form: AnswerFormat | None = None  # how the vote is stated (an authors' form), if not ANSWER


@dataclass(frozen=True)
class RecapRequest(Request):
    """A D3 summary that no later call reads, of a judge's evaluation or a juror's vote (`of`:
    "evaluation" or "vote"): the authors' SAMRE code makes it (`summaries=code`)."""

    of: str


# -- Tree-of-Debate (engine/methods/tod/debate.py): every reply is a JSON object (its schema goes
# with the call, `Sampling.schema`); `author` is 0 or 1, the paper's Author 0 and Author 1


@dataclass(frozen=True)
class ClaimsRequest(Request):
    """Self-deliberation: 1 to `most` claims of `author` on the node's topic, each citing
    evidence by its 1-based id among `evidence` excerpts (0: no excerpts, the No-SD ablation)."""

    author: int
    topic: str
    evidence: int
    most: int


@dataclass(frozen=True)
class RelevanceRequest(Request):
    """Whether `segment` supports, refutes or clarifies `claim`, or is irrelevant to it (four
    Yes/No fields)."""

    claim: str
    segment: str


@dataclass(frozen=True)
class SubtopicsRequest(Request):
    """The moderator's subtopics of `topic` (at most `most`; `most` = 1: one combined topic, the
    No-Tree ablation), each mapped to claim ids of Author 0 (1..`claims[0]`) and Author 1."""

    topic: str
    claims: tuple[int, int]
    most: int


@dataclass(frozen=True)
class ArgumentRequest(Request):
    """`author`'s turn at a node: `stage` "present" (an argument), "respond" (a response to the
    opposition) or "revise" (a revised argument)."""

    author: int
    stage: str
    topic: str


@dataclass(frozen=True)
class ExpandRequest(Request):
    """The moderator's three judgments of a debated node (progression, open questions, a clear
    winner) with an explanation; `level` is the node's depth (root 0)."""

    topic: str
    level: int


@dataclass(frozen=True)
class SummaryRequest(Request):
    """A `{"summary": ...}` object: `source` "tree" (the synthesis of a debate tree), "papers"
    (the single-stage baseline), "paper" (two-stage: one paper's motivation and novelties) or
    "summaries" (two-stage: the comparison of the two)."""

    source: str


@dataclass(frozen=True)
class RubricRequest(Request):
    """A judge's grade of a comparative summary: `criterion` "factuality" (1/0 per sentence, for
    `sentences` numbered sentences), "breadth" or "contextualization" (a level from 0 to 4)."""

    criterion: str
    sentences: int = 0


@dataclass(frozen=True)
class PreferenceRequest(Request):
    """A judge's preference between summaries shown as A and B on `criterion`: A, B or tie."""

    criterion: str
    a: str
    b: str


# -- PD³ (engine/methods/pd3/tournament.py): candidates are shown by anonymous labels; `ids` are the
# same candidates' corpus ids, in the same order, for whatever must know them (the simulated model)


@dataclass(frozen=True)
class PicksRequest(Request):
    """`k` candidates most relevant to the query among those shown (`labels`, whose corpus ids are
    `ids`): an expert's picks with a reason (`round` 0), its statement in debate round `round`
    (after the record of earlier rounds), or, with `final`, a decision ending in a `[RESULT]` list
    of labels in order of relevance (the senior expert, a single LLM deciding a group or choosing
    from all candidates)."""

    ids: tuple[str, ...]
    labels: tuple[str, ...]
    k: int
    round: int = 0
    final: bool = False


@dataclass(frozen=True)
class ConclusionRequest(Request):
    """A similarity conclusion: how the query project relates to the references `ids` (their
    content, key technologies and applications)."""

    ids: tuple[str, ...]


@dataclass(frozen=True)
class DuplicationRequest(Request):
    """An analysis, then `[RESULT]<integer from 1 to 10>`: how much the references `ids`
    duplicate the query project (the highest overlap counts)."""

    ids: tuple[str, ...]


# -- the decision debates' challenge stage (engine/methods/decision/debate.py, seed 004 §4.2)


@dataclass(frozen=True)
class ChallengeRequest(Request):
    """After the decision: the exact word AGREE or DISAGREE on the final answer shown; `answer` is
    that answer in `fmt` (None: it is none, say an irrelevant one)."""

    fmt: AnswerFormat
    answer: str | None


@dataclass(frozen=True)
class CounterfeitRequest(Request):
    """The challenger's replacement of the final answer: a deliberately wrong answer in `fmt`
    (`kind` "wrong") or a reply irrelevant to the question ("irrelevant")."""

    fmt: AnswerFormat
    kind: str


# -- seed 001's comparison methods: PRD's reviews (methods/peer_review.py), GroupDebate's group
# summaries (methods/group_debate.py), also ChatEval's summarizer (methods/chateval.py: the whole
# panel's latest turn is the group)


@dataclass(frozen=True)
class ReviewRequest(Request):
    """Feedback on another agent's solution, which reached `answer` (None: no readable answer),
    ending with a `CONFIDENCE: n` line, n from 1 to 10, when `confidence`."""

    fmt: AnswerFormat
    answer: str | None
    confidence: bool = True


@dataclass(frozen=True)
class GroupSummaryRequest(Request):
    """A summary of one group's latest replies, whose answers are `answers`."""

    fmt: AnswerFormat
    answers: tuple[str, ...]


@dataclass(frozen=True)
class SimilarityRequest(Request):
    """How alike two agents' replies are, a `SIMILARITY:` line from 0 to 1 (CortexDebate's
    prompted similarity); `answers`: the two replies' answers in `fmt` (None: no readable
    answer)."""

    fmt: AnswerFormat
    answers: tuple[str | None, str | None]


@dataclass(frozen=True)
class ConfidenceRequest(Request):
    """How sure the agent is that `answer` is right: a `CONFIDENCE:` line from 0 to 1. The answer
    it just gave (`on_demand`'s verbalized confidence, where the provider returns no token
    log-probabilities), or another agent's (CortexDebate's peer evaluation). `answer` None: no
    readable answer."""

    fmt: AnswerFormat
    answer: str | None
