"""Tree-of-Debate (`tree_of_debate`) against pkargupta/tree-of-debate: their `run.py --experiment tod`
on one synthetic paper pair (tests/fixtures/paper_compare/pairs.tsv, the first row), every call a
raw completion on the scripted server.

Keying. A call's kind is its stage, read from the JSON key the prompt asks for (both sides ask
for the same keys), followed by the code of its node: the root is "n", the k-th child of node C
is C plus the k-th letter ("na", "nab", ...). A scripted subtopic is titled "Theme <code> of the
comparison", so a prompt names its node by that title; a relevance call (which shows only the
opponent's claim) takes its node from the claim's marker. The agent is Author 0 (1), Author 1 (2)
or the moderator (3); the round is 1, except the relevance calls, numbered per author and node in
order of arrival (their replies are never quoted, so the order does not matter).

Scenarios. The moderator's reply of every scenario is given by one plan (JSON, as the moderator's
answer): how many subtopics each node's self-deliberation proposes and which debated nodes the
moderator wants expanded ("all": every one). A node neither expanded nor won answers No to all
three judgments, which the code's rule reads as "do not expand" (the paper's would expand).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from replies import Call, Key, Messages, Scenario, Script, markers_in
from spec import Check, Method

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "fixtures" / "paper_compare" / "pairs.tsv"

MODERATOR = 3
# the stage of a call, from the JSON key its prompt asks for (checked in this order)
SIGNS = (
    ("expand", '"progression_of_arguments"'),
    ("subtopics", '"subtopic_list"'),
    ("subtopics", '"topic_title"'),  # the No-Tree code asks for one subtopic object
    ("claims", '"argument_list"'),
    ("relevance", '"irrelevant_to_claim"'),
    ("summary", '"summary"'),
    ("respond", '"author_response"'),
    ("revise", '"revised_argument_title"'),
    ("present", '"argument_title"'),
)
STAGES = tuple(s for s, _ in SIGNS)
NODE = re.compile(r"Theme (n[a-j]*) of the comparison")
LETTERS = "abcdefghij"


def _first_pair() -> tuple[list[str], dict[str, str]]:
    rows = list(csv.reader(io.StringIO(PAIRS.read_text(encoding="utf-8")), delimiter="\t"))
    return rows[0], dict(zip(rows[0], rows[1]))


HEADER, ROW = _first_pair()


def paper(n: int) -> dict[str, str]:
    fields = {k: ROW[f"Paper #{n} {c}"] for k, c in (("url", "arXiv Link"), ("title", "Title"),
              ("abstract", "Abstract"), ("introduction", "Introduction"))}  # fmt: skip
    # our offline paper's text (papers.py Paper.text); the authors' code gets the same text
    fields["text"] = "\n\n".join(fields[k] for k in ("title", "abstract", "introduction"))
    return fields


TITLES = (ROW["Paper #1 Title"].strip(), ROW["Paper #2 Title"].strip())


def as_tsv(question: Any) -> str:
    """Our task's data file: the fixture's header and the one row."""
    out = io.StringIO()
    rows = csv.writer(out, delimiter="\t", lineterminator="\n")
    rows.writerow(HEADER)
    rows.writerow([question[h] for h in HEADER])
    return out.getvalue()


def split_kind(kind: str) -> tuple[str, str]:
    """(stage, node code) of a key's kind."""
    stage = next(s for s in sorted(STAGES, key=len, reverse=True) if kind.startswith(s))
    return stage, kind[len(stage) :]


def stage_of(text: str) -> str:
    return next((stage for stage, sign in SIGNS if sign in text), "unknown")


def author_of(text: str) -> int | None:
    """1 or 2 from the persona line of ours ("You are Author 0") or theirs (its paper's title)."""
    ours = re.search(r"You are Author ([01])\b", text)
    if ours:
        return int(ours.group(1)) + 1
    theirs = re.search(r"You are the author of the paper, '(.+?)'\. ", text, re.DOTALL)
    if theirs:
        title = " ".join(theirs.group(1).split())
        return next((i + 1 for i, t in enumerate(TITLES) if " ".join(t.split()) == title), None)
    return None


