"""Tree-of-Debate (Kargupta et al., ACL 2025): a debate tree that compares two scientific papers.

Author 0 (the focus paper) and Author 1 are personas of their papers; a moderator steers.
1. Self-deliberation at the root topic: each persona retrieves `k_evidence` excerpts of its own
   paper for the topic and writes up to `max_claims` claims citing them; for each of the
   opponent's claims it retrieves `k_preempt` more excerpts of its own paper, each judged by a
   relevance call and kept by the keep rule (a claim with none kept gets the "not addressed"
   sentinel); the moderator turns the claims into up to `max_subtopics` subtopics, each mapped to
   claim ids: the node's children.
2. Each child is debated with its parent's self-deliberation: present (each persona alone),
   respond (Author 0 answers Author 1's presentation; Author 1 then answers Author 0's response),
   revise (each sees the whole history, Author 1 also Author 0's revision). The moderator then
   judges progression, open questions and a clear winner; the expansion rule (`expand_rule`)
   says whether the node wants expansion.
3. Level by level: the nodes of a level debate concurrently (`parallel_siblings`), then the
   expansions are granted in breadth-first order while the global budget (`max_expansions`) and
   the depth limit (`max_depth`) allow, so the tree equals the reference's sequential FIFO order;
   a granted node self-deliberates for its own children. The expansion call is made even when the
   budget or the depth blocks it (as in the reference), and recorded.
4. The moderator synthesises the whole tree (`tree_json`, the revised arguments) into a summary:
   the final answer; an unreadable summary is an abstention. A limit of the run (or `-S budget`)
   ends the tree where it is; the summary is a call the limit leaves no room for, so there is no
   answer, and the record keeps the tree so far and says where it stopped.
No-Tree (`tree` False): one combined subtopic per expansion, a chain. No-SD (`self_deliberation`
False): no retrieval and no relevance calls; claims come from the title, abstract and introduction,
the moderator's subtopics call shows both introductions, every debate turn of a persona opens with
its own introduction (the reference shows it at present only; all three stages keep the persona's
prefix the same) and an opposition without mapped claims shows its introduction.

Calls per pair, without follow-ups: with S self-deliberations (the root's and one per granted
expansion) and N debated nodes,
    S × (2 claims + R relevance + 1 subtopics) + 7 N (6 debate turns + 1 expansion) + 1 synthesis,
where R counts the segments retrieved for the opponents' claims (at most 2 × max_claims ×
k_preempt; 0 without SD). Defaults: R ≤ 12, S ≤ 4, N ≤ 20, so at most 15 × 4 + 140 + 1 = 201;
No-SD at most 3 × 4 + 141 = 153; No-Tree with its budget of 5 at most 15 × 6 + 42 + 1 = 133.
An unreadable reply adds up to `retries` follow-ups. The baselines: single_stage 1, two_stage 3.

Every call presents the root topic (the sample's input, all its parts) first, then both papers'
titles and abstracts (prompts.py); no call leaves it out. Calls are made by the agents
`author_0`, `author_1` and `moderator` (the baselines: `summarizer`), each on the role of its
name; `round` is the node's level (root 0) and `purpose` "<stage> <node id>", so no two nodes
share a cached reply.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ... import viewer_text
from ...checks import OptionError
from ...content import Content
from ...limits import LimitReached, stop_at
from ...protocols.tod import (
    Judgment,
    Subtopic,
    granted,
    keeps,
    read_argument,
    read_claims,
    read_expansion,
    read_relevance,
    read_response,
    read_subtopics,
    read_summary,
    tree_json,
    wants_expansion,
)
from ...records import DebateResult
from ...requests import (
    ArgumentRequest,
    ClaimsRequest,
    ExpandRequest,
    RelevanceRequest,
    Request,
    SubtopicsRequest,
    SummaryRequest,
)
from ...retrieval import Evidence, Retriever
from ...session import Asked, Session
from ...spec import MethodSpec, Run, Setup
from . import prompts
from .options import TreeOptions
from .papers import PaperPair, load_retriever, node_query, retrievers_for
from .records import (
    NOT_ADDRESSED,
    Argument,
    Claim,
    Debate,
    Deliberation,
    Expansion,
    Fallback,
    Judged,
    Node,
    Preemption,
)
from .summary import MODERATOR, ask_json, summarized

T = TypeVar("T")

AUTHORS = ("author_0", "author_1")
ROOT = "r"
TITLE_CHARS = 60  # of a node's title in its span's name

# what replaced an unreadable reply (Fallback.rule)
NO_CLAIMS = "no claims: the persona has none here; its excerpts are shown instead"
DROPPED = "unreadable relevance: segment dropped"
LEAF = "no subtopics: the node stays a leaf"
NO_TURN = "unreadable {stage}: recorded as none and left out of the history"
NO_EXPANSION = "unreadable expansion decision: not expanded"

Pair = tuple[T, T]


def variant(opts: TreeOptions) -> str:
    """The method's name from its ablation switches."""
    if not opts.tree and not opts.self_deliberation:
        return "tod_no_tree_no_sd"
    if not opts.self_deliberation:
        return "tod_no_sd"
    return "tree_of_debate" if opts.tree else "tod_no_tree"


