"""The wording of PD³ and its baselines (the project's own; the paper's appendix A.8 is the model,
not the text), and how much of each project a prompt shows.

Every retrieval prompt opens with what all calls of a query share, for providers' prompt caches: the
task and the detection criteria, then the project under detection (the sample's input, every part
of it); then the group's candidates, each under its anonymous label (shared by all calls of the
group); then the debate record so far (shared by the experts of a round); and last what is the
agent's own (its name and what it is asked). The feedback prompts open with the project under
detection and its references, shared by the conclusion and every judge sample. What a call asks
for is also given to it in values (engine/requests.py), so nothing here is read back but the
`[RESULT]` lines, which the readers (protocols/pd3.py) look for.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...content import Content, Question, compose
from .records import Project

CHARS_PER_TOKEN = 4  # a token budget as characters (spec A1: ~1k tokens per candidate)
CUT_MARK = " [...]"  # ends a text cut to its budget

DOMAIN = "research and technology projects"
CRITERIA = (
    "A candidate duplicates the project under detection when they overlap in research content, "
    "in key technologies, in the scenario they address or in their applications; the more of "
    "these overlap, and the more closely, the more relevant the candidate."
)


# -- what a prompt shows of a project --------------------------------------------------------------


def _cut(text: str, chars: int) -> str:
    """`text` cut to at most `chars` characters (the mark included), at a space when one is near
    the end, so a word is not split."""
    if chars <= len(CUT_MARK):
        return text[:chars]
    keep = chars - len(CUT_MARK)
    head = text[:keep]
    space = head.rfind(" ", keep - keep // 5)
    return (head[:space] if space > 0 else head).rstrip() + CUT_MARK


def project_view(project: Project, tokens: int) -> tuple[str, bool]:
    """The text a prompt shows of a project, its title on the first line, cut to `tokens` (as
    CHARS_PER_TOKEN characters each), and whether it was cut."""
    view = "\n".join(t for t in (project.title.strip(), project.text.strip()) if t)
    budget = tokens * CHARS_PER_TOKEN
    if len(view) <= budget:
        return view, False
    return _cut(view, budget), True


def question_view(question: Question, tokens: int) -> tuple[Question, int, int]:
    """The question with its text parts cut to `tokens` together (the first parts kept whole
    first); every non-text part kept in its place. Returns it with the text's length before and
    after, in characters."""
    budget = tokens * CHARS_PER_TOKEN
    total = sum(len(p) for p in question.parts if isinstance(p, str))
    if total <= budget:
        return question, total, total
    parts: list[object] = []
    left = budget
    for part in question.parts:
        if not isinstance(part, str):
            parts.append(part)
        elif len(part) <= left:
            parts.append(part)
            left -= len(part)
        elif left > len(CUT_MARK):
            parts.append(_cut(part, left))
            left = 0
        else:
            left = 0  # no room left: the rest of the text is dropped
    shown = sum(len(p) for p in parts if isinstance(p, str))
    return Question(tuple(parts), question.turns), total, shown


# -- the retrieval prompts -------------------------------------------------------------------------


def facet_line(facet: str | None) -> str:
    """The respect in which relevance is judged, where the benchmark judged it in one (CSFCube
    grades a query per facet: the same paper asked under two facets has different gold)."""
    if not facet:
        return ""
    named = " and ".join(f.strip() for f in facet.split("+") if f.strip())
    return (
        f"Judge relevance by the project's {named} only: a candidate is as relevant as it "
        f"overlaps with the project under detection in its {named}.\n\n"
    )


def opening(question: Question, domain: str, criteria: str, facet: str | None = None) -> Content:
    """What every retrieval call of a query opens with: the task, the criteria (and the facet
    relevance is judged by, where known), the query."""
    return compose(
        f"A panel of experts checks whether a new project duplicates earlier {domain}. The new "
        "project is the project under detection; candidate projects were retrieved for it from "
        f"the earlier ones.\n\nDetection criteria: {criteria.strip()}\n\n{facet_line(facet)}"
        "The project under detection:\n",
        question,
        "\n\n",
    )


def candidates(labelled: Sequence[tuple[str, str]]) -> str:
    """The candidates shown to a group, each as (label, view), in the order given."""
    shown = "\n\n".join(f"[{label}] {view}" for label, view in labelled)
    return f"Candidate projects ({len(labelled)}), each under its anonymous label:\n\n{shown}\n\n"


def debate_record(rounds: Sequence[Sequence[tuple[int, str]]], current: bool = False) -> str:
    """The debate so far: per round (0: the initial choices), each statement as (expert, text).
    `current`: the last round is the one in progress (sequential visibility)."""
    if not rounds:
        return ""
    blocks = []
    for r, statements in enumerate(rounds):
        title = "Round 0 (the initial choices)" if r == 0 else f"Debate round {r}"
        if current and r == len(rounds) - 1:
            title += " (this round, so far)"
        lines = [f"- Expert {e}: {text.strip()}" for e, text in statements]
        blocks.append(f"{title}:\n" + "\n".join(lines))
    return "Record of the debate so far:\n\n" + "\n\n".join(blocks) + "\n\n"


# that the experts come without a prior leaning: the paper's initial-round prompt says it once
# (App. A.8), so by default (`-S neutrality=initial`) only the experts' round-0 prompts carry it;
# `every_prompt` puts it in every expert's prompt of every round and in the senior's
NEUTRAL = (
    "As an independent expert you hold no preconceived view of any project's research content."
)
NEUTRALITIES = ("initial", "every_prompt")


# DMAD (Liu et al. 2025) as PD³ ran it (App. A.5): each expert reasons its own way, cycled
REASONING = {
    "chain_of_thought": "Reason step by step through the candidates before you choose.",
    "step_back": "First step back: state the general features that make two projects in this "
    "domain duplicates, then apply them to the candidates.",
    "self_refine": "Draft a selection, critique it against the detection criteria, then give "
    "your refined selection.",
}


def way_of(expert: int, reasoning: str) -> str:
    """The reasoning method of `expert` (from 1) under `-S reasoning`: "" when uniform."""
    ways = list(REASONING)
    return ways[(expert - 1) % len(ways)] if reasoning == "diverse" else ""


def _expert(
    expert: int, agents: int, k: int, reasoning: str = "uniform", neutral: bool = True
) -> str:
    way = way_of(expert, reasoning)
    return (
        f"You are Expert {expert}, one of {agents} experts on the panel."
        + (f" {NEUTRAL}" if neutral else "")
        + f" The objective: following the detection criteria, determine the {k} candidate "
        "projects most relevant to the project under detection."
        + (f" {REASONING[way]}" if way else "")
    )


def initial(expert: int, agents: int, k: int, reasoning: str = "uniform") -> str:
    """An expert's ask in round 0, after the candidates: the neutrality line in every placement."""
    return (
        _expert(expert, agents, k, reasoning)
        + f"\n\nSelect the {k} most relevant candidates and give the reasons for your selection "
        "briefly, in one complete sentence. Name the candidates by their labels."
    )


