"""The options of the decision-protocol debates (Kaesberg et al., 2025): one `DecisionConfig`
for `voting`, `consensus`, `aad` and `collective_improvement`, each showing the groups of options it
uses and fixing the others (their specs, in `debate.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...checks import OptionError, boolean, integer, one_of, optional, text
from ...options import (
    MAX_AGENTS,
    MAX_POINTS,
    MAX_TURNS,
    MAX_VOTE_RETRIES,
    AdaptiveStop,
    Check,
    PeerControls,
    embedder_option,
    option,
)
from ...protocols import consensus, voting
from . import challenge as challenges
from . import prompts
from .personas import PERSONA_CALLS

PARADIGMS = ("memory", "ci")
PERSONAS = ("expert", "none")
EXTRACTIONS = ("marked", "call")
NO_DECISION = ("first_agent", "none")
FINALS = ("proposal", "last_agent")  # where a consensus takes its final answer
COUNTS = ("agreements", "latest_solution")  # how a consensus counts its supporters
CI_CONTEXTS = ("messages", "solutions")
FAMILIES = ("voting", "consensus", "any")
MAX_FACTS = 20  # passages shown in the challenge's information variant


def voting_protocols() -> tuple[str, ...]:
    """The registered ballot kinds, and `counting` (no ballots: the answer most agents hold)."""
    return (*voting.ballot_kinds(), "counting")


def consensus_protocols() -> tuple[str, ...]:
    return consensus.consensus_rules()


def _choice(allowed: tuple[str, ...]) -> Check:
    return lambda name, v: one_of(name, v, allowed)


def _window(name: str, value: Any) -> int | None:
    """`full` (or null) shows the whole history."""
    if value is None or (isinstance(value, str) and value.lower() in ("full", "none", "all")):
        return None
    try:
        return integer(name, value, 0, MAX_TURNS)
    except OptionError as e:
        raise e.also(", or full") from None


@dataclass(frozen=True)
class DecisionConfig(PeerControls, AdaptiveStop):
    """The options of one debate; invalid values raise before any model call. `group` says which
    solvers show an option ('' all of them; `internal` ones are fixed by the solver)."""

    TEMPLATES: ClassVar[tuple[str, ...]] = ("reminder",)

    protocol: str = option(
        "simple",
        "voting: simple, ranked (Borda), cumulative, approval, or counting (no ballots: the "
        "answer most agents hold); consensus: majority (0.5), supermajority (0.66) or unanimity "
        "(1.0) of the agents; which of them the solver takes is in its first line.",
    )
    agents: int = option(
        3,
        "number of agents (model role `agent_i`, falling back to `agent`, then the main model).",
        lambda name, v: integer(name, v, 1, MAX_AGENTS),
    )
    max_turns: int = option(
        5,
        "turns before the debate stops without a decision.",
        lambda name, v: integer(name, v, 1, MAX_TURNS),
    )
    vote_turn: int = option(3, "the first vote follows this turn.", group="votes")
    memory_window: int | None = option(
        None,
        "earlier turns an agent sees besides the current one: full (MALLM's code: the whole "
        "history, its window filter keeps every message) or a number (the paper's text: 2).",
        _window,
        group="memory",
    )
    personas: str = option(
        "expert", "expert (made per sample by the agents' model) or none.", _choice(PERSONAS)
    )
    persona_calls: str = option(
        "sequential",
        "how the expert personas are made: sequential (the paper: one call per agent, each seeing "
        "the personas before it), concurrent (those calls at once, each seeing none) or one_call "
        "(the first agent's model names all in one call); the last two shorten the chain of "
        "dependent calls by agents - 1.",
        _choice(PERSONA_CALLS),
    )
    style: str = option(
        "simple",
        "simple, critical or reasoning (messages share reasoning only).",
        _choice(prompts.STYLES),
        group="memory",
    )
    extraction: str = option(
        "marked",
        "marked (read the ANSWER line, extraction call only if it is missing) or call (the "
        "paper's extraction call for every message and candidate).",
        _choice(EXTRACTIONS),
    )
    cot: bool = option(True, 'end every prompt with "Let\'s think step by step."', boolean)
    strict: bool = option(
        False,
        'require more than the threshold (the paper\'s "more than 50% / 66%").',
        boolean,
        group="consensus",
    )
    consensus_count: str = option(
        "agreements",
        "how a consensus counts: agreements (the latest proposal and the agreements after it, "
        "as the paper's Table 2 and MALLM's unit tests) or latest_solution (MALLM d9e66bc's "
        "code: back to the latest message holding a solution; agreeing messages hold the one "
        "they agree with, so the count stays 1 and 3 agents never reach a majority).",
        lambda name, v: one_of(name, v, COUNTS),
        group="consensus",
    )
    final_from: str = option(
        "proposal",
        "where a consensus takes its final answer: proposal (the agreed proposal's solution, as "
        "the paper's code) or last_agent (as the paper's text: the agent that spoke last writes "
        "the final solution from the agreed proposal, one call more).",
        lambda name, v: one_of(name, v, FINALS),
        group="consensus",
    )
    points: int = option(
        10,
        "cumulative voting budget.",
        lambda name, v: integer(name, v, 1, MAX_POINTS),
        group="votes",
    )
    allow_fewer: bool = option(
        False,
        "cumulative ballots may give fewer than `points` (the paper's text variant).",
        boolean,
        group="votes",
    )
    max_ranks: int = option(
        5,
        "ranked ballots rank at most this many solutions.",
        lambda name, v: integer(name, v, 1, MAX_AGENTS),
        group="votes",
    )
    simple_parse: str = option(
        "first_number",
        "first_number, or all_digits (MALLM: every digit of the reply joined).",
        lambda name, v: one_of(name, v, voting.SIMPLE_PARSES),
        group="votes",
    )
    vote_retries: int = option(
        10,
        "re-prompts for an invalid ballot before it is dropped.",
        lambda name, v: integer(name, v, 0, MAX_VOTE_RETRIES),
        group="votes",
    )
    no_decision: str = option(
        "none",
        "none (MALLM's code: no answer, scored incorrect) or first_agent (the paper's text: the "
        "first agent's candidate).",
        _choice(NO_DECISION),
        group="votes",
    )
    dedupe: bool = option(
        False, "merge identical candidates before the vote.", boolean, group="votes"
    )
    ci_context: str = option(
        "messages",
        "what an agent sees of the previous turn: messages (MALLM's code: the full messages) or "
        "solutions (the paper's text: the extracted solutions).",
        _choice(CI_CONTEXTS),
        group="ci",
    )
    embedder: str = embedder_option(
        "embeddings for the answer-diversity figure: hashing, sentence-transformers[/model] or "
        "openai[/model]."
    )
    challenge: str = option(
        "none",
        "after the decision each agent agrees or disagrees with a final answer and, disagreeing, "
        "gives a new one: none, solution (the decision's answer), history (with the discussion), "
        "information (with facts from `challenge_facts`), wrong or irrelevant (an answer put in "
        "its place), or all (MALLM's code: the five one after another; up to 2 x agents calls "
        "each, plus the wrong answer's).",
        _choice(challenges.SETTINGS),
    )
    challenge_adopt: str = option(
        "never",
        "never (the decision's answer stays final; the new answers are recorded and scored "
        "apart) or majority (a new answer given by more than half of the agents replaces it; "
        "one variant only).",
        _choice(challenges.ADOPT),
    )
    challenge_irrelevant: str = option(
        "fixed",
        f"the irrelevant answer: fixed (MALLM's code: {challenges.FIXED_IRRELEVANT!r}) or call "
        "(written by model role `challenger`, as the paper says).",
        _choice(challenges.IRRELEVANT),
    )
    challenge_no_answer: str = option(
        "ask",
        "with no answer to judge (the debate gave none, or no wrong answer could be read): ask "
        f"(MALLM's code: the agents judge {challenges.NO_ANSWER!r}, or the challenger's reply as "
        "written) or skip (nothing is asked).",
        _choice(challenges.NO_ANSWER_RULES),
    )
    challenge_facts: str | None = option(
        None,
        "the information variant's facts: a text file of passages (split at blank lines), the "
        "best `challenge_facts_k` for the task found with BM25 (the paper: Wikipedia).",
        lambda name, v: optional(text, name, v, null="no information variant"),
    )
    challenge_facts_k: int = option(
        3,
        "passages of `challenge_facts` shown in the information variant.",
        lambda name, v: integer(name, v, 1, MAX_FACTS),
    )
    paradigm: str = option("memory", "memory or ci.", _choice(PARADIGMS), group="internal")
    all_agents_draft: bool = option(
        False, "every agent drafts alone in turn 1.", boolean, group="internal"
    )
    family: str = option(
        "any", "the protocols the solver takes.", _choice(FAMILIES), group="internal"
    )

    def validate(self) -> None:
        super().validate()
        if self.personas == "none" and self.persona_calls != "sequential":  # the default: unused
            raise OptionError("persona_calls", self.persona_calls, "set only with personas expert")
        ci = self.paradigm == "ci"
        if ci and self.protocol in consensus_protocols():
            raise OptionError(
                "protocol",
                self.protocol,
                f"{', '.join(voting_protocols())} (Collective Improvement has no turn order to "
                "agree in, so it works only with voting protocols)",
            )
        allowed = {
            "voting": voting_protocols(),
            "consensus": consensus_protocols(),
            "any": voting_protocols() + (() if ci else consensus_protocols()),
        }[self.family]
        one_of("protocol", self.protocol, allowed)
        if self.voting:
            try:
                integer("vote_turn", self.vote_turn, 1, self.max_turns)
            except OptionError as e:
                raise e.also(" (max_turns)") from None
        else:  # consensus protocols never vote
            integer("vote_turn", self.vote_turn, 1, MAX_TURNS)
        variants = challenges.variants(self.challenge)
        if "information" in variants and self.challenge_facts is None:
            raise OptionError(
                "challenge_facts",
                None,
                f"a passages file (challenge={self.challenge} shows the agents facts from it)",
            )
        if len(variants) > 1 and self.challenge_adopt != "never":
            raise OptionError(
                "challenge_adopt",
                self.challenge_adopt,
                f"never with challenge={self.challenge} (only one variant's new answers may "
                "replace the decision's)",
            )
        if ci and self.style != "simple":
            raise OptionError(
                "style", self.style, "simple (Collective Improvement has its own prompt)"
            )

    @property
    def voting(self) -> bool:
        return self.protocol in voting_protocols()

    @property
    def method(self) -> str:
        if self.paradigm == "ci":
            return "collective_improvement"
        if self.all_agents_draft:
            return "aad"
        return "voting" if self.voting else "consensus"

    @property
    def extraction_used(self) -> str:
        # reasoning-style messages hold no answer by design: their solution is always written by a call
        return "call" if self.style == "reasoning" else self.extraction
