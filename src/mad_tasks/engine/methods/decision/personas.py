"""Expert personas made per sample by the agents' own model (the paper's persona generator).

`sequential` (the paper's): one call per persona, in sequence, by each agent's model; each call
sees the task and the personas already made, so the experts differ. `concurrent`: the same calls
at once, each seeing the task alone (the experts may then repeat a role). `one_call`: the first
agent's model names them all in one call, as a JSON list. Either of the last two shortens the
chain of dependent calls by the number of agents less one. A reply's persona is a JSON object
{"role", "description"}, found even inside other text; an unreadable reply is followed up within
the session's retry bound, after which the agent gets a plain numbered participant (marked
`generated=False`), never an invented expert. The personas are made before the debate's first
turn, so their calls are recorded as round 0 (setup).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...content import Content, Msg, Question, compose
from ...requests import PersonaRequest, PersonasRequest
from ...session import Session

PERSONA_REQUEST = 'Reply with only a JSON object: {"role": "...", "description": "..."}.'
PERSONA_CALLS = ("sequential", "concurrent", "one_call")
_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)
_FIELD = r'"{name}"\s*:\s*"([^"]*)"'


@dataclass(frozen=True)
class Persona:
    role: str
    description: str
    generated: bool = True

    def line(self) -> str:
        """How the persona is introduced to its agent."""
        return (
            f"Your role: {self.role} ({self.description})"
            if self.description
            else (f"Your role: {self.role}")
        )


def parse_persona(text: str) -> Persona | None:
    return next(iter(personas_in(text, 1)), None)


def personas_in(text: str, most: int) -> list[Persona]:
    """The first `most` personas the reply's JSON objects give, in order, each role once."""
    found: list[Persona] = []
    for block in _OBJECT.findall(text):
        if len(found) >= most:
            break
        if "role" not in block:  # cheap: a reply may hold thousands of other objects
            continue
        try:
            data = json.loads(block)
        except (ValueError, RecursionError):
            # almost-JSON (a trailing comma, a stray quote), or JSON no reader should take (an
            # integer over 4,300 digits, arrays nested past the recursion limit): read the two
            # fields directly
            data = {
                name: m.group(1)
                for name in ("role", "description")
                if (m := re.search(_FIELD.format(name=name), block))
            }
        role, description = data.get("role"), data.get("description", "")
        if isinstance(role, str) and role.strip() and isinstance(description, str):
            persona = Persona(" ".join(role.split()), " ".join(description.split()))
            if all(p.role != persona.role for p in found):
                found.append(persona)
    return found


def persona_prompt(question: Question, made: Sequence[Persona]) -> Content:
    chosen = "\n".join(f"- {p.role}: {p.description}" for p in made) or "(none yet)"
    return compose(
        "Task:\n",
        question,
        "\n\nSeveral experts will discuss the task above. Suggest one more participant whose "
        "expertise helps to solve it, different from the participants already chosen.\n\n"
        f"Participants already chosen:\n{chosen}\n\n{PERSONA_REQUEST}",
    )


def personas_prompt(question: Question, n: int) -> Content:
    return compose(
        "Task:\n",
        question,
        f"\n\nSeveral experts will discuss the task above. Suggest {n} participants, each with "
        f"different expertise that helps to solve it.\n\n{personas_request(n)}",
    )


def personas_request(n: int) -> str:
    return (
        f'Reply with only a JSON list of {n} objects: [{{"role": "...", "description": "..."}}, '
        "...]."
    )


def plain(i: int) -> Persona:
    """The i-th agent's (from 0) participant when no persona was readable."""
    return Persona(f"Participant {i + 1}", "", generated=False)


async def expert_personas(
    session: Session, agents: Sequence[str], calls: str = "sequential"
) -> list[Persona]:
    """One persona per agent, made as `calls` says (PERSONA_CALLS)."""
    question, reminder = (
        session.problem.question,
        f"That reply held no usable persona. {PERSONA_REQUEST}",
    )

    async def one(agent: str, made: Sequence[Persona]) -> Persona | None:
        asked = await session.ask(
            agent,
            agent,
            [Msg("user", persona_prompt(question, made))],
            "persona",
            0,
            parse_persona,
            reminder,
            asks=PersonaRequest(tuple(p.role for p in made)),
        )
        return asked.value

    if calls == "concurrent":
        got = await session.runtime.gather(*(one(agent, ()) for agent in agents))
        return [p or plain(i) for i, p in enumerate(got)]
    if calls == "one_call":
        n = len(agents)
        asked = await session.ask(
            agents[0],
            agents[0],
            [Msg("user", personas_prompt(question, n))],
            "personas",
            0,
            lambda text: found if len(found := personas_in(text, n)) == n else None,
            f"That reply did not hold {n} usable personas. {personas_request(n)}",
            asks=PersonasRequest(n),
        )
        found = asked.value or personas_in(asked.replies[-1], n)  # the readable ones, then plain
        return [found[i] if i < len(found) else plain(i) for i in range(n)]
    made: list[Persona] = []
    for i, agent in enumerate(agents):
        made.append(await one(agent, made) or plain(i))
    return made