def _short(title: str) -> str:
    title = " ".join(title.split())
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


class _Run:
    """One pair's tree in progress."""

    def __init__(
        self,
        session: Session,
        pair: PaperPair,
        opts: TreeOptions,
        retrievers: Pair[Retriever] | None,
    ) -> None:
        self.session = session
        self.rt = session.runtime
        self.pair = pair
        self.opts = opts
        self.retrievers = retrievers
        topic = pair.topic.text
        self.nodes: dict[str, Node] = {ROOT: Node(ROOT, None, 0, 0, topic, topic)}
        self.used = 0  # expansions granted
        self.done = False  # the tree is complete
        self.fallbacks: list[Fallback] = []

    async def each(self, jobs: Sequence[Awaitable[T]]) -> list[T]:
        """Sibling jobs: concurrently, or one after another (`parallel_siblings` False)."""
        if self.opts.parallel_siblings:
            return await self.rt.gather(*jobs)
        return [await job for job in jobs]

    async def ask(
        self,
        agent: str,
        stage: str,
        node: Node,
        kind: str,
        prompt: Content,
        parse: Callable[[str], T | None],
        asks: Request,
    ) -> Asked[T]:
        purpose = f"{stage} {node.id}"  # the node in the cache scope: no two nodes share a reply
        return await ask_json(
            self.session, self.opts, agent, stage, purpose, node.level, kind, prompt, parse, asks
        )

    # -- self-deliberation ----------------------------------------------------------------------

    async def deliberate(
        self, node: Node
    ) -> tuple[Pair[Deliberation], tuple[Subtopic, ...], list[Fallback]]:
        """Claims, preemption and subtopics at `node`: its deliberation and its children's
        topics (none when the subtopics could not be read), with the fallbacks taken."""
        opts, pair = self.opts, self.pair
        fallbacks: list[Fallback] = []
        async with self.rt.span(f"self-deliberation {node.id}"):
            query = ""  # No-SD: no retrieval
            pools: list[tuple[Evidence, ...] | None] = [None, None]
            if self.retrievers is not None:
                query = node_query(node.title, node.description, node.parent is None)
                pools = [tuple(r.search(query, opts.k_evidence)) for r in self.retrievers]
            async with self.rt.span("claims"):
                asked = await self.rt.gather(*(self.claims(node, i, pools[i]) for i in range(2)))
            claims = [a.value or () for a in asked]
            fallbacks += [
                Fallback(node.id, "claims", i, NO_CLAIMS)
                for i, a in enumerate(asked)
                if a.value is None
            ]
            preemption: list[tuple[Preemption, ...]] = [(), ()]
            if self.retrievers is not None and opts.k_preempt > 0 and any(claims):
                async with self.rt.span("preemption"):
                    done = await self.rt.gather(
                        *(self.preempt(node, i, claims[1 - i]) for i in range(2))
                    )
                preemption = [p for p, _ in done]
                fallbacks += [f for _, fs in done for f in fs]
            made = [
                Deliberation(i, query, pools[i] or (), claims[i], preemption[i]) for i in (0, 1)
            ]
            deliberations: Pair[Deliberation] = (made[0], made[1])
            most = opts.max_subtopics if opts.tree else 1
            counts = (len(claims[0]), len(claims[1]))
            async with self.rt.span("subtopics"):
                found = await self.ask(
                    MODERATOR,
                    "subtopics",
                    node,
                    "subtopics",
                    prompts.subtopics(
                        pair,
                        node,
                        deliberations,
                        most,
                        not opts.self_deliberation,
                        describe=opts.subtopics_topic == "paper",
                    ),
                    lambda t: read_subtopics(t, counts, most),
                    SubtopicsRequest(node.title, counts, most),
                )
            if found.value is None:
                fallbacks.append(Fallback(node.id, "subtopics", None, LEAF))
            subtopics = found.value or ()
            self.rt.info(
                f"self-deliberation {node.id}",
                _deliberation_markdown(node, deliberations, subtopics),
            )
        return deliberations, subtopics, fallbacks

    async def claims(
        self, node: Node, author: int, pool: tuple[Evidence, ...] | None
    ) -> Asked[tuple[Claim, ...]]:
        size = len(pool) if pool is not None else 0
        most = self.opts.max_claims
        return await self.ask(
            AUTHORS[author],
            "claims",
            node,
            "claims",
            prompts.claims(self.pair, author, node, pool, most),
            lambda t: read_claims(t, size, most),
            ClaimsRequest(author, node.title, size, most),
        )

    async def preempt(
        self, node: Node, author: int, opposing: Sequence[Claim]
    ) -> tuple[tuple[Preemption, ...], list[Fallback]]:
        """`author`'s counter-evidence to each of the opponent's claims: segments of its own
        paper, each kept or dropped by one relevance call."""
        assert self.retrievers is not None
        queries = [f"{c.title}: {c.description}" for c in opposing]
        found = [self.retrievers[author].search(q, self.opts.k_preempt) for q in queries]
        asked = await self.rt.gather(
            *(
                self.ask(
                    AUTHORS[author],
                    "relevance",
                    node,
                    "relevance",
                    prompts.relevance(self.pair, author, claim, e.text),
                    read_relevance,
                    RelevanceRequest(f"{claim.title}: {claim.description}", e.text),
                )
                for claim, segments in zip(opposing, found)
                for e in segments
            )
        )
        verdicts = iter(asked)
        fallbacks: list[Fallback] = []
        out = []
        for k, (query, segments) in enumerate(zip(queries, found), 1):
            judged = []
            for e in segments:
                r = next(verdicts).value
                if r is None:
                    fallbacks.append(Fallback(node.id, "relevance", author, DROPPED))
                    judged.append(Judged(e.text, None, None, None, None, kept=False))
                else:
                    judged.append(
                        Judged(e.text, r.supports, r.refutes, r.clarifies, r.irrelevant, keeps(r))
                    )
            kept = tuple(j.text for j in judged if j.kept)
            out.append(
                Preemption(k, query, tuple(judged), kept or (NOT_ADDRESSED.format(claim=query),))
            )
        return tuple(out), fallbacks

    # -- the debate at a node ---------------------------------------------------------------------

    async def debate(
        self, node: Node, parent: Pair[Deliberation]
    ) -> tuple[Debate, Judgment | None, list[Fallback]]:
        """Present, respond, revise, then the moderator's judgments of the node."""
        pair = self.pair
        fallbacks: list[Fallback] = []
        no_sd = not self.opts.self_deliberation  # the introductions stand in for the excerpts
        material = [prompts.context(pair, i, node.contributions, parent, no_sd) for i in range(2)]
        turns: list[tuple[int, str]] = []  # (author, what the history shows of the turn)

        async def turn(author: int, stage: str) -> Any:
            parse: Callable[[str], Any] = (
                read_response if stage == "respond" else lambda t: read_argument(t, stage)
            )
            asked = await self.ask(
                AUTHORS[author],
                stage,
                node,
                stage,
                prompts.debate_turn(pair, author, node, material[author], stage, turns, no_sd),
                parse,
                ArgumentRequest(author, stage, node.title),
            )
            return asked.value

        def shown(author: int, stage: str, value: Argument | str | None) -> None:
            """Add a turn to the history, or record its fallback (in author order, whatever
            order concurrent replies came in)."""
            if value is None:
                fallbacks.append(Fallback(node.id, stage, author, NO_TURN.format(stage=stage)))
            else:
                text = prompts.argued(value) if isinstance(value, Argument) else value
                turns.append((author, text))

        async with self.rt.span(f"node {node.id}: {_short(node.title)}"):
            # neither sees the other's presentation: both are asked before either is shown
            async with self.rt.span("present"):
                presented = await self.rt.gather(turn(0, "present"), turn(1, "present"))
            for i, a in enumerate(presented):
                shown(i, "present", a)
            responses: list[str | None] = []
            async with self.rt.span("respond"):
                for i in range(2):  # Author 1 answers Author 0's response
                    responses.append(await turn(i, "respond"))
                    shown(i, "respond", responses[-1])
            revised: list[Argument | None] = []
            async with self.rt.span("revise"):
                for i in range(2):  # Author 1 also sees Author 0's revision
                    revised.append(await turn(i, "revise"))
                    shown(i, "revise", revised[-1])
            async with self.rt.span("expand"):
                asked = await self.ask(
                    MODERATOR,
                    "expand",
                    node,
                    "expand",
                    prompts.expand(pair, node, turns, presented, revised),
                    read_expansion,
                    ExpandRequest(node.title, node.level),
                )
            if asked.value is None:
                fallbacks.append(Fallback(node.id, "expand", None, NO_EXPANSION))
        debate = Debate(
            (presented[0], presented[1]),
            (responses[0], responses[1]),
            (revised[0], revised[1]),
        )
        return debate, asked.value, fallbacks

    # -- the tree ---------------------------------------------------------------------------------

    def grow(
        self, node: Node, deliberation: Pair[Deliberation], subtopics: Sequence[Subtopic]
    ) -> list[Node]:
        """Record `node`'s self-deliberation and add its children, next in breadth-first order."""
        children = []
        for k, s in enumerate(subtopics, 1):
            child = Node(
                f"{node.id}.{k}",
                node.id,
                node.level + 1,
                len(self.nodes),
                s.title,
                s.description,
                s.contributions,
            )
            self.nodes[child.id] = child
            children.append(child)
        self.nodes[node.id] = replace(
            self.nodes[node.id], deliberation=deliberation, children=tuple(c.id for c in children)
        )
        return children

    async def run(self) -> None:
        """The tree, level by level, in `nodes`; the expansions granted in `used`; `done` once
        it is complete."""
        opts = self.opts
        root = self.nodes[ROOT]
        deliberation, subtopics, fallbacks = await self.deliberate(root)
        self.fallbacks += fallbacks
        level = self.grow(root, deliberation, subtopics)
        while level:
            debated = await self.each([self.debate(n, self._deliberation(n)) for n in level])
            expanding: list[Node] = []
            for node, (debate, judgment, fallbacks) in zip(level, debated):
                self.fallbacks += fallbacks
                # an unreadable judgment (None) never wants expansion
                judged: tuple[bool | None, bool | None, bool | None] = (
                    (judgment.progression, judgment.questions, judgment.clear_winner)
                    if judgment
                    else (None, None, None)
                )
                wants = wants_expansion(opts.expand_rule, *judged)
                ok, blocked = granted(
                    wants, node.level, self.used, opts.max_expansions, opts.max_depth
                )
                self.used += ok
                explanation = judgment.explanation if judgment else ""
                expansion = Expansion(explanation, *judged, opts.expand_rule, wants, ok, blocked)
                node = replace(node, debate=debate, expansion=expansion)
                self.nodes[node.id] = node
                self.rt.info(f"node {node.id}", _node_markdown(node, self.used, opts))
                if ok:
                    expanding.append(node)
            grown = await self.each([self.deliberate(n) for n in expanding])
            level = []
            for node, (deliberation, subtopics, fallbacks) in zip(expanding, grown):
                self.fallbacks += fallbacks
                level += self.grow(node, deliberation, subtopics)
        self.done = True

    def _deliberation(self, node: Node) -> Pair[Deliberation]:
        assert node.parent is not None
        parent = self.nodes[node.parent].deliberation
        assert parent is not None  # a node exists only once its parent has deliberated
        return parent


