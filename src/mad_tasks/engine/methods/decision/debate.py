"""Kaesberg et al. (2025), "Voting or Consensus? Decision-Making in Multi-Agent Debate".

Per sample, N agents (optionally with expert personas made by their own model) discuss in turns until
the decision protocol decides or `max_turns` runs out:

1. Memory paradigm: in every turn the agents speak in a fixed order. Each sees the messages of the
   last `memory_window` turns and those already given in the current turn (its own as its replies,
   the others' under their persona's name) and the current solution: the solution of the latest
   proposal (a draft or a disagreement). It proposes a solution, or improves the current one and
   signals [AGREE] / [DISAGREE].
   All-Agents Drafting (AAD): in turn 1 every agent drafts independently, with no history.
   Collective Improvement (CI): turn 1 as AAD; in turn t > 1 every agent sees only its own and the
   others' turn t-1 answers, and all agents speak at once.
2. Each message's solution is read from its marked final answer (`extraction="marked"`), falling back
   to the paper's extraction call, or always by the extraction call (`"call"`). An agreeing message
   keeps the solution it agreed with.
3. Consensus protocols check after every message (protocols/consensus.py). Voting protocols vote after
   turn `vote_turn` and after every later turn until one candidate wins (protocols/voting.py): each
   agent's latest solution is a candidate (an agent without a readable solution offers none), every
   agent casts a ballot, invalid ballots are asked again within `vote_retries`. Solution counting
   (`protocol="counting"`) counts the candidates' answers instead of asking for ballots.
4. No decision by `max_turns`: voting returns the first agent's candidate (`no_decision`), consensus
   the latest proposal's solution; `decision_success` is then False. Without such a solution (no
   agent ever had one, say) there is no answer: the debate abstains, never picks another at random.
   With `stop=adaptive` (Hu et al. 2025, `settling.py`) a turn after which the agents' agreement is
   stable also ends the debate: a voting protocol votes after it even before `vote_turn`, and
   without a winner or a consensus the rule for no decision applies, as at `max_turns` (the cap).
5. The challenge stage (`challenge`, off by default; the paper's §4.2 ablation, App. E.3 prompts):
   after the decision every agent, at once, judges a final answer with the exact word AGREE or
   DISAGREE, and a disagreeing agent is asked afresh for a new answer. What it judges is the
   variant: the decision's answer alone, with the discussion, or with facts retrieved for the task
   (`challenge_facts`), or a wrong or irrelevant answer in its place (the `challenger` role writes
   the wrong one while the debate runs; MALLM's code fixes the irrelevant one:
   `challenge_irrelevant`). `all` runs the five variants, as MALLM's code does, each recorded
   apart. The paper reports the challenge rate and that re-answering never helps, so the
   decision's answer stays final unless `challenge_adopt=majority` (one variant only).

Every call shows the question with all its parts, first in its first user message (prompt caches):
a call made in the agent's persona opens with the agent's system message, the persona calls and
plain extractions with the question itself. No call leaves the question out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ... import prompts as base_prompts
from ... import viewer_text
from ...authors_forms import final_solution
from ...content import Msg, compose
from ...embeddings import Embedder, HashingEmbedder, mean_pairwise_cosine
from ...limits import LimitReached, stop_at
from ...peers import Peers
from ...protocols import consensus, voting
from ...protocols.voting import BallotRules, Parsed
from ...records import AgentAnswer, DebateResult, Tally
from ...requests import (
    AnswerRequest,
    BallotRequest,
    ChallengeRequest,
    CounterfeitRequest,
    ExtractRequest,
    ReasoningRequest,
)
from ...session import Asked, Session
from ...spec import MethodSpec, Run, Setup, agent_roles
from ...stability import record, stops_now
from ..turns import agent_names
from . import challenge as challenges
from . import controls, prompts, settling, viewer
from .facts import Facts
from .options import DecisionConfig
from .personas import Persona, expert_personas
from .records import (
    Ballot,
    Candidate,
    Challenge,
    ChallengeVerdict,
    ConsensusCheck,
    Contribution,
    DecidedAt,
    DecisionRecord,
    Outcome,
    Vote,
)

NO_SOLUTION = "(no readable solution)"  # a candidate extraction's text for an agent without one
CHALLENGER = "challenger"  # the model role (and agent name) that writes a replaced final answer
# a replaced final answer: the challenger's reply (None: the fixed irrelevant answer), the answer
# read from it (wrong only) and what the agents are shown (None: no wrong answer could be read)
Counterfeit = tuple[str | None, str | None, str | None]


# -- the debate ------------------------------------------------------------------------------------


async def decision_debate(
    session: Session,
    cfg: DecisionConfig,
    embedder: Embedder | None = None,
    facts: Facts | None = None,
) -> DebateResult:
    debate = _Debate(session, cfg, facts)
    variants = challenges.variants(cfg.challenge)
    replacing = [v for v in variants if v in challenges.REPLACED]
    replaced: dict[str, Counterfeit] = {}
    limit: LimitReached | None = None
    try:
        if replacing:  # the challenger needs only the task, so it writes while the debate runs
            done = await session.runtime.gather(
                debate.run(), *(debate.counterfeit(v) for v in replacing)
            )
            outcome = cast(Outcome, done[0])
            replaced = dict(zip(replacing, cast(list[Counterfeit], done[1:]), strict=True))
        else:
            outcome = await debate.run()
    except LimitReached as reached:  # the turn in progress ends the debate, as max_turns does
        limit, outcome = reached, debate.no_decision()
    debate.announce(outcome)
    # the variants one after another, as MALLM runs them; no stage after a limit
    stages = [
        await debate.challenge(outcome, v, replaced.get(v)) for v in variants if limit is None
    ]
    result = await debate.result(outcome, stages, embedder or HashingEmbedder())
    if result.adaptive_stop is not None:
        session.runtime.info("adaptive stop", viewer_text.adaptive_stop(result.adaptive_stop))
    decided = f"the rule for no decision ({outcome.fallback_used}) after the turns that ran"
    return stop_at(result, limit, f"turn {debate.turn}", decided)


class _Debate:
    def __init__(self, session: Session, cfg: DecisionConfig, facts: Facts | None) -> None:
        self.s, self.cfg, self.facts = session, cfg, facts
        self.rt, self.fmt = session.runtime, session.problem.fmt
        self.question = session.problem.question
        self.names = agent_names(cfg.agents)
        self.personas: dict[str, Persona] = {}
        self.transcript: list[Contribution] = []
        self.checks: list[ConsensusCheck] = []
        self.votes: list[Vote] = []
        self.turn = 0  # the turn in progress (0: the personas, before the first)
        self.view = Peers(cfg.peers, self.question.text)  # -S peers (controls.py)
        self.stability = cfg.stability()  # None: stop=fixed
        self.counts: list[int] = []  # per turn not decided in its discussion (settling.py)
        self.settled_at: int | None = None  # the turn stop=adaptive ended the debate after

    def models(self) -> dict[str, str] | None:
        """Each agent's model for the tables, where they do not all run on one."""
        return viewer_text.agent_models(self.names, self.rt.model_name)

    async def run(self) -> Outcome:
        cfg = self.cfg
        if cfg.personas == "expert":
            async with self.rt.span("personas"):
                made = await expert_personas(self.s, self.names, cfg.persona_calls)
                self.personas = dict(zip(self.names, made))
            self.rt.info("personas", viewer.persona_table(self.personas, self.models()))
        for turn in range(1, cfg.max_turns + 1):
            self.turn = turn
            async with self.rt.span(f"turn {turn}"):
                agreed = await self.discuss(turn)
            rule, models = self.consensus_rule(), self.models()
            shown = viewer.turn_table(
                turn, self.transcript, self.checks, self.fmt.describe, rule, models, self.fmt.key
            )
            self.rt.info(f"turn {turn}", shown)
            if agreed:
                proposal = self.latest_proposal()
                assert proposal is not None  # a consensus always has a proposal with a solution
                last = self.transcript[-1].agent
                final = await self.final_answer(last, turn, proposal)
                return self.decided(final, turn, last, proposal.agent)
            settled = self.settled()
            if cfg.voting and (turn >= cfg.vote_turn or settled):
                vote = await self.vote(turn, settled)
                if vote.winner is not None:
                    won = vote.candidates[vote.winner]
                    return self.decided(won.answer, turn, "vote", won.agents[0])
            if settled:
                self.settled_at = turn
                break
        return self.no_decision()

    def settled(self) -> bool:
        """stop=adaptive: the turn's count (settling.py); whether the agreement is stable now."""
        self.counts.append(settling.turn_count(self.transcript, self.fmt.key))
        return stops_now(self.counts, self.cfg.agents, self.stability)

    # -- discussion ------------------------------------------------------------------------------

    async def discuss(self, turn: int) -> bool:
        """One turn; True when a consensus protocol is satisfied (checked after every message)."""
        ci = self.cfg.paradigm == "ci"
        if ci or (self.cfg.all_agents_draft and turn == 1):
            # independent answers: nobody waits for anybody
            batch = await self.rt.gather(
                *(
                    self.improve(name, turn)
                    if ci and turn > 1
                    else self.speak(name, turn, alone=True)
                    for name in self.names
                )
            )
            self.transcript += batch
            return self.consensus_after(batch[-1])
        for name in self.names:
            self.transcript.append(await self.speak(name, turn))
            if self.consensus_after(self.transcript[-1]):
                return True
        return False

    async def speak(self, name: str, turn: int, alone: bool = False) -> Contribution:
        """Memory paradigm: the window of history, the current solution, then propose or improve.

        `alone`: a first draft that sees no one else (AAD and CI turn 1).
        """
        cfg = self.cfg
        seen = [] if alone else controls.seen(self.view, self.transcript, name)
        proposal = controls.latest_proposal(seen)
        current = proposal.solution if proposal is not None else None
        window = [
            c for c in seen if cfg.memory_window is None or c.turn >= turn - cfg.memory_window
        ]
        shown = (
            self.fmt.describe(current) if current is not None and cfg.style != "reasoning" else None
        )
        messages = [
            self.system(name),
            Msg("user", prompts.opening(self.question, shown, bool(window))),
            *self.history(name, window),
        ]
        improve = current is not None
        messages.append(Msg("user", prompts.instruction(cfg.style, improve, self.fmt, cfg.cot)))
        asks = (
            ReasoningRequest(agreement=improve)
            if cfg.style == "reasoning"
            else AnswerRequest(self.fmt, current=current, agreement=improve)
        )
        async with self.rt.agent_span(name):  # the message and its extraction call, together
            reply = await self.s.call(name, name, _merged(messages), "discussion", turn, asks=asks)
            agreement = consensus.agrees(reply.text) if improve else None
            kind = "draft" if agreement is None else ("agree" if agreement else "disagree")
            made = await self.contribution(name, turn, reply.text, agreement, current, kind)
            return controls.kept(made, self.latest_proposal(), self.fmt.key)

    async def improve(self, name: str, turn: int) -> Contribution:
        """Collective Improvement: own and others' previous-turn answers only, no turn order."""
        previous = {c.agent: c for c in self.transcript if c.turn == turn - 1}

        def shown(agent: str) -> str:
            c = previous[agent]
            if self.cfg.ci_context == "messages":
                text = c.message
            else:
                text = (
                    self.fmt.render(self.fmt.describe(c.solution))
                    if c.solution is not None
                    else "(no solution)"
                )
            text = text if agent == name else self.view.text(text, agent, c.turn)  # peers=noise
            persona = self.personas.get(agent)
            return f"({persona.role})\n{text}" if persona and agent != name else text

        # -S peers=self: its own answer stands in the others' place (controls.py)
        peers = [name] if self.view.condition == "self" else [a for a in self.names if a != name]
        others = [(agent, shown(agent)) for agent in peers]
        update = prompts.ci_update(self.question, shown(name), others, self.fmt, self.cfg.cot)
        messages = [self.system(name), Msg("user", update)]
        solutions = (previous[a].solution for a in peers if self.view.condition != "noise")
        asks = AnswerRequest(self.fmt, shown=tuple(s for s in solutions if s is not None))
        async with self.rt.agent_span(name):  # the message and its extraction call, together
            reply = await self.s.call(name, name, messages, "discussion", turn, asks=asks)
            return await self.contribution(name, turn, reply.text, None, None, "improve")

    async def contribution(
        self,
        name: str,
        turn: int,
        text: str,
        agreement: bool | None,
        current: str | None,
        kind: str,
    ) -> Contribution:
        """Read the message's solution; an agreement keeps the solution it agreed with."""
        mode = self.cfg.extraction_used
        solution, how, calls = current, "none", 1
        extracted: str | None
        if not (agreement and mode == "marked"):
            parsed = self.fmt.extract(text) if mode == "marked" else None
            if parsed is not None:
                extracted, how = parsed, "marked"
            else:
                answer = await self.extract(name, turn, text, "extract")
                extracted, how, calls = answer.answer, "call", 1 + answer.attempts
            solution = current if agreement else extracted
        persona = self.personas.get(name)
        return Contribution(
            turn=turn, agent=name, persona=persona.role if persona else None, kind=kind,
            message=text, solution=solution, agreement=agreement, extraction=how, calls=calls,
        )  # fmt: skip

    async def extract(self, name: str, turn: int, text: str, purpose: str) -> AgentAnswer:
        """The paper's extraction call: the solution a text states, in the task's answer format.

        After reasoning-only messages it asks the agent to conclude instead; voting candidates, a
        consensus's final answer and conclusions are written as the agent (under its system
        message: the discussion framing and its persona), message extraction without one.
        """
        conclude = self.cfg.style == "reasoning"
        messages = [self.system(name)] if conclude or purpose in ("candidate", "final") else []
        messages.append(Msg("user", prompts.extract(self.question, text, self.fmt, conclude)))
        asks = ExtractRequest(self.fmt, text, conclude)
        return await self.s.answer(name, name, messages, purpose, turn, asks=asks)

    def consensus_after(self, message: Contribution) -> bool:
        if self.cfg.voting:
            return False
        n = self.cfg.agents
        rule = consensus.consensus_rule(self.cfg.protocol)
        if self.cfg.consensus_count == "latest_solution":
            count = _latest_solution_count([c.solution for c in self.transcript], n)
        else:
            count = consensus.consensus_count([c.agreement for c in self.transcript], n)
        proposal = self.latest_proposal()
        # a proposal without a readable solution gives nothing to agree on
        decided = (
            rule.reached(count, n, self.cfg.strict)
            and proposal is not None
            and proposal.solution is not None
        )
        self.checks.append(
            ConsensusCheck(message.turn, message.agent, count, n, rule.threshold, decided)
        )
        return decided

    async def final_answer(self, last: str, turn: int, proposal: Contribution) -> str | None:
        """The agreed proposal's solution; with `final_from=last_agent` (the paper's text), the
        solution the agent that spoke last writes from it (E.1), the proposal's when its reply
        states none."""
        if self.cfg.final_from != "last_agent":
            return proposal.solution
        async with self.rt.span("final answer"):
            written = await self.extract(last, turn, proposal.message, "final")
        self.rt.info(
            "final answer",
            f"{last} wrote the final solution from {proposal.agent}'s agreed proposal: "
            + (
                self.fmt.describe(written.answer)
                if written.answer is not None
                else "none readable, so the proposal's solution stands"
            ),
        )
        return written.answer if written.answer is not None else proposal.solution

    def latest_proposal(self) -> Contribution | None:
        return controls.latest_proposal(self.transcript)

    # -- voting ----------------------------------------------------------------------------------

    async def vote(self, turn: int, settled: bool = False) -> Vote:
        cfg = self.cfg
        async with self.rt.span(f"vote after turn {turn}"):
            latest = {c.agent: c.solution for c in self.transcript}  # each agent's latest solution
            if cfg.extraction_used == "call":  # the paper extracts every candidate afresh

                def source(n: str) -> str | None:
                    # MALLM extracts a candidate for every agent that spoke, from the solution it
                    # stored; an unreadable one is asked about as such
                    if n not in latest:
                        return None
                    solution = latest[n]
                    return self.fmt.describe(solution) if solution is not None else NO_SOLUTION

                extracted = await self.rt.gather(
                    *(
                        self.extract(n, turn, text, "candidate")
                        for n in self.names
                        if (text := source(n)) is not None
                    )
                )
                by_agent = {a.agent: a.answer for a in extracted}
                answers = [by_agent.get(n) for n in self.names]
            else:
                answers = [latest[n] for n in self.names]
            candidates = self.candidates(answers)
            ballots: list[Ballot] = []
            if cfg.protocol == "counting":
                counts = [len(c.agents) for c in candidates]
                result = voting.winner_of(counts, sum(counts))
            else:
                rules = self.ballot_rules(len(candidates))
                if candidates:
                    ballots = await self.rt.gather(
                        *(self.ballot(n, turn, candidates, rules) for n in self.names)
                    )
                result = voting.tally([b.parsed for b in ballots], rules)
        vote = Vote(
            turn=turn,
            protocol=cfg.protocol,
            candidates=candidates,
            ballots=list(ballots),
            tally=result.totals,
            winner=result.winner,
            tie=result.tie,
            invalid=sum(b.parsed is None for b in ballots),
            retries=sum(b.retries for b in ballots),
        )
        self.votes.append(vote)
        last = turn == cfg.max_turns or settled  # no turn follows this vote
        self.rt.info(
            f"vote after turn {turn}",
            viewer.vote_table(vote, self.fmt.describe, self.ballot_rules(len(candidates)), last),
        )
        return vote

    def ballot_rules(self, candidates: int) -> BallotRules:
        cfg = self.cfg
        return BallotRules(
            cfg.protocol, candidates, cfg.max_ranks, cfg.points, cfg.allow_fewer, cfg.simple_parse
        )

    def candidates(self, answers: list[str | None]) -> list[Candidate]:
        """One candidate per agent with a solution; with dedupe (and for counting) one per distinct
        answer. An agent without a readable solution offers no candidate: an empty one could win."""
        merge = self.cfg.dedupe or self.cfg.protocol == "counting"
        grouped: dict[str, Candidate] = {}
        for name, answer in zip(self.names, answers):
            if answer is None:
                continue
            key = self.fmt.key(answer) if merge else name
            if key not in grouped:
                grouped[key] = Candidate(len(grouped), answer, [])
            grouped[key].agents.append(name)
        return list(grouped.values())

    async def ballot(
        self, name: str, turn: int, candidates: list[Candidate], rules: BallotRules
    ) -> Ballot:
        listed = [self.fmt.describe(c.answer) for c in candidates]
        messages = [self.system(name), Msg("user", prompts.ballot(self.question, listed, rules))]
        asked: Asked[Parsed] = await self.s.ask(
            name,
            name,
            messages,
            "vote",
            turn,
            lambda text: voting.parse_ballot(text, rules),
            prompts.ballot_reminder(rules),
            retries=self.cfg.vote_retries,
            asks=BallotRequest(self.fmt, tuple(c.answer for c in candidates), rules),
        )
        return Ballot(name, asked.replies, asked.value, len(asked.replies) - 1)

    # -- the decision ----------------------------------------------------------------------------

    def decided(self, final: str | None, turn: int, after: str, winner: str) -> Outcome:
        return Outcome(final, True, DecidedAt(turn, after), None, winner)

    def no_decision(self) -> Outcome:
        if not self.cfg.voting:
            # the latest proposal that carries a solution (a proposal without one has nothing to give)
            proposal = next(
                (
                    c
                    for c in reversed(self.transcript)
                    if not c.agreement and c.solution is not None
                ),
                None,
            )
            final = proposal.solution if proposal else None
            return Outcome(
                final, False, None, "latest_proposal", proposal.agent if proposal else None
            )
        if self.cfg.no_decision == "none" or not self.votes:  # no vote held (a limit came first)
            return Outcome(None, False, None, "none")
        first = self.names[0]
        candidate = next((c for c in self.votes[-1].candidates if first in c.agents), None)
        if candidate is None:  # the first agent has no solution: no answer, not someone else's
            return Outcome(None, False, None, "first_agent")
        return Outcome(candidate.answer, False, None, "first_agent", first)

    def announce(self, outcome: Outcome) -> None:
        turns = self.settled_at or self.cfg.max_turns  # the turns it had
        rule = self.consensus_rule()
        shown = viewer.decision_text(outcome, self.fmt.describe, self.votes, rule, turns)
        self.rt.info("decision", shown)

    # -- the challenge stage ---------------------------------------------------------------------

    async def challenge(
        self, outcome: Outcome, variant: str, replaced: Counterfeit | None
    ) -> Challenge:
        """After the decision every agent, at once, judges the final answer of `variant` (the
        decision's, or `replaced`, the one written in its place); an agent that disagrees gives
        a new answer."""
        cfg, fmt = self.cfg, self.fmt
        turn = max((c.turn for c in self.transcript), default=0) + 1  # one round more
        written: str | None = None
        shown: str | None
        facts = None
        async with self.rt.span(f"challenge: {variant}"):
            if replaced is not None:
                written, answer, shown = replaced
            else:
                answer = outcome.final
                shown = fmt.describe(answer) if answer is not None else None
            if shown is None and cfg.challenge_no_answer == "ask":  # a stand-in is judged
                shown = (written or "").strip()[: challenges.SHOWN_CHARS] or challenges.NO_ANSWER
            if variant == "information" and self.facts is not None and shown is not None:
                facts = self.facts.about(self.question.text)
            # no answer to judge (the debate abstained, or no wrong answer could be read) and
            # challenge_no_answer=skip: nothing is asked
            verdicts = (
                []
                if shown is None
                else await self.rt.gather(
                    *(
                        self.verdict(name, turn, shown, answer, variant == "history", facts)
                        for name in self.names
                    )
                )
            )
        adopted = None
        if cfg.challenge_adopt == "majority":
            adopted = challenges.adopted([v.new_answer for v in verdicts], cfg.agents, fmt.key)
        record = Challenge(
            setting=variant, decided=outcome.final, shown=shown, shown_answer=answer,
            challenger=written, verdicts=list(verdicts), adopt=cfg.challenge_adopt,
            adopted=adopted, facts=facts,
        )  # fmt: skip
        table = viewer.challenge_table(record, fmt.describe, self.models())
        self.rt.info(f"challenge: {variant}", table)
        return record

    async def counterfeit(self, kind: str) -> Counterfeit:
        """The answer shown in place of the decision's (see `Counterfeit`) in variant `kind`,
        written in round 0: it needs only the task, not the debate. A wrong answer is read in the
        task's format and asked again while unreadable, as any answer; still unreadable, nothing
        is shown, since a refusal is no wrong answer. An irrelevant reply is shown as written."""
        cfg, fmt = self.cfg, self.fmt
        if kind == "irrelevant" and cfg.challenge_irrelevant == "fixed":
            return None, None, challenges.FIXED_IRRELEVANT
        messages = [Msg("user", prompts.counterfeit(self.question, kind, fmt))]
        asks = CounterfeitRequest(fmt, kind)
        async with self.rt.span(CHALLENGER):
            if kind == "wrong":
                reminder = base_prompts.reminder(fmt, self.s.problem.templates)
                wrong = await self.s.ask(
                    CHALLENGER, CHALLENGER, messages, "counterfeit", 0, fmt.extract, reminder,
                    asks=asks,
                )  # fmt: skip
                shown = fmt.describe(wrong.value) if wrong.value is not None else None
                return wrong.replies[-1], wrong.value, shown
            reply = await self.s.call(CHALLENGER, CHALLENGER, messages, "counterfeit", 0, asks=asks)
        return reply.text, None, reply.text.strip()[: challenges.SHOWN_CHARS]

    async def verdict(
        self, name: str, turn: int, shown: str, answer: str | None, history: bool, facts: str | None
    ) -> ChallengeVerdict:
        """AGREE or DISAGREE on the answer shown (with the discussion, or with `facts`); after
        DISAGREE, a new answer, asked afresh in the same context (the verdict not shown)."""
        context = [
            self.system(name),
            Msg("user", prompts.challenge_opening(self.question, history)),
            *(self.history(name, self.transcript) if history else []),
        ]
        messages = _merged([*context, Msg("user", prompts.challenge(shown, facts))])
        asks = ChallengeRequest(self.fmt, answer)
        async with self.rt.agent_span(name):  # the verdict and its new answer, together
            reply = await self.s.call(name, name, messages, "challenge", turn, asks=asks)
            agrees = challenges.read_verdict(reply.text)
            if agrees is not False:
                kind = "abstain" if agrees is None else "agree"
                return ChallengeVerdict(name, reply.text, kind, None, None, 1)
            follow = _merged([*context, Msg("user", prompts.new_answer(shown, self.fmt, facts))])
            new = await self.s.answer(
                name, name, follow, "challenge_answer", turn, asks=AnswerRequest(self.fmt)
            )
        return ChallengeVerdict(
            name, reply.text, "disagree", new.text, new.answer, 1 + new.attempts
        )

    async def result(
        self, outcome: Outcome, stages: list[Challenge], embedder: Embedder
    ) -> DebateResult:
        finals = {c.agent: c.solution for c in self.transcript}  # each agent's last solution
        texts = [self.fmt.describe(a) for a in finals.values() if a is not None]
        cosine = mean_pairwise_cosine(await embedder.embed(texts)) if len(texts) > 1 else None
        cfg = self.cfg
        return DebateResult(
            method=cfg.method,
            # a new answer replaces the decision's only with one variant (challenge_adopt)
            final=stages[0].final if stages else outcome.final,
            answers=[
                AgentAnswer(c.agent, c.turn, c.message, c.solution, c.calls)
                for c in self.transcript
            ],
            calls=self.s.calls,
            tally=last_vote_tally(self.votes, self.fmt.key),
            adaptive_stop=record(self.counts, cfg.agents, settling.TRACKED, self.stability),
            options={
                **cfg.record(),
                "extraction": cfg.extraction_used,
                "requested_extraction": cfg.extraction,
            },
            record=DecisionRecord(
                personas=self.personas,
                transcript=self.transcript,
                consensus_checks=self.checks,
                votes=self.votes,
                decision_success=outcome.decision_success,
                turns_used=max((c.turn for c in self.transcript), default=0),
                max_turns=cfg.max_turns,
                decided_at=outcome.decided_at,
                fallback_used=outcome.fallback_used,
                winner_agent=outcome.winner_agent,
                final_answers=finals,
                answer_cosine=cosine,
                embedder=embedder.name,
                challenges=stages,
            ),
        )

    # -- what the agents and the viewer see ------------------------------------------------------

    def history(self, name: str, contributions: list[Contribution]) -> list[Msg]:
        """Messages as an agent sees them: its own as its replies, the others' by their label."""
        return [
            Msg("assistant", c.message)
            if c.agent == name
            else Msg("user", f"{self.label(c.agent)}: {c.message}")
            for c in contributions
        ]

    def system(self, name: str) -> Msg:
        persona = self.personas.get(name)
        return Msg("system", prompts.system(self.cfg.style, persona.line() if persona else None))

    def consensus_rule(self) -> str | None:
        """The consensus condition in words; None under a voting protocol."""
        cfg = self.cfg
        if cfg.voting:
            return None
        threshold = consensus.consensus_rule(cfg.protocol).threshold
        return viewer.consensus_rule(cfg.protocol, threshold, cfg.strict, cfg.agents)

    def label(self, name: str) -> str:
        """How others see an agent: its persona's role (with the agent if two roles coincide)."""
        persona = self.personas.get(name)
        if persona is None:
            return name
        same = sum(p.role == persona.role for p in self.personas.values())
        return persona.role if same == 1 else f"{persona.role} ({name})"


