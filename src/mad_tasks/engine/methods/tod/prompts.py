"""The wording of Tree-of-Debate and its baselines (the project's own; the paper's appendix M and the
reference code are the model, not the text).

Every prompt opens with what all calls of a pair share, for providers' prompt caches: the root
topic (the sample's input, every part of it) and both papers' titles and abstracts. The baselines
open with the topic, then the papers as far as the call shows them. What a call is asked for is
also given to it in values (engine/requests.py), so nothing here is read back: reword freely, but
keep the JSON keys, which the readers (protocols/tod.py) look for.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...content import Content, Question, compose
from ...retrieval import Evidence
from .papers import Paper, PaperPair
from .records import Argument, Claim, Deliberation, Node

# the markers around the turn a persona answers in the respond stage (the reference's)
RESPOND_OPEN = "<respond_to_this>"
RESPOND_CLOSE = "</respond_to_this>"
YOU = "You"
OPPOSITION = "Opposition"

CONCEDE = (
    "If you do not contribute to this topic, or your contributions are not better than the "
    "opposition's, say so by conceding (for instance: \"I do not believe my paper makes a "
    'better contribution than yours"), explain why, and set "concedes" to true.'
)
SPECIFIC = "Be specific and detailed: no loose, high-level claims that the evidence does not back."
# how a summary names the papers: its reader knows them by their titles, not by the debate's labels
NAMES = (
    "Name the papers by their titles (or the names of their methods), never as Author 0, "
    "Author 1, Paper 0 or Paper 1."
)

# the reply of each call kind, as the prompt asks for it (keys as SCHEMAS in protocols/tod.py)
FORMATS = {
    "claims": (
        '{"argument_list": [{"argument_title": "<a 10-15 word statement of the argument>", '
        '"description": "<1-2 sentences citing specific excerpts>", "evidence": [<ids of the '
        "excerpts that best support it>]}]}"
    ),
    "relevance": (
        '{"supports_claim": "Yes" or "No", "refutes_claim": "Yes" or "No", "clarifies_claim": '
        '"Yes" or "No", "irrelevant_to_claim": "Yes" or "No"}'
    ),
    "subtopics": (
        '{"subtopic_list": [{"topic_title": "<a brief title>", "topic_description": "<1-2 '
        'sentences on the subtopic and what would be most useful to debate in it>", '
        '"author_0_relevant_contributions": [<ids of Author 0\'s claims, may be empty>], '
        '"author_1_relevant_contributions": [<ids of Author 1\'s claims, may be empty>]}]}'
    ),
    "present": (
        '{"argument_title": "<a 10-15 word statement of your argument>", "description": "<2-3 '
        'sentences>", "concedes": false}'
    ),
    "respond": '{"author_response": "<2-3 sentences answering the tagged turn, with your reasons>"}',
    "revise": (
        '{"revised_argument_title": "<a 10-15 word statement of your revised argument>", '
        '"revised_argument_description": "<2-3 sentences>", "concedes": false}'
    ),
    "expand": (
        '{"explanation": "<2-5 sentences on whether further debate is needed>", '
        '"progression_of_arguments": "Yes" or "No", "meaningful_questions": "Yes" or "No", '
        '"clear_winner": "Yes" or "No"}'
    ),
    "summary": '{"summary": "<5-20 sentences>"}',
}


def reminder(kind: str) -> str:
    """The follow-up after a reply that could not be read."""
    return (
        "Your reply could not be read as the JSON object asked for. Reply again with only that "
        f"object, in this format:\n{FORMATS[kind]}"
    )


def _reply(kind: str) -> str:
    return f"Reply with a JSON object only, in this format:\n{FORMATS[kind]}"


# -- the shared opening -------------------------------------------------------------------------


def _paper(label: str, paper: Paper, introduction: bool = False) -> str:
    text = f'{label}: "{paper.title.strip()}"\nAbstract: {paper.abstract.strip()}'
    if introduction and paper.introduction.strip():
        text += f"\nIntroduction: {paper.introduction.strip()}"
    return text


def shared(pair: PaperPair) -> Content:
    """What every call of a tree opens with: the root topic and both papers' titles and
    abstracts."""
    papers = "\n\n".join(_paper(f"Author {i}'s paper", p) for i, p in enumerate(pair.papers))
    return compose(
        "Two research papers are compared on this topic:\n", pair.topic, f"\n\n{papers}\n\n"
    )


def _topic(node: Node, describe: bool = True) -> str:
    """How a call names the node's topic, then (below the root) its title and (`describe`) its
    description."""
    if node.parent is None:
        return "the topic above.\n\n"
    if not describe:
        return f"the subtopic below.\n\nTopic: {node.title}\n\n"
    return (
        f"the subtopic below.\n\nTopic: {node.title}\n"
        f"Topic description: {node.description.strip()}\n\n"
    )


def _introduction(paper: Paper, whose: str) -> str:
    return f"The introduction of {whose} paper:\n{paper.introduction.strip() or '(none given)'}"


def _persona(pair: PaperPair, author: int, introduction: bool) -> str:
    """Who the persona is, then (`introduction`, the No-SD ablation) its paper's introduction:
    the same opening for all of a persona's calls in a tree, right after the shared one."""
    own, other = pair.papers[author].title.strip(), pair.papers[1 - author].title.strip()
    who = (
        f'You are Author {author}, the author of "{own}". You debate Author {1 - author} (the '
        f'opposition), the author of "{other}".'
    )
    if not introduction:
        return f"{who} "
    return f"{who}\n\n{_introduction(pair.papers[author], 'your')}\n\n"