async def tree_of_debate(
    session: Session,
    pair: PaperPair,
    opts: TreeOptions,
    retrievers: Pair[Retriever] | None,
) -> DebateResult:
    """A debate tree over `pair` and its synthesis. `retrievers` search each paper's chunks (None
    only without self-deliberation)."""
    if opts.self_deliberation and retrievers is None:
        raise ValueError("tree_of_debate needs a retriever per paper for self-deliberation")
    run = _Run(session, pair, opts, retrievers if opts.self_deliberation else None)
    limit = None
    asked: Asked[str] | None = None
    try:
        await run.run()
        tree = tree_json(list(run.nodes.values()))
        session.runtime.info("tree", _tree_markdown(list(run.nodes.values())))
        async with session.runtime.span("synthesis"):
            asked = await ask_json(
                session,
                opts,
                MODERATOR,
                "synthesis",
                "synthesis",
                0,
                "summary",
                prompts.synthesis(pair, json.dumps(tree, indent=2, ensure_ascii=False)),
                read_summary,
                SummaryRequest("tree"),
            )
    except LimitReached as reached:  # the summary is a call: none is left for it
        limit = reached
    nodes = list(run.nodes.values())
    result = summarized(
        session,
        pair,
        opts,
        variant(opts),
        MODERATOR,
        asked,
        run.fallbacks,
        node=ROOT,
        nodes=nodes,
        expansions=run.used,
        budget=opts.max_expansions,
        chunks=(run.retrievers[0].size, run.retrievers[1].size) if run.retrievers else (0, 0),
        tree=tree_json(nodes),
    )
    debated = sum(n.debate is not None for n in nodes)
    where = "the synthesis" if run.done else "the tree"
    return stop_at(result, limit, f"{where} ({debated} node(s) debated)", NO_SUMMARY)


