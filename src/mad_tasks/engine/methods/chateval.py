"""ChatEval (Chan et al., 2023), "ChatEval: Towards Better LLM-based Evaluators through Multi-Agent
Debate" (arXiv 2308.07201), as a debate that answers the task's question.

Agents with distinct role descriptions discuss for `turns` turns; each message is a reply with a
final answer. The paper's three communication strategies:
  - `one_by_one`: in every turn the agents speak in a fixed order, each reading every message
    said before it, this turn's included: sequential by definition;
  - `simultaneous`: in every turn all agents speak at once, each reading the messages of the
    earlier turns;
  - `simultaneous_summarizer`: as `simultaneous`, but after each turn a summarizer (model role
    `summarizer`) summarises it, and the summary is added to what every agent reads: from turn 2
    on an agent reads every summary so far, in order, never the messages (the paper's Algorithm
    3 appends each turn's summary to every agent's chat history; the authors' code adds each
    summary to the agent's memory, `agentverse/memory_manipulator/summary.py`, and fills its
    prompt with the previous summary and the new messages, as `summary_prompt` does). No summary
    follows the last turn: nobody would read it.
The final answer is the plurality of the last turn's answers (protocols.majority_vote: a tie goes
to the tied answer with more votes in the latest earlier turn, then to the one given first in
agent order). The paper's referees score two answers and average the scores; an answer to the
task's question is what every method here produces, so their answers are voted on instead.

Paper defaults: `one_by_one` (the paper's best strategy), 2 agents and 2 turns (the authors'
default configuration, `agentverse/tasks/llm_eval/config.yaml` in thunlp/ChatEval: two referees,
sequential order, `max_turns: 4`, which counts one message per turn of an agent). The paper found
distinct roles essential, so every agent has its own role, at most `len(ROLES)` agents; the
role descriptions are this module's own (the paper's, such as "General Public" and "Critic",
are written for judging text). Seed 001 (CortexDebate) ran ChatEval with 5 agents, 5 turns and
"an extra summariser agent per round": `strategy=simultaneous_summarizer`.

On a pair of answers (the pairwise tasks), two options give the authors' verdict
(thunlp/ChatEval's `llm_eval.py` and its scoring script; chateval_pair.py): `swap` holds the whole
debate again with the answers exchanged, and `verdict=scores` has each referee's last message
score both answers, the sums over both debates deciding. With `-S answer_form=authors` every
message ends as the authors' referees' do, on the two lines `The score of Assistant 1: n` and
`The score of Assistant 2: n`: the higher score is the message's answer (equal scores: none), and
`verdict=scores` sums those scores.

Every call presents the question with all of its parts, first in its prompt, the summarizer's
too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from .. import viewer_text
from ..answers import AnswerFormat, Choice
from ..authors_forms import AuthorsFormat, assistant_scores, read_assistant_scores
from ..checks import OptionError, boolean, integer, one_of
from ..content import Content, Msg, Question, compose
from ..options import MAX_ROUNDS, PeerControls, option
from ..peers import Peers
from ..records import AgentAnswer, DebateResult
from ..requests import AnswerRequest, GroupSummaryRequest
from ..session import Session
from ..spec import MethodSpec, agent_roles
from .chateval_pair import (
    CRITERIA,
    ScoreVerdict,
    read_back,
    score_request,
    score_verdict,
    scores_of,
    swapped,
)
from .turns import agent_names, final_vote

STRATEGIES = ("one_by_one", "simultaneous", "simultaneous_summarizer")
VERDICTS = ("vote", "scores")
SWAPPED = " (swapped)"  # how the swapped debate's agents are named in the record
SUMMARIZER = "summarizer"

# (name, description): each agent's own point of view, in agent order
ROLES = (
    ("Analyst", "You break the question into parts and check every step of the reasoning."),
    (
        "Sceptic",
        "You question the other referees' claims and look for the case that would prove them "
        "wrong.",
    ),
    (
        "Domain expert",
        "You bring the background knowledge the question needs and correct factual errors.",
    ),
    (
        "Generalist",
        "You read the question as an informed member of the public would and flag answers that "
        "defy common sense.",
    ),
    (
        "Methodologist",
        "You check that the answer follows from the facts given and that no assumption is hidden.",
    ),
    (
        "Devil's advocate",
        "You argue for the strongest alternative to the leading answer before you accept it.",
    ),
    ("Fact checker", "You verify every number, date and name the discussion relies on."),
    ("Mediator", "You weigh the arguments made so far and say which of them holds up best."),
)


@dataclass(frozen=True)
class ChatEvalOptions(PeerControls):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("reminder",)
    agents: int = option(
        2,
        f"number of agents (the authors' default: 2), each with its own role (at most "
        f"{len(ROLES)}) and on model role `agent_i` (falling back to `agent`, then the main "
        "model).",
        lambda name, v: integer(name, v, 1, len(ROLES)),
    )
    turns: int = option(
        2,
        "discussion turns; every agent speaks once a turn (the authors' default: 2).",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    strategy: str = option(
        "one_by_one",
        "one_by_one (the paper's best), simultaneous or simultaneous_summarizer (a summarizer, "
        "model role `summarizer`, summarises each turn and the agents read only the summaries).",
        lambda name, v: one_of(name, v, STRATEGIES),
    )
    swap: bool = option(
        False,
        "on a pair of answers: hold the whole debate a second time with the two answers swapped "
        "and decide over both debates (the authors' code, --reverse_input; twice the calls).",
        boolean,
    )
    verdict: str = option(
        "vote",
        "vote (the plurality of the last turn's answers) or scores (on a pair: each referee's "
        "last message also scores both answers 1 to 10, the sums decide, equal sums or an "
        "unreadable score give A: the authors' code).",
        lambda name, v: one_of(name, v, VERDICTS),
    )


# -- what the agents and the summarizer read ----------------------------------------------------


def _messages(said: Sequence[AgentAnswer], me: str) -> str:
    return "\n\n".join(
        f"--- {a.agent}{' (you)' if a.agent == me else ''}, turn {a.round} ---\n{a.text.strip()}"
        for a in said
    )


def agent_prompt(
    question: Question,
    fmt: AnswerFormat,
    name: str,
    agents: int,
    said: Sequence[AgentAnswer],
    summaries: Sequence[str] = (),
    closing: str = "",
    criteria: str = "",
) -> Content:
    """The question, the agent's role, then what it may read of the discussion: the messages
    `said` so far, or (summarizer strategy) every turn's summary so far. Before anything is said
    or summarised, every strategy shows the same words. `criteria` follows the role and `closing`
    the answer instruction (with `verdict=scores`: the criteria, and the scores asked last)."""
    role, description = ROLES[agent_names(agents).index(name)]
    if summaries:
        shown = "\n\n".join(
            f"--- summary after turn {t} ---\n{s.strip() or '(empty)'}"
            for t, s in enumerate(summaries, 1)
        )
        heard = f"Summaries of the discussion so far, one after each turn:\n\n{shown}"
    elif said:
        heard = f"The discussion so far:\n\n{_messages(said, name)}"
    else:
        heard = "Nobody has spoken yet."
    return compose(
        question,
        f"\n\nYou are {name}, one of {agents} referees who discuss this question. Your role: "
        f"{role}. {description}{criteria}\n\n{heard}\n\nNow it is your turn: think critically about "
        "what has been said, keep your message short and clear, explain your judgement first, "
        "then give your own answer. "
        f"{fmt.instruction()}{closing}",
    )


def summary_prompt(question: Question, summary: str | None, said: Sequence[AgentAnswer]) -> Content:
    """The summarizer's prompt: the question, the latest summary (None before the first) and the
    turn's new messages."""
    return compose(
        question,
        "\n\nYou keep the record of a discussion of this question among several referees. "
        "Fold the new messages below into the current summary and write the new summary: every "
        "referee's answer and its main reasons, briefly.\n\n"
        f"Current summary:\n{(summary or '').strip() or '(none yet)'}\n\n"
        f"New messages:\n\n{_messages(said, '')}\n\nNew summary:",
    )