def _excerpts(evidence: Sequence[Evidence], label: str) -> str:
    return "\n".join(f"{label} {e.id}: {e.text.strip()}" for e in evidence)


# -- self-deliberation -------------------------------------------------------------------------


def claims(
    pair: PaperPair, author: int, node: Node, evidence: Sequence[Evidence] | None, most: int
) -> Content:
    """A persona's evidence-driven claims on a node's topic from its retrieved excerpts, or
    (`evidence` None, the No-SD ablation) from its paper's title, abstract and introduction."""
    if evidence is None:
        source = "Based on your paper's title, abstract and introduction, write"
        basis = "what your paper's title, abstract and introduction say"
        cite = 'an empty "evidence" list (there are no numbered excerpts)'
    else:
        source = (
            f"Excerpts retrieved from your paper:\n{_excerpts(evidence, 'Excerpt')}\n\n"
            "Based on these excerpts, write"
        )
        basis = "the excerpts"
        cite = 'the ids of the excerpts that best support it under "evidence"'
    return compose(
        shared(pair),
        f"{_persona(pair, author, evidence is None)}You argue for the novel contributions your "
        f"paper makes to {_topic(node)}{source} 1 to {most} diverse, specific, evidence-driven "
        f"arguments for your position, each supported by {basis} (no unsupported, superficial "
        "arguments) and making its own point. Give each a short title, a description that "
        f"mentions what your paper says, and {cite}.\n\n{_reply('claims')}",
    )


def relevance(pair: PaperPair, author: int, claim: Claim, segment: str) -> Content:
    """Whether an excerpt of `author`'s paper bears on a claim of the opposition's."""
    return compose(
        shared(pair),
        f"Check whether an excerpt of Author {author}'s paper is relevant to a claim Author "
        f"{1 - author} makes: relevant evidence supports, refutes or clarifies the claim.\n\n"
        f"Claim: {claim.title.strip()}\nDescription of the claim: {claim.description.strip()}\n"
        f"Excerpt: {segment.strip()}\n\nAnswer each field Yes or No. {_reply('relevance')}",
    )