NO_SUMMARY = (
    "no answer: the summary is a model call, and the limit left none (the tree is recorded)"
)


# -- what a person reads in the viewer -------------------------------------------------------------


def _yes(value: bool | None) -> str:
    return "unreadable" if value is None else "yes" if value else "no"


def _argument(a: Argument | None) -> str:
    if a is None:
        return "(no readable argument)"
    text = f"{a.title.strip()}. {a.description.strip()}"
    return f"**concedes**: {text}" if a.concedes else text


RULES = {
    "code": "(progression or questions) and not clear winner",
    "paper": "progression or questions or not clear winner",
}


def _decision(node: Node, used: int, opts: TreeOptions) -> str:
    e = node.expansion
    assert e is not None
    if e.granted:
        budget = f" of {opts.max_expansions}" if opts.max_expansions is not None else ""
        return f"**expanded** (expansion {used}{budget}): its self-deliberation follows"
    if e.blocked == "budget":
        return f"**not expanded**: the budget of {opts.max_expansions} expansions is spent"
    if e.blocked == "depth":
        return f"**not expanded**: it is at the depth limit (max_depth {opts.max_depth})"
    if e.progression is None:
        return "**not expanded**: the moderator's judgments could not be read"
    return "**not expanded**: the rule does not want it"


def _node_markdown(node: Node, used: int, opts: TreeOptions) -> str:
    """A debated node: its revised arguments, the moderator's judgments, the rule and whether
    the budget or the depth limit blocked the expansion."""
    assert node.debate is not None and node.expansion is not None
    e = node.expansion
    rows = [
        ("progression of arguments", _yes(e.progression)),
        ("meaningful open questions", _yes(e.questions)),
        ("clear winner", _yes(e.clear_winner)),
    ]
    wants = "wants expansion" if e.wants else "does not want expansion"
    parts = [
        f"**Node {node.id}** (level {node.level}): {node.title.strip()}",
        node.description.strip(),
        "Revised arguments:\n"
        + "\n".join(f"- Author {i}: {_argument(a)}" for i, a in enumerate(node.debate.revise)),
        viewer_text.table(["moderator's judgment", "answer"], rows),
        f"Rule `{e.rule}`: {RULES[e.rule]} → {wants}. Decision: {_decision(node, used, opts)}.",
    ]
    if e.explanation.strip():
        parts.append(f"The moderator's explanation: {e.explanation.strip()}")
    return "\n\n".join(p for p in parts if p)