def last_vote_tally(votes: list[Vote], key: Callable[[str], str]) -> Tally | None:
    """The last vote as a tally over answers: each candidate's points, summed over candidates with
    the same answer (by `key`, first spelling kept); its winner, tie, and the invalid ballots as
    abstentions. None when no vote was held (consensus protocols)."""
    if not votes:
        return None
    vote = votes[-1]
    counts: dict[str, int] = {}
    spelling: dict[str, str] = {}
    for c in vote.candidates:
        answer = spelling.setdefault(key(c.answer), c.answer)
        counts[answer] = counts.get(answer, 0) + vote.tally[c.index]
    won = vote.candidates[vote.winner].answer if vote.winner is not None else None
    return Tally(counts, None if won is None else spelling[key(won)], vote.tie, vote.invalid)


def _latest_solution_count(solutions: list[str | None], agents: int) -> int:
    """MALLM d9e66bc's consensus count: over the last `agents` messages, the position from the end
    of the latest one that holds a solution (1: the last message), 0 when none does. Agreeing
    messages hold the solution they agree with, so it is 1 once any message has one."""
    recent = solutions[-agents:]
    return next((i for i, s in enumerate(reversed(recent), 1) if s is not None), 0)


def _merged(messages: list[Msg]) -> list[Msg]:
    """Consecutive messages of one role become one, so every prompt alternates user/assistant."""
    out: list[Msg] = []
    for m in messages:
        if out and out[-1].role == m.role:
            out[-1] = Msg(m.role, compose(out[-1].content, "\n\n", m.content))
        else:
            out.append(m)
    return out