def tod_keyer() -> Any:
    def key(messages: Messages, script: Script) -> Key:
        text = "\n".join(m["content"] for m in messages)
        stage = stage_of(text)
        if stage == "relevance":  # the opponent's claim names its node and its author
            claims = [k for k in markers_in(text) if split_kind(k.kind)[0] == "claims"]
            node = split_kind(claims[0].kind)[1] if claims else "n?"
            agent = 3 - claims[0].agent if claims else 0
            kind = f"relevance{node}"
            return Key(kind, agent, script.arrive(f"{kind}-{agent}"))
        if stage == "summary":
            return Key("summaryn", MODERATOR, 1)
        codes = sorted(set(NODE.findall(text)), key=len)
        node = codes[-1] if codes else "n"
        agent = MODERATOR if stage in ("subtopics", "expand") else author_of(text) or 0
        return Key(f"{stage}{node}", agent, 1)

    return key


def plan_of(answer: str | None) -> dict[str, Any]:
    return json.loads(answer) if answer else {}


CLAIMS = 2  # each persona's claims at every self-deliberation


def tod_say(key: Key, answer: str | None) -> str:
    """A valid JSON reply for the call's stage, its marker in a text field."""
    stage, node = split_kind(key.kind)
    m = key.marker()
    reply: dict[str, Any]
    if stage == "claims":
        reply = {"argument_list": [
            {"argument_title": f"Claim {i} of {m}",
             "description": f"The paper's excerpts back this point ({m}, claim {i}).",
             "evidence": [1, 2]}
            for i in range(1, CLAIMS + 1)
        ]}  # fmt: skip
    elif stage == "relevance":
        reply = {"supports_claim": "Yes", "refutes_claim": "No", "clarifies_claim": "No",
                 "irrelevant_to_claim": "No", "explanation": m}  # fmt: skip
    elif stage == "subtopics":
        count = int(plan_of(answer).get("subtopics", {}).get(node, 1))
        listed = [
            {"topic_title": f"Theme {node}{LETTERS[k]} of the comparison",
             "topic_description": f"Subtopic {k + 1} proposed in {m}: where the papers differ.",
             "author_0_relevant_contributions": [1 + k % CLAIMS],
             "author_1_relevant_contributions": [] if k == 1 else [1]}
            for k in range(count)
        ]  # fmt: skip
        # the list, and its first subtopic at the top level too: the No-Tree code reads the
        # object itself as its one subtopic (the list is ignored there, as the extra keys are here)
        reply = {"subtopic_list": listed, **listed[0]}
    elif stage == "present":
        reply = {"argument_title": f"Position {m}",
                 "description": f"My paper contributes more to this theme, as {m} shows."}  # fmt: skip
    elif stage == "respond":
        reply = {"author_response": f"I answer the opposition's point with {m}: my paper covers "
                 "the case raised, and I ask how theirs handles it."}  # fmt: skip
    elif stage == "revise":
        reply = {"revised_argument_title": f"Revised position {m}",
                 "revised_argument_description": f"After the exchange my paper still leads ({m})."}  # fmt: skip
    elif stage == "expand":
        plan = plan_of(answer)
        grow = plan.get("expand") == "all" or node in plan.get("expand", [])
        won = node in plan.get("winner", [])
        yes = "Yes" if grow or won else "No"
        reply = {"explanation": f"Judged in {m}.", "progression_of_arguments": yes,
                 "meaningful_questions": yes, "clear_winner": "Yes" if won else "No"}  # fmt: skip
    else:  # summary
        reply = {"summary": f"Synthesis {m}: shared aims, different means."}
    return json.dumps(reply)


def kind_of(call: Call) -> str:
    return split_kind(call.key.kind)[0]


def plan(subtopics: dict[str, int], expand: Sequence[str] = (), winner: Sequence[str] = ()) -> str:
    """The moderator's plan: subtopics per node, the nodes it wants expanded ("all": every one),
    the nodes it calls won."""
    return json.dumps({"subtopics": subtopics, "expand": expand if isinstance(expand, str)
                       else list(expand), "winner": list(winner)})  # fmt: skip


def scenario(name: str, about: str, moderator: str) -> Scenario:
    return Scenario(name, {(MODERATOR, 1): moderator}, about)


SCENARIOS = (
    scenario("one_subtopic", "one subtopic, not expanded (no progression, no questions)",
             plan({"n": 1})),
    scenario("five_subtopics", "five subtopics at the root, none expanded", plan({"n": 5})),
    scenario("expands", "two subtopics; the first is expanded into two more, the second has a "
             "clear winner (progression and questions, but won: the code's rule stops)",
             plan({"n": 2, "na": 2}, expand=["na"], winner=("nb",))),
    scenario("budget", "two subtopics per node and the moderator always wants expansion: three "
             "expansions granted breadth-first (na, nb, naa), then the budget stops it",
             plan({"n": 2, "na": 2, "nb": 2, "naa": 2}, expand="all")),
    scenario("chain", "one subtopic per node, always expanded: a chain of depth four, stopped "
             "by the budget of three", plan({"n": 1, "na": 1, "naa": 1, "naaa": 1}, expand="all")),
)  # fmt: skip

