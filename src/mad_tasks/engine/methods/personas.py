"""Expert personas made per sample by the agents' own model (the paper's persona generator).

One call per persona, in sequence: each call sees the task and the personas already made, so the
experts differ. A reply is a JSON object {"role", "description"}, found even inside other text; an
unreadable reply is followed up within the session's retry bound, after which the agent gets a
plain numbered participant (marked `generated=False`), never an invented expert. The personas are
made before the debate's first turn, so their calls are recorded as round 0 (setup).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..content import Content, Msg, Question, compose
from ..requests import PersonaRequest
from ..session import Session

PERSONA_REQUEST = 'Reply with only a JSON object: {"role": "...", "description": "..."}.'
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
    for block in _OBJECT.findall(text):
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
            return Persona(" ".join(role.split()), " ".join(description.split()))
    return None


def persona_prompt(question: Question, made: Sequence[Persona]) -> Content:
    chosen = "\n".join(f"- {p.role}: {p.description}" for p in made) or "(none yet)"
    return compose(
        "Task:\n",
        question,
        "\n\nSeveral experts will discuss the task above. Suggest one more participant whose "
        "expertise helps to solve it, different from the participants already chosen.\n\n"
        f"Participants already chosen:\n{chosen}\n\n{PERSONA_REQUEST}",
    )


async def expert_personas(session: Session, agents: Sequence[str]) -> list[Persona]:
    made: list[Persona] = []
    for i, agent in enumerate(agents):
        asked = await session.ask(
            agent,
            agent,
            [Msg("user", persona_prompt(session.problem.question, made))],
            "persona",
            0,
            parse_persona,
            f"That reply held no usable persona. {PERSONA_REQUEST}",
            asks=PersonaRequest(tuple(p.role for p in made)),
        )
        made.append(asked.value or Persona(f"Participant {i + 1}", "", generated=False))
    return made
