"""The rules of the decision debates' challenge stage (Kaesberg et al. 2025, §4.2 and App. E.3).

After the decision every agent is shown the task and a final answer (the decision's, or one the
`challenger` role wrote in its place) and replies with the exact word AGREE or DISAGREE; an agent
that disagrees gives a new answer. The paper has five variants of what the agents are shown;
MALLM's code (d9e66bc, `Coordinator.challenge_solution`) runs all five, one after another, in
every run that challenges (`all`). The stage itself runs in `debate.py`; here are its settings,
the verdict reader and the rule that may adopt the new answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# solution / history / information: the decision's answer (history: with the discussion;
# information: with facts retrieved for the task); wrong / irrelevant: a replaced answer. In
# MALLM's order: it runs them in this order and records each
VARIANTS = ("solution", "wrong", "irrelevant", "history", "information")
SETTINGS = ("none", *VARIANTS, "all")  # none: no stage; all: every variant (MALLM's code)
REPLACED = ("wrong", "irrelevant")
ADOPT = ("never", "majority")
IRRELEVANT = ("call", "fixed")
# with no answer to judge (the debate abstained, no wrong answer could be read): ask (MALLM's
# code: the agents judge a stand-in, NO_ANSWER or the challenger's reply as written) or skip
NO_ANSWER_RULES = ("ask", "skip")
NO_ANSWER = "The discussion gave no answer."
# MALLM's coordinator.py hard-codes the irrelevant answer to this (its paper says Qwen2-7B wrote it)
FIXED_IRRELEVANT = "I) I don't know."
SHOWN_CHARS = 2_000  # the most of a challenger's irrelevant reply the agents are shown


def variants(setting: str) -> tuple[str, ...]:
    """The variants a `challenge` setting runs, in MALLM's order."""
    return VARIANTS if setting == "all" else () if setting == "none" else (setting,)


_WORDS = {"AGREE": True, "DISAGREE": False}
_DECORATION = "*_`'\"[](){}<>.,:;!?#-"  # markup and punctuation around a verdict word
_NEGATIONS = ("NOT", "NEVER", "CANNOT")  # and any word ending in n't ("don't")


def read_verdict(text: str) -> bool | None:
    """AGREE (True), DISAGREE (False), or None (an abstention) from a challenge reply.

    The reply holds one verdict word, in any case and with markup or punctuation around it
    ("**Disagree.**", "I agree."), maybe more than once: that word decides. Both words ("AGREE or
    DISAGREE? Hard to say."), neither, or a verdict word after a negation ("I do not agree", "I
    don't disagree") is an abstention. Linear: one split of the reply, each word stripped of
    decoration with `str.strip`.
    """
    found: set[bool] = set()
    previous = ""  # pragma: no mutate (equivalent: no negation)
    for raw in text.split():
        word = raw.strip(_DECORATION).upper()
        verdict = _WORDS.get(word)
        if verdict is not None:
            if previous in _NEGATIONS or previous.endswith(("N'T", "N\u2019T")):
                return None
            found.add(verdict)
        previous = word
    return found.pop() if len(found) == 1 else None


def adopted(answers: Sequence[str | None], agents: int, key: Callable[[str], str]) -> str | None:
    """The new answer that more than half of all `agents` gave (compared by `key`; its first
    spelling), or None. Fewer new answers than that, or a split, keep the decision's answer."""
    counts: dict[str, int] = {}
    spelling: dict[str, str] = {}
    for a in answers:
        if a is not None:
            k = key(a)
            spelling.setdefault(k, a)
            counts[k] = counts.get(k, 0) + 1
    won = next((k for k, n in counts.items() if 2 * n > agents), None)
    return spelling[won] if won is not None else None