def _claim_block(
    number: int,
    claim: Claim,
    pool: Sequence[Evidence],
    counter: Sequence[str] | None,
    own: str,
    opponent: str,
) -> str:
    """One claim with the excerpts it cites and the other side's counter-evidence (None: no
    preemption ran)."""
    lines = [f"{own} claim {number}: {claim.title.strip()}: {claim.description.strip()}"]
    lines += [f"  - cited excerpt: {e.text.strip()}" for e in pool if e.id in claim.evidence]
    if counter is not None:
        lines.append(f"  - {opponent} counter-evidence to it:")
        lines += [f'    - "{s.strip()}"' for s in counter]
    return "\n".join(lines)


def counter_evidence(
    deliberations: Sequence[Deliberation], author: int, claim: int
) -> tuple[str, ...] | None:
    """The other persona's counter-evidence to `author`'s claim number `claim` (1-based), None
    when no preemption ran."""
    for p in deliberations[1 - author].preemption:
        if p.claim == claim:
            return p.segments
    return None


def subtopics(
    pair: PaperPair,
    node: Node,
    deliberations: Sequence[Deliberation],
    most: int,
    introductions: bool,
    describe: bool = False,
) -> Content:
    """The moderator's subtopics of a node from both personas' claims (`most` 1: the No-Tree
    ablation's one combined subtopic), after both papers' introductions (`introductions`, the
    No-SD ablation, whose claims cite no excerpts). A node below the root is named by its title,
    and also by its description with `describe` (the paper's prompt; the reference's shows the
    title only)."""
    blocks = []
    for author, d in enumerate(deliberations):
        shown = [
            _claim_block(
                k,
                c,
                d.evidence,
                counter_evidence(deliberations, author, k),
                f"Author {author}'s",
                f"Author {1 - author}'s",
            )
            for k, c in enumerate(d.claims, 1)
        ]
        blocks.append("\n".join(shown) if shown else f"Author {author} made no claims.")
    if most == 1:
        ask = (
            "Write one combined subtopic (a title of 15-20 words) that covers everything about "
            "this topic the papers should debate, and cite the ids of the relevant claims of "
            "each author."
        )
    else:
        ask = (
            f"Choose the most meaningful, diverse set of subtopics of this topic (at most {most}) "
            "that together cover the kinds of contributions the papers make, each with a title of "
            "10-15 words. The papers will debate which of them contributes more to each "
            "subtopic, so cite for each the ids of the relevant claims of each author."
        )
    intros, cites = "", ", each with the excerpts it cites and the other author's counter-evidence"
    if introductions:
        intros = "".join(
            _introduction(p, f"Author {i}'s") + "\n\n" for i, p in enumerate(pair.papers)
        )
        cites = ""
    return compose(
        shared(pair),
        f"{intros}You are a fair and balanced moderator of a debate between Author 0 and Author 1 "
        f"on their novel contributions to {_topic(node, describe)}Their claims{cites}:"
        f"\n\n{blocks[0]}\n\n{blocks[1]}\n\n{ask} At least one of the two lists must not be "
        "empty. The aim is to find out how novel Author 0's contributions to the topic are, one "
        f"subtopic at a time.\n\n{_reply('subtopics')}",
    )


# -- the debate at a node ------------------------------------------------------------------------


def context(
    pair: PaperPair,
    author: int,
    contributions: tuple[tuple[int, ...], tuple[int, ...]],
    deliberations: Sequence[Deliberation],
    introductions: bool,
) -> str:
    """The persona's material at a node: its claims mapped to the node with their excerpts and
    the opposition's counter-evidence, then the opposition's mapped claims with the persona's own
    counter-evidence. A side with no mapped claim shows all of that side's excerpts instead, or
    (`introductions`, the No-SD ablation) that side's introduction: the opposition's here, the
    persona's own at the top of each of its turns (`debate_turn`), which this points to."""
    parts = []
    for side, own, whose in (
        (author, "Your", "your"),
        (1 - author, "The opposition's", "the opposition's"),
    ):
        d = deliberations[side]
        mapped = [k for k in contributions[side] if 1 <= k <= len(d.claims)]
        other = "The opposition's" if side == author else "Your"
        if mapped:
            parts.append(
                f"{own} claimed contributions to this topic:\n"
                + "\n".join(
                    _claim_block(
                        k,
                        d.claims[k - 1],
                        d.evidence,
                        counter_evidence(deliberations, side, k),
                        own,
                        other,
                    )
                    for k in mapped
                )
            )
        elif introductions and side == author:
            parts.append(
                "No claim of yours is mapped to this topic: your introduction above may help you."
            )
        elif introductions:
            parts.append(_introduction(pair.papers[side], whose))
        else:
            excerpts = _excerpts(d.evidence, "  - excerpt") or "  (none)"
            parts.append(f"Excerpts from {whose} paper that may help you:\n{excerpts}")
    return "\n\n".join(parts)