def debate(
    expert: int, agents: int, k: int, round: int, rounds: int, extra: bool,
    reasoning: str = "uniform", neutrality: str = "initial",
) -> str:  # fmt: skip
    """An expert's ask in debate round `round` (from 1) of `rounds`, after the record; `extra`
    (ours, `-S extra_asks`): it also names the candidates it now selects; the neutrality line
    only with `neutrality` every_prompt."""
    naming = f", naming the {k} candidates you now select by their labels" if extra else ""
    return (
        _expert(expert, agents, k, reasoning, neutrality == "every_prompt")
        + f"\n\nThis is debate round {round} of {rounds}. You may answer the other experts and "
        "add new arguments; adopt another expert's view and change your selection, saying why; "
        "or question another expert's choices. State your view briefly, in one complete "
        f"sentence{naming}."
    )


def _result_line(k: int, exactly: bool = True) -> str:
    count = f"exactly {k} labels" if exactly else "the labels"
    return (
        f"End your reply with one line that starts with [RESULT] and lists {count} of the "
        "candidates above, most relevant first, separated by commas: [RESULT] <label>, "
        "<label>, ..."
    )


def senior(agents: int, k: int, extra: bool, neutrality: str = "initial") -> str:
    """The senior expert's ask, after the whole record: as the paper's, it analyses the experts'
    consensus and lists the candidates by relevance; `extra` (ours, `-S extra_asks`): it also
    weighs their disagreements and reasons against the criteria, and lists exactly `k`; the
    neutrality line only with `neutrality` every_prompt."""
    weighs = (
        " and where they disagree, judge their reasons against the detection criteria,"
        if extra
        else ","
    )
    return (
        f"You are the senior expert reviewing the discussion of these {agents} experts. "
        + (f"{NEUTRAL} " if neutrality == "every_prompt" else "")
        + f"Analyse the experts' consensus{weighs} and decide the {k} candidate projects most "
        f"relevant to the project under detection.\n\n{_result_line(k, exactly=extra)}"
    )