def prepare(cfg: DecisionConfig, setup: Setup) -> Run:
    embedder = setup.embedder(cfg.embedder)
    facts = None  # the information variant's passages, read before any call
    if "information" in challenges.variants(cfg.challenge) and cfg.challenge_facts is not None:
        facts = Facts.load(cfg.challenge_facts, cfg.challenge_facts_k)
    return lambda s: decision_debate(s, cfg, embedder, facts)


DISCUSSION = ("", "memory")  # the options every method with a turn order shows


def decision_roles(cfg: DecisionConfig) -> tuple[str, ...]:
    """The agents' roles, and the challenger's where it writes a replaced answer."""
    variants = challenges.variants(cfg.challenge)
    writes = "wrong" in variants or (
        "irrelevant" in variants and cfg.challenge_irrelevant == "call"
    )
    return (*agent_roles(cfg), *((CHALLENGER,) if writes else ()))


SPECS = (
    MethodSpec(
        "voting",
        "Agents discuss in a fixed order, then vote after turn `vote_turn`; a tie adds a turn.",
        DecisionConfig,
        prepare,
        roles=decision_roles,
        authors_form=final_solution,  # MALLM's "Final Solution:" (authors_forms.py)
        groups=(*DISCUSSION, "votes"),
        preset={"family": "voting"},
        doc="Takes a voting protocol: simple, ranked, cumulative, approval or counting.",
    ),
    MethodSpec(
        "consensus",
        "Agents discuss in a fixed order until enough of them agree in a row, checked after "
        "every message; at `max_turns` the latest proposal is the answer.",
        DecisionConfig,
        prepare,
        roles=decision_roles,
        authors_form=final_solution,  # MALLM's "Final Solution:" (authors_forms.py)
        groups=(*DISCUSSION, "consensus"),
        preset={"family": "consensus", "protocol": "majority"},
        doc="Takes a consensus protocol: majority, supermajority or unanimity.",
    ),
    MethodSpec(
        "aad",
        "All-Agents Drafting: every agent drafts independently in turn 1, then the memory "
        "paradigm.",
        DecisionConfig,
        prepare,
        roles=decision_roles,
        authors_form=final_solution,  # MALLM's "Final Solution:" (authors_forms.py)
        groups=(*DISCUSSION, "votes", "consensus"),
        preset={"all_agents_draft": True},
        doc="Takes any voting or consensus protocol; the voting options apply to voting "
        "protocols, `strict` to consensus ones.",
    ),
    MethodSpec(
        "collective_improvement",
        "Collective Improvement: each turn every agent, at once, improves its previous answer "
        "given only the others' previous answers; votes from turn `vote_turn` on.",
        DecisionConfig,
        prepare,
        roles=decision_roles,
        authors_form=final_solution,  # MALLM's "Final Solution:" (authors_forms.py)
        groups=("", "votes", "ci"),
        preset={"paradigm": "ci"},
        doc="Takes a voting protocol. Consensus protocols are refused: without a turn order "
        'nobody agrees "in order".',
    ),
)