def argued(argument: Argument) -> str:
    """A presented or revised argument as a history line states it."""
    return f"I argue that {argument.title.strip().lower()}. {argument.description.strip()}"


def history(turns: Sequence[tuple[int, str]], viewer: int | None, respond: bool = False) -> str:
    """The debate so far, one line per turn: `viewer`'s own turns as "You", the other's as
    "Opposition" (None: the moderator, "Author 0" and "Author 1"); `respond` tags the last
    opposition turn, the one to answer."""

    def who(author: int) -> str:
        if viewer is None:
            return f"Author {author}"
        return YOU if author == viewer else OPPOSITION

    lines = [f"- {who(a)}: {text.strip()}" for a, text in turns]
    if respond:
        last = max((i for i, (a, _) in enumerate(turns) if a != viewer), default=None)
        if last is not None:
            lines[last] = f"{RESPOND_OPEN}\n{lines[last]}\n{RESPOND_CLOSE}"
    return "Debate history:\n" + ("\n".join(lines) if lines else "(nothing yet)")


_STAGE_ASK = {
    "present": (
        "Make an argument for one specific reason why your contributions to this topic are "
        f"better than the opposition's. {CONCEDE} {SPECIFIC}"
    ),
    "respond": (
        f"Respond to the opposition's last turn (between {RESPOND_OPEN} and {RESPOND_CLOSE}). "
        "A response may acknowledge it, answer questions the opposition asked about your paper, "
        "ask clarifying questions about its claims and reasoning, clarify your own argument, or, "
        "if the opposition's claim is strong and you cannot refute it, concede."
    ),
    "revise": (
        "From the debate and both sides' arguments and evidence, write a new, stronger argument "
        "on this topic: one that answers or withstands the opposition's doubts and questions "
        f"that you find valid. {CONCEDE} {SPECIFIC}"
    ),
}


def debate_turn(
    pair: PaperPair,
    author: int,
    node: Node,
    material: str,
    stage: str,
    turns: Sequence[tuple[int, str]],
    introduction: bool,
) -> Content:
    """A persona's turn at a node: "present" (no history), "respond" or "revise". With
    `introduction` (the No-SD ablation) every stage opens with the persona's introduction, as the
    reference's present does: the three stages then share their prefix through `material`."""
    shown = "" if stage == "present" else f"{history(turns, author, stage == 'respond')}\n\n"
    return compose(
        shared(pair),
        f"{_persona(pair, author, introduction)}You debate how and why your paper makes the better "
        f"contribution to {_topic(node)}{material}\n\n{shown}"
        f"{_STAGE_ASK[stage]}\n\n{_reply(stage)}",
    )


def _arguments(arguments: Sequence[Argument | None], kind: str) -> str:
    return "\n".join(
        f"Author {i}'s {kind} argument: "
        + (f"{a.title.strip()}: {a.description.strip()}" if a else "(none could be read)")
        for i, a in enumerate(arguments)
    )