# -- the method ----------------------------------------------------------------------------------


def _pair(question: Question, opts: ChatEvalOptions, fmt: AnswerFormat) -> Question | None:
    """The swapped question (None without `swap`); an OptionError when an option that needs a
    pair of answers meets a question without one."""
    if opts.verdict == "scores" and not (isinstance(fmt, Choice) and len(fmt.options) == 2):
        raise OptionError("verdict", opts.verdict, "vote on a question that is no pair of answers")
    if not opts.swap:
        return None
    other = swapped(question)
    if other is None:
        raise OptionError("swap", opts.swap, "false on a question that is no pair of answers")
    return other


async def chateval(session: Session, opts: ChatEvalOptions) -> DebateResult:
    p, rt = session.problem, session.runtime
    # -S answer_form=authors: ChatEval's two score lines, which give the scores `verdict=scores`
    # reads too (no SCORE lines asked besides)
    authored = p.fmt.inner if isinstance(p.fmt, AuthorsFormat) else None
    other = _pair(p.question, opts, authored or p.fmt)
    names = agent_names(opts.agents)
    summarized = opts.strategy == "simultaneous_summarizer"
    view = Peers(opts.peers, p.question.text)

    async def hold(question: Question, tag: str) -> list[list[AgentAnswer]]:
        """One whole debate on `question` (spans prefixed by `tag`); its messages by turn."""
        said: list[AgentAnswer] = []  # every message, in the order said
        summaries: list[str] = []  # summarizer strategy: one after each turn but the last
        by_turn: list[list[AgentAnswer]] = []

        async def speak(name: str, t: int, heard: Sequence[AgentAnswer]) -> AgentAnswer:
            """One message; `heard`: the messages this agent reads, or (summarizer strategy) the
            previous turn's, which the latest summary it reads summarises."""
            scored = opts.verdict == "scores" and t == opts.turns and authored is None
            closing = score_request() if scored else ""
            # as the peers condition shows it: under self its own messages so far (in place of
            # the summaries too), under noise every other agent's message and every summary noised
            read: list[AgentAnswer] = []
            noted: list[str] = []
            if summarized and view.condition == "self":
                read = view.seen(said, name)
            elif summarized:
                noted = [view.text(s, SUMMARIZER, k) for k, s in enumerate(summaries, 1)]
            else:
                read = view.seen(heard, name)
            heard = view.seen(heard, name)
            prompt = agent_prompt(
                question,
                p.fmt,
                name,
                opts.agents,
                read,
                noted,
                closing,
                CRITERIA if opts.verdict == "scores" else "",
            )
            shown = tuple(a.answer for a in heard if a.agent != name and a.answer is not None)
            asks = AnswerRequest(p.fmt, shown=shown)
            msgs = [Msg("user", prompt)]
            return await session.answer(name, name, msgs, "discussion", t, asks=asks)

        for t in range(1, opts.turns + 1):
            async with rt.span(f"{tag}round {t}"):
                if opts.strategy == "one_by_one":
                    current: list[AgentAnswer] = []
                    for name in names:
                        current.append(await speak(name, t, said + current))
                else:
                    # the earlier turns; with a summarizer, the turn the latest summary summarises
                    heard = (by_turn[-1] if by_turn else []) if summarized else list(said)
                    current = await rt.gather(*(speak(name, t, heard) for name in names))
            said += current
            by_turn.append(list(current))
            title = f"{tag.capitalize()}Round {t} (turn {t} of {opts.turns}, {opts.strategy})"
            rt.info(
                f"{tag}round {t}",
                viewer_text.round_table(
                    title,
                    current,
                    p.fmt.describe,
                    rt.model_name,
                    earlier=[a for r in by_turn[:-1] for a in r],
                    key=p.fmt.key,
                ),
            )
            if summarized and t < opts.turns:
                async with rt.span(f"{tag}summary r.{t}"):
                    asks_summary = GroupSummaryRequest(
                        p.fmt, tuple(a.answer for a in current if a.answer is not None)
                    )
                    latest = summaries[-1] if summaries else None
                    reply = await session.call(
                        SUMMARIZER,
                        SUMMARIZER,
                        [Msg("user", summary_prompt(question, latest, current))],
                        "summary",
                        t,
                        asks=asks_summary,
                    )
                    summaries.append(reply.text)
                rt.info(f"{tag}summary r.{t}", f"**Summary after round {t}** (added to what "
                        "every agent reads from now on, instead of the messages)\n\n"
                        f"{reply.text.strip() or '(empty)'}")  # fmt: skip
        return by_turn

    if other is None:
        by_turn = await hold(p.question, "")
    else:  # the authors run the two orders as two separate runs: neither waits for the other
        given, reversed = await rt.gather(hold(p.question, ""), hold(other, "swapped "))
        by_turn = [g + read_back(r, SWAPPED) for g, r in zip(given, reversed, strict=True)]
    said = [a for turn in by_turn for a in turn]
    if opts.verdict == "vote":
        tally = final_vote(session, by_turn)
        final = tally.winner
    else:
        last = by_turn[-1]
        verdict = score_verdict(
            [a.text for a in last if not a.agent.endswith(SWAPPED)],
            [a.text for a in last if a.agent.endswith(SWAPPED)],
            read_assistant_scores if authored else scores_of,
        )
        tally, final = None, verdict.winner
        rt.info("verdict", viewer_text_scores(verdict))
    return DebateResult(
        method="chateval",
        final=final,
        answers=said,
        calls=session.calls,
        tally=tally,
        options=opts.record(),
    )


def viewer_text_scores(verdict: ScoreVerdict) -> str:
    """The score verdict as the viewer shows it."""
    sums = ", ".join(f"{k}: {v:g}" for k, v in verdict.totals.items())
    why = (
        f"{verdict.unread} last message(s) without readable scores: A, as the authors' script"
        if verdict.unread
        else "equal sums: A, the answer shown first"
        if verdict.tie
        else "the larger sum"
    )
    return f"**Verdict by scores** (summed over the referees' last messages): {sums}; {why}."


SPEC = MethodSpec(
    "chateval",
    "Agents with distinct roles discuss one by one, simultaneously or through a summarizer; "
    "majority of the last turn.",
    ChatEvalOptions,
    lambda o, setup: lambda s: chateval(s, o),
    roles=lambda o: (
        *agent_roles(o),
        *((SUMMARIZER,) if o.strategy == "simultaneous_summarizer" else ()),
    ),
    authors_form=assistant_scores,  # their referees' two lines, `The score of Assistant 1: n`
)