CHECKS = {
    "claims": (
        Check("asks for 1 to 3 diverse evidence-driven arguments", r"1 to 3 diverse.*evidence-driven",
              r"1 to 3 diverse, specific, evidence-driven"),
        Check("shows the retrieved excerpts, numbered", r"Supporting Evidence #1\.", r"Excerpt 1:"),
        Check("asks for the ids of the supporting excerpts", r'"evidence"', r'"evidence"'),
    ),
    "relevance": (
        Check("shows the opponent's claim and one excerpt", r"Claim:.*Evidence:",
              r"Claim:.*Excerpt:"),
        Check("asks supports / refutes / clarifies / irrelevant", r"supports_claim.*refutes_claim"
              r".*clarifies_claim.*irrelevant_to_claim", r"supports_claim.*refutes_claim.*"
              r"clarifies_claim.*irrelevant_to_claim"),
    ),
    "subtopics": (
        Check("shows each side's claims with counter-evidence", r"Counter Evidence #1",
              r"counter-evidence to it"),
        Check("asks for at most 5 subtopics", r"up to 5", r"at most 5"),
        Check("asks for the ids of each author's relevant claims, one list non-empty",
              r"At least one of these lists should be non-empty",
              r"At least one of the two lists must not be empty"),
        Check("aims at Author 0's novelty", r"how novel Author 0", r"how novel Author 0"),
    ),
    "present": (
        Check("shows the node's topic and description", r"Topic Description: Subtopic",
              r"Topic description: Subtopic"),
        Check("shows both sides' material (mapped claims, else excerpts or introduction)",
              r"(your \(Author \d\) claimed|excerpts from your paper|your paper's introduction)"
              r".*(opposition's \(Author \d\) claimed|excerpts from the opposition's paper"
              r"|opposition's introduction)",
              r"(Your claimed contributions|Excerpts from your paper|No claim of yours is mapped)"
              r".*(The opposition's claimed|Excerpts from the opposition's paper|introduction of "
              r"the opposition's paper)"),
        Check("allows a concession", r"conceding", r"conceding"),
        Check("asks for specific, evidence-backed argument", r"specific and detailed",
              r"specific and detailed"),
    ),
    "respond": (
        Check("tags the opposition's last turn to answer",
              r"<respond_to_this>\s*\t?-Opposition:.*</respond_to_this>",
              r"<respond_to_this>\s*- Opposition:.*</respond_to_this>"),
        Check("allows questions and a concession", r"clarifying questions.*concession",
              r"clarifying questions.*concede"),
    ),
    "revise": (
        Check("shows the debate so far, own turns as You", r"-You: I argue", r"- You: I argue"),
        Check("asks for a stronger argument that withstands the doubts", r"stronger argument",
              r"stronger argument"),
        Check("allows a concession", r"conceding", r"conceding"),
    ),
    "expand": (
        Check("shows the debate history", r"-Author 0: I argue", r"- Author 0: I argue"),
        Check("shows the initial and the revised arguments", r"Initial Argument.*Revised Argument",
              r"initial argument.*revised argument"),
        Check("asks the three judgments", r"progression_of_arguments.*meaningful_questions.*"
              r"clear_winner", r"progression_of_arguments.*meaningful_questions.*clear_winner"),
    ),
    "summary": (
        Check("shows the debate tree as JSON", r'"children"', r'"children"'),
        Check("similarities first, then differences, weighted to differences",
              r"similarities.*differences.*Focus more on the differences",
              r"similarities.*differences.*more weight on the differences"),
        Check("names both papers' titles", r"Author 1's paper title is", r"Author 1's is"),
    ),
}  # fmt: skip