def _deliberation_markdown(
    node: Node, deliberations: Pair[Deliberation], subtopics: Sequence[Subtopic]
) -> str:
    """A self-deliberation: each persona's claims with what they cite, the counter-evidence the
    relevance filter kept, and the subtopics with their mapped claims."""
    rows = []
    for d in deliberations:
        for k, c in enumerate(d.claims, 1):
            counter = next(
                (p for p in deliberations[1 - d.author].preemption if p.claim == k), None
            )
            kept = (
                "–"
                if counter is None
                else f"{sum(j.kept for j in counter.judged)} of {len(counter.judged)}"
            )
            cited = ", ".join(map(str, c.evidence)) or "–"
            rows.append((f"Author {d.author}", k, c.title, cited, kept))
    claims = (
        viewer_text.table(["author", "claim", "title", "excerpts", "countered"], rows, right={1})
        if rows
        else "No claims."
    )
    children = [
        (
            f"{node.id}.{k}",
            s.title,
            ", ".join(map(str, s.contributions[0])) or "–",
            ", ".join(map(str, s.contributions[1])) or "–",
        )
        for k, s in enumerate(subtopics, 1)
    ]
    tops = (
        viewer_text.table(["child", "subtopic", "Author 0 claims", "Author 1 claims"], children)
        if children
        else "No subtopics: the node stays a leaf."
    )
    query = deliberations[0].query
    lead = f"**Self-deliberation at {node.id}**" + (
        f" (retrieval query: {query})" if query else " (no retrieval: No-SD)"
    )
    return (
        f"{lead}\n\n{claims}\n\nexcerpts: the ids of the retrieved excerpts a claim cites; "
        "countered: of the opponent's segments retrieved against the claim, how many the "
        f"relevance filter kept (none kept: the claim is marked not addressed).\n\n{tops}"
    )