def expand(
    pair: PaperPair,
    node: Node,
    turns: Sequence[tuple[int, str]],
    presented: Sequence[Argument | None],
    revised: Sequence[Argument | None],
) -> Content:
    """The moderator's three judgments of a debated node."""
    return compose(
        shared(pair),
        "You moderate a debate in which two authors argue which paper makes the better "
        f"contribution to {_topic(node)}{history(turns, None)}\n\n"
        f"The arguments before the debate:\n{_arguments(presented, 'initial')}\n\n"
        f"The arguments after it:\n{_arguments(revised, 'revised')}\n\n"
        "Decide whether the debate is making progress. Judge the content of the arguments, not "
        "their language. Answer each Yes or No:\n"
        "1. progression_of_arguments: do the two sets of arguments differ enough to need more "
        "debate, with new or deeper ideas being discussed?\n"
        "2. meaningful_questions: are there clarifying questions in the debate that remain "
        "unanswered and matter? If neither author asked a question, No.\n"
        "3. clear_winner: has one author clearly won, so that the topic need not be broken "
        "down further to see which parts of each contribution are better?\n\n"
        f"{_reply('expand')}",
    )


def synthesis(pair: PaperPair, tree: str) -> Content:
    """The moderator's comparative summary from the debate tree (JSON text), naming the papers by
    their titles (the tree's "Author 0" and "Author 1" mean nothing to its reader)."""
    titles = [p.title.strip() for p in pair.papers]
    return compose(
        shared(pair),
        "Author 0 and Author 1 debated their papers' novel contributions to this topic. Here is "
        "the debate as a tree: it starts at the root topic and branches into subtopics the "
        "debate raised; a path ends when the arguments stopped progressing or one author clearly "
        "won. Each node gives its topic, a description, and each author's final argument on it."
        f"\n\n{tree}\n\n"
        "From this debate, write a synthesis of about one paragraph on the similarities and "
        "differences of the two papers: first their similarities (which ideas overlap), then "
        "their differences (what makes each paper novel), with more weight on the differences. "
        "Keep strictly to what the debate established, be specific, and write as an expert on "
        f"the topic would. {NAMES} Author 0's paper is \"{titles[0]}\", Author 1's is "
        f'"{titles[1]}".\n\n{_reply("summary")}',
    )


# -- the baselines ---------------------------------------------------------------------------------


def _compare(basis: str) -> str:
    """The baselines' comparison, based strictly on `basis` (what the call shows of the papers)."""
    return (
        "Write a synthesis of about one paragraph on the similarities and differences of the two "
        "papers: first their similarities (which ideas overlap), then their differences (what "
        "makes each paper novel), with more weight on the differences, based strictly on the "
        f"information in the {basis} above. Be specific and write as an expert on the topic "
        f"would. {NAMES}"
    )


def _opening(topic: Question) -> Content:
    return compose("Two research papers are compared on this topic:\n", topic, "\n\n")


def single_stage(pair: PaperPair) -> Content:
    """The single-stage baseline: both papers' title, abstract and introduction in one call."""
    papers = "\n\n".join(
        f"<paper_{i}>\n{_paper('Title', p, introduction=True)}\n</paper_{i}>"
        for i, p in enumerate(pair.papers)
    )
    compare = _compare("titles, abstracts and introductions")
    return compose(_opening(pair.topic), f"{papers}\n\n{compare}\n\n{_reply('summary')}")


def paper_summary(pair: PaperPair, author: int) -> Content:
    """The two-stage baseline's first stage: one paper's motivation and novelties."""
    paper = _paper("Title", pair.papers[author], introduction=True)
    return compose(
        _opening(pair.topic),
        f"<paper>\n{paper}\n</paper>\n\nSummarise the motivation and the novel contributions of "
        "this paper from its title, abstract and introduction, specifically and in detail."
        f"\n\n{_reply('summary')}",
    )


def compare_summaries(pair: PaperPair, summaries: Sequence[str | None]) -> Content:
    """The two-stage baseline's second stage: the comparison of the two summaries."""
    shown = "\n\n".join(
        f'<paper_{i}_summary>\nTitle: "{p.title.strip()}"\n'
        f"{(s or '(no summary could be read)').strip()}\n</paper_{i}_summary>"
        for i, (p, s) in enumerate(zip(pair.papers, summaries))
    )
    compare = _compare("titles and summaries")
    return compose(_opening(pair.topic), f"{shown}\n\n{compare}\n\n{_reply('summary')}")
