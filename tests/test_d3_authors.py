"""D3 as its authors ran it (issue 43): the jurors are the authors' personas (their curated five
by default, Table 4's seeded draws from their published pool of 50), the advocates are told to
argue to win, and the jurors get no debiasing lines unless asked; each older behaviour is an
option value, and the record says which ran. Scripted runs, asserting prompts and records."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from scripted import ScriptedRuntime, family, last_user, transcript_text
from test_d3_engine import PAIR, court, fixed, new_session, unanimous

from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import text_of
from mad_tasks.engine.methods.d3 import court as d3
from mad_tasks.engine.methods.d3 import more as more_method
from mad_tasks.engine.methods.d3 import samre as samre_method
from mad_tasks.engine.methods.d3.options import (
    GENERIC_JUROR,
    PERSONAS,
    Jury,
    MoreOptions,
    SamreOptions,
)
from mad_tasks.engine.methods.d3.personas import CURATED, POOL, SOURCE, named
from mad_tasks.engine.protocols.d3 import StopRule
from mad_tasks.engine.records import DebateResult
from mad_tasks.hosts.setup import SETUP

PERSUADE, TRUTHFUL = d3.STANCE["persuade"], d3.STANCE["truthful"]


def prompts(rt: ScriptedRuntime, role: str, purpose: str | None = None) -> list[str]:
    return [
        transcript_text(c)
        for c in rt.calls
        if family(c.role) == role and (purpose is None or c.purpose == purpose)
    ]


def run(spec_options: MoreOptions | SamreOptions) -> tuple[DebateResult, ScriptedRuntime]:
    """A judge made from its options as every host makes it (the method's spec)."""
    spec = more_method.SPEC if isinstance(spec_options, MoreOptions) else samre_method.SPEC
    rt = ScriptedRuntime(court(fixed(90, 70), unanimous("A")))
    judge = spec.prepare(spec_options, SETUP)
    return asyncio.run(judge(new_session(rt), PAIR)), rt


# -- the persona pool ------------------------------------------------------------------------------


def test_the_pool_is_the_authors_fifty_roles_in_their_domains() -> None:
    """utils/personas.py of D3-Judge@129491b: 50 roles over the paper's fields (App. G.1), in the
    authors' order (a seeded draw then picks the roles theirs picks); each description is ours."""
    assert len(POOL) == 50 and len({p.name for p in POOL}) == 50
    assert len({p.description for p in POOL}) == 50
    assert Counter(p.domain for p in POOL) == {
        "technology": 7,
        "business": 6,
        "social_work": 6,
        "medicine": 6,
        "ethics": 5,
        "law": 5,
        "education": 5,
        "risk": 5,
        "journalism": 4,
        "compliance": 1,
    }
    assert (POOL[0].name, POOL[-1].name) == ("Ethics Professor", "Crisis Communications Expert")
    for p in POOL:  # what a juror is told it is: a role, lower case, one phrase
        assert p.description[0].islower() and p.description.startswith(("a ", "an ", "the "))
        assert not p.description.endswith(".")
    assert "129491b" in SOURCE and "MIT" in SOURCE and "utils/personas.py" in SOURCE


def test_the_default_jury_is_the_authors_curated_five_cycled() -> None:
    """The authors' code seats five fixed identities, juror i taking i % 5, the five the paper
    prints (App. D.3); the pool is drawn from only for Table 4's subsets."""
    assert CURATED == (
        "Ethics Professor",
        "Environmental Activist",
        "Business Owner",
        "Social Worker",
        "Tech Entrepreneur",
    )
    assert tuple(named(n).description for n in CURATED) == PERSONAS
    jury = Jury(size=7)
    assert [jury.persona(i) for i in range(7)] == [*PERSONAS, PERSONAS[0], PERSONAS[1]]
    result, rt = run(MoreOptions(advocates=1, jurors=7))
    for i in range(7):
        [call] = rt.calls_of(f"juror_{i + 1}")
        assert f"You are a juror: {PERSONAS[i % 5]}." in last_user(call)
    assert result.options["persona_pool"] == "curated"
    assert result.options["persona_source"] == SOURCE
    assert result.options["persona_subset"] is None


@pytest.mark.parametrize(
    ("options", "pool", "source"),
    [
        ({}, "curated", SOURCE),
        ({"persona_subset": 4}, "authors_pool", SOURCE),
        ({"personas": False}, "generic", None),
    ],
)
def test_the_record_says_which_pool_the_jurors_came_from(
    options: dict[str, object], pool: str, source: str | None
) -> None:
    for judge in (MoreOptions(advocates=1, **options), SamreOptions(max_rounds=1, **options)):
        result, rt = run(judge)
        assert (result.options["persona_pool"], result.options["persona_source"]) == (pool, source)
        described = {p.description for p in POOL}
        for prompt in prompts(rt, "juror", "vote"):
            persona = prompt.split("You are a juror: ")[1].split(". Above is")[0]
            assert (persona == GENERIC_JUROR) is (pool == "generic")
            assert (persona in described) is (pool != "generic")


# -- what the advocates are told -------------------------------------------------------------------


@pytest.mark.parametrize("stance", ["persuade", "truthful"])
def test_advocates_argue_to_win_unless_told_to_be_truthful(stance: str) -> None:
    """The paper's advocates aim "not to be impartial but to be persuasive" (section 2.1), and
    the authors' code tells them to hold nothing back: the default. `truthful` is this project's
    earlier wording. Only the advocates' own defences are affected: not the strategist's merge,
    the summaries, the judge or the jurors."""
    said, other = (PERSUADE, TRUTHFUL) if stance == "persuade" else (TRUTHFUL, PERSUADE)
    for judge in (
        MoreOptions(advocates=2, advocate_stance=stance),
        SamreOptions(max_rounds=2, stopping="code", summarize=True, advocate_stance=stance),
    ):
        result, rt = run(judge)
        assert result.options["advocate_stance"] == stance
        defences = prompts(rt, "advocate", "argument")
        assert len(defences) == 4  # MORE: 2 a side; SAMRE: 1 a side in each of 2 rounds
        assert all(said in p and other not in p for p in defences)
        rest = [transcript_text(c) for c in rt.calls if c.purpose != "argument"]
        assert rest and not any(said in p or other in p for p in rest)
    assert MoreOptions().advocate_stance == SamreOptions().advocate_stance == "persuade"


def test_the_stance_is_the_only_difference_in_an_advocates_prompt() -> None:
    persuaded = d3.advocate_prompt(PAIR, "A", 80, team=(1, 3))
    truthful = d3.advocate_prompt(PAIR, "A", 80, team=(1, 3), stance="truthful")
    assert text_of(persuaded).replace(PERSUADE, TRUTHFUL) == text_of(truthful)
    assert "Argue to win" in PERSUADE and "not an impartial review" in PERSUADE
    assert "do not invent facts" in TRUTHFUL


# -- what the jurors are told ----------------------------------------------------------------------


@pytest.mark.parametrize("debiasing", [False, True])
def test_jurors_get_no_debiasing_lines_unless_asked(debiasing: bool) -> None:
    """The paper prints no juror prompt; the authors' code tells its jurors to weigh the judge's
    evaluation without being ruled by it, and nothing more: the default. The lines telling them
    to judge the answers rather than the advocates' eloquence, and to take the judge's scores as
    one opinion, are ours (`juror_debiasing`)."""
    for judge in (
        MoreOptions(advocates=1, juror_debiasing=debiasing),
        SamreOptions(max_rounds=1, jurors=3, juror_debiasing=debiasing),
    ):
        result, rt = run(judge)
        assert result.options["juror_debiasing"] is debiasing
        jurors = prompts(rt, "juror", "vote")
        assert jurors
        assert all((d3.DEBIASING in p) is debiasing for p in jurors)
        assert all((d3.WEIGH_JUDGE in p) is not debiasing for p in jurors)
        others = [transcript_text(c) for c in rt.calls if family(c.role) != "juror"]
        assert not any(d3.DEBIASING in p or d3.WEIGH_JUDGE in p for p in others)
    assert "eloquence" in d3.DEBIASING and "eloquence" not in d3.WEIGH_JUDGE


def test_the_earlier_juror_prompt_is_the_debiasing_value() -> None:
    transcript = "[the record]"
    plain = text_of(d3.juror_prompt("a juror", transcript))
    debiased = text_of(d3.juror_prompt("a juror", transcript, debiasing=True))
    assert plain.replace(d3.WEIGH_JUDGE, d3.DEBIASING) == debiased
    noted = text_of(d3.juror_prompt("a juror", transcript, bias_note=True, debiasing=True))
    assert d3.DEBIASING + d3.BIAS_NOTE in noted


# -- the options -----------------------------------------------------------------------------------


def test_the_new_options_are_checked_before_any_call_and_recorded() -> None:
    with pytest.raises(OptionError, match=r"'advocate_stance'.*persuade, truthful"):
        MoreOptions(advocate_stance="honest")
    with pytest.raises(OptionError, match="'advocate_stance'"):
        SamreOptions(advocate_stance=True)
    with pytest.raises(OptionError, match="'juror_debiasing'"):
        SamreOptions(juror_debiasing="maybe")
    for spec in (more_method.SPEC, samre_method.SPEC):
        defaults = spec.defaults()
        assert (defaults["advocate_stance"], defaults["juror_debiasing"]) == ("persuade", False)
        made = spec.factory("solver")(advocate_stance="truthful", juror_debiasing=True)
        assert (made.advocate_stance, made.jury.debiasing) == ("truthful", True)
    # SAMRE's own rule is untouched by the new options: the code's, by default
    code = StopRule(stopping="code", window=3, min_rounds=3)
    assert SamreOptions(advocate_stance="truthful").rule == SamreOptions().rule == code