def _verdict(node: Node) -> str:
    """What came of a debated node, in a few words: expanded, blocked (by what) or a leaf (the
    judgments against expansion), and who conceded in the revised arguments."""
    e, debate = node.expansion, node.debate
    if e is None or debate is None:
        return ""
    if e.granted:
        verdict = "expanded" if node.children else "expanded, no subtopics"
    elif e.blocked:
        verdict = f"blocked: {e.blocked}"
    elif e.progression is None:
        verdict = "leaf: unreadable judgment"
    else:
        against = [
            ("no progression", not e.progression),
            ("no open questions", not e.questions),
            ("clear winner", bool(e.clear_winner)),
        ]
        verdict = "leaf: " + ", ".join(w for w, yes in against if yes)  # never empty
    conceded = [f"Author {i}" for i, a in enumerate(debate.revise) if a is not None and a.concedes]
    return f"{verdict}; concessions: {', '.join(conceded)}" if conceded else verdict


def _tree_markdown(nodes: Sequence[Node]) -> str:
    """The whole tree as a nested list (the viewer draws the node spans flat): each node under
    its parent, with its id, its title and what came of its debate."""
    by_id = {n.id: n for n in nodes}
    lines = []
    stack = [(ROOT, 0)]  # depth first, children in order; no recursion however deep the tree
    while stack:
        node_id, depth = stack.pop()
        node = by_id[node_id]
        verdict = _verdict(node)
        title = " ".join(node.title.split())  # a reply's line breaks would end the list item
        lines.append(f"{'  ' * depth}- {node.id}: {title}" + (f" ({verdict})" if verdict else ""))
        stack += [(c, depth + 1) for c in reversed(node.children)]
    return "**The debate tree**\n\n" + "\n".join(lines)


# -- the methods as every host offers them -------------------------------------------------------


def prepare(opts: TreeOptions, setup: Setup) -> Run:
    if opts.self_deliberation:
        try:  # the embedding model of retriever=bge:<path>, loaded before any call
            load_retriever(opts.retriever)
        except Exception as e:  # noqa: BLE001 - a missing library, path or hub model: all one to a user
            raise OptionError(
                "retriever", opts.retriever, f"a retriever that loads here ({e})"
            ) from None

    def run(session: Session, pair: PaperPair) -> Awaitable[DebateResult]:
        shown = pair.swapped() if opts.swap_papers else pair
        return tree_of_debate(session, shown, opts, retrievers_for(shown, opts))

    return run


def tree_roles(options: object) -> tuple[str, ...]:
    return ("author", *AUTHORS, MODERATOR)


SPECS = (
    MethodSpec(
        "tree_of_debate",
        "Tree-of-Debate: self-deliberation, a three-stage debate per subtopic, breadth-first "
        "expansion within a budget, and a synthesis of the tree.",
        TreeOptions,
        prepare,
        reads=PaperPair,
        roles=tree_roles,
    ),
    MethodSpec(
        "tod_no_tree",
        "The No-Tree ablation: one combined subtopic per expansion (a chain), budget 5.",
        TreeOptions,
        prepare,
        reads=PaperPair,
        preset={"tree": False, "max_expansions": 5},
        roles=tree_roles,
    ),
    MethodSpec(
        "tod_no_sd",
        "The No-SD ablation: claims from title, abstract and introduction, no retrieval.",
        TreeOptions,
        prepare,
        reads=PaperPair,
        preset={"self_deliberation": False},
        roles=tree_roles,
    ),
)