def decide(k: int) -> str:
    """A single decider's ask (the LLM-voting ablation, the list-wise baseline), after the
    candidates."""
    return (
        f"Following the detection criteria, decide the {k} candidate projects most relevant to "
        "the project under detection. Give your reasons briefly first.\n\n" + _result_line(k)
    )


POINTWISE = (
    "Following the detection criteria, score how relevant this one candidate project is to the "
    "project under detection, from 1 (unrelated) to 10 (the same project). Give your reasons "
    "briefly first, then the score on a last line in the form [RESULT]<score>, the score an "
    "integer from 1 to 10."
)


def pointwise(view: str) -> str:
    """A point-wise judge's ask, after the opening: one candidate, scored on its own."""
    return f"One candidate project:\n\n{view}\n\n{POINTWISE}"


def reminder(k: int) -> str:
    """The follow-up after a decision without a readable `[RESULT]` list."""
    return f"Your reply has no readable [RESULT] list of labels. {_result_line(k)}"


# -- the feedback prompts --------------------------------------------------------------------------


def feedback_opening(
    question: Question,
    project: str | None,
    references: Sequence[str],
    domain: str,
    facet: str | None = None,
) -> Content:
    """What every feedback call of a query opens with: the project under detection (the sample's
    question; or, when a project's view is given, the question as context only, since the judges
    score the one project and do not answer it, and then the view) and its references' views,
    numbered from 1."""
    subject: tuple[str | Question, ...] = ("The project under detection:\n", question)
    if project is not None:
        subject = (
            "What this assessment is for (context only: do not answer this question; assess "
            "only the project under detection below):\n",
            question,
            f"\n\nThe project under detection:\n{project}",
        )
    shown = "\n\n".join(f"Reference {i}: {view}" for i, view in enumerate(references, 1))
    return compose(
        f"A new project, the project under detection, is checked for duplication of earlier "
        f"{domain}.\n\n{facet_line(facet)}",
        *subject,
        f"\n\nThe {len(references)} earlier projects found most relevant to it (the "
        f"references):\n\n{shown}\n\n",
    )


CONCLUSION = (
    "Write a similarity conclusion for the reviewers: compare the project under detection with "
    "each reference in its main content, its key technologies and its applications or "
    "achievements, and say what overlaps and what differs. Be specific; a few sentences per "
    "reference."
)

CONCLUSION_REMINDER = "Your reply was empty. " + CONCLUSION

SCORE = (
    "Score how far the project under detection duplicates the references, from 1 to 10:\n"
    "- 1: every reference is basically unrelated to it;\n"
    "- 4 to 6: several references duplicate it in some respect (research theme, core "
    "technology or application scenario);\n"
    "- 10: one or more references are completely the same project.\n"
    "Weigh research themes, core technologies and application scenarios. The most duplicated "
    "reference sets the score: if one of them is highly relevant, give a high score; give a low "
    "score only when none is relevant enough. The references were retrieved as the most "
    "relevant, but they may not be highly relevant. Use the whole scale to tell projects apart."
    "\n\nGive your analysis first, then the score on a last line in the form [RESULT]<score>, "
    "the score an integer from 1 to 10."
)

SCORE_REMINDER = (
    "Your reply has no readable score. End it with a line [RESULT]<score>, the score an integer "
    "from 1 to 10."
)


def judge(conclusion: str | None) -> str:
    """A judge sample's ask, after the shared opening: the conclusion when there is one."""
    shown = f"An expert's similarity conclusion:\n{conclusion.strip()}\n\n" if conclusion else ""
    return shown + SCORE