TOD = Method(
    id="tree_of_debate",
    solver="tree_of_debate",
    repo="pkargupta/tree-of-debate",
    commit="e2a311f",
    licence="Apache-2.0: run, never copied",
    requirements=("numpy", "pydantic", "typing_extensions", "Unidecode", "tqdm", "nltk"),
    driver="tod_run.py",
    shims=(
        "vllm is a stand-in module: LLM(...).generate(prompts, sampling_params, use_tqdm) sends "
        "each raw prompt to POST /v1/completions (stage temperature, top_p, max_tokens, the "
        "schema as guided_json) and returns items whose .outputs[0].text is the reply",
        "outlines.serve.vllm.JSONLogitsProcessor is a no-op keeping the schema",
        "retrieval.e5_model.e5_embed (SPECTER2 on a GPU) is a deterministic hashing "
        "bag-of-words embedder; their cosine top-k (retrieval/retrieval.py) runs unchanged",
        "data_pairer.parse_papers_url (arXiv PDF download) returns the pair's local text (title, "
        "abstract and introduction, as our offline task reads it); arxiv2text is an empty module",
        "the dataset TSV is one row in their 12-column layout, written from the question",
    ),
    task="paper_compare",
    question=ROW,
    authors_question={
        "topic": ROW["Topic"],
        "paper_0": paper(1),
        "paper_1": paper(2),
        "method": ROW["Method (0) or Task (1)"],
        "cite": ROW["No Cite (0) or Cite (1)"],
        "experiment": "tod",
    },
    options={"retries": 0},
    scenarios=SCENARIOS,
    keyer=tod_keyer,
    say=tod_say,
    kind_of=kind_of,
    checks=CHECKS,
    question_file=as_tsv,
    eval_options={"score": False},  # the task's LLM judges are not the method
)

# their no_tree/ copy is an older persona.py: its claims prompt does not say "evidence-driven"
# and its turns do not ask for "specific and detailed" arguments; ours keep the full method's
# wording (the ablation changes the tree only: docs/fidelity.md)
NO_TREE_CHECKS = {
    **CHECKS,
    "claims": (
        Check("asks for 1 to 3 diverse, specific arguments", r"1 to 3 DIVERSE, specific",
              r"1 to 3 diverse, specific"),
        *CHECKS["claims"][1:],
    ),
    "present": tuple(c for c in CHECKS["present"] if "specific" not in c.item),
    "subtopics": (
        *(c for c in CHECKS["subtopics"] if "at most 5" not in c.item),
        Check("asks for one combined subtopic", r"title of all the subtopics",
              r"one combined subtopic"),
    ),
}  # fmt: skip

# the No-Tree ablation (their tree_of_debate_no_tree.py and no_tree/): one combined subtopic per
# self-deliberation, a budget of 5 expansions
TOD_NO_TREE = replace(
    TOD,
    id="tod_no_tree",
    solver="tod_no_tree",
    authors_question={**TOD.authors_question, "experiment": "no-tree"},
    scenarios=(
        scenario("stop", "the one combined subtopic is not expanded", plan({})),
        scenario("won", "the subtopic has a clear winner: not expanded", plan({}, winner=("na",))),
        scenario(
            "chain",
            "always expanded: a chain of six debated nodes, stopped by the budget of five",
            plan({}, expand="all"),
        ),
    ),
    checks=NO_TREE_CHECKS,
)

# their no_delib/ copy: claims from the persona's own introduction, no excerpts, no evidence ids, no
# counter-evidence; the moderator sees both introductions; and (an older persona.py) its turns do
# not ask for "specific and detailed" arguments, which ours keep
NO_SD_CHECKS = {
    "claims": (
        Check("shows the persona's own introduction", r"The introduction of your work is",
              r"The introduction of your paper:"),
        Check("asks for 1 to 3 diverse, specific arguments from title, abstract and introduction",
              r"title, abstract, and introduction, output a list of 1 to 3 DIVERSE, specific",
              r"title, abstract and introduction, write 1 to 3 diverse, specific"),
    ),
    "subtopics": (
        Check("shows both papers' introductions", r"Author 0 Paper Introduction:.*Author 1 Paper "
              r"Introduction:", r"introduction of Author 0's paper:.*introduction of Author 1's"),
        Check("shows each side's claims", r"Contribution #1:", r"claim 1:"),
        *CHECKS["subtopics"][1:],
    ),
    "present": (
        Check("shows the persona's own introduction", r"Here is the introduction to your paper",
              r"The introduction of your paper:"),
        *(c for c in CHECKS["present"] if "specific" not in c.item),
    ),
    **{k: CHECKS[k] for k in ("respond", "revise", "expand", "summary")},
}  # fmt: skip

# the No-SD ablation (their tree_of_debate_no_delib.py and no_delib/): claims from the title,
# abstract and introduction, no retrieval, no relevance filter
TOD_NO_SD = replace(
    TOD,
    id="tod_no_sd",
    solver="tod_no_sd",
    authors_question={**TOD.authors_question, "experiment": "no-delib"},
    scenarios=tuple(s for s in SCENARIOS if s.name in ("one_subtopic", "expands", "budget")),
    checks=NO_SD_CHECKS,
)

METHODS = (TOD, TOD_NO_TREE, TOD_NO_SD)
