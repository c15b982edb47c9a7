"""`tool_math`: questions whose answer needs exact computation (large-integer products, modular
powers, digit sums, letter counts in a long string), generated from a seed, so that debaters
with a python tool (`-S debater=react -S tools=python --sandbox local`) can be told from
debaters without one. Offline: nothing is downloaded.

Each sample carries the Python that prints its answer (`metadata["program"]`); the simulated
model (`madsim`) runs it with the python tool when a call offers one. Real models see the
question only.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import Solver, prompt_template

from ..engine.checks import integer
from ..scorers.answers import final_answer
from ..solvers import du_debate
from ._bench import viewed_task
from ._options import only_its_options

MAX_QUESTIONS = 1000
PROMPT = "Answer with an exact integer.\n\nQuestion: {prompt}"

Question = tuple[str, str, int]  # (question, program that prints the answer, answer)


def product(rng: random.Random) -> Question:
    a, b = rng.randrange(10**11, 10**13), rng.randrange(10**11, 10**13)
    return f"What is {a} multiplied by {b}?", f"print({a} * {b})", a * b


def modular_power(rng: random.Random) -> Question:
    base, power, modulus = (
        rng.randrange(2, 10**4),
        rng.randrange(10**3, 10**5),
        rng.randrange(10**6, 10**7),
    )
    question = f"What is the remainder when {base} to the power {power} is divided by {modulus}?"
    return question, f"print(pow({base}, {power}, {modulus}))", pow(base, power, modulus)


def digit_sum(rng: random.Random) -> Question:
    power = rng.randrange(200, 2000)
    question = f"What is the sum of the decimal digits of 2 to the power {power}?"
    return question, f"print(sum(int(d) for d in str(2 ** {power})))", sum(map(int, str(2**power)))


def letter_count(rng: random.Random) -> Question:
    text = "".join(rng.choice(string.ascii_lowercase[:6]) for _ in range(rng.randrange(300, 600)))
    letter = rng.choice(string.ascii_lowercase[:6])
    question = f"How many times does the letter '{letter}' occur in this string?\n\n{text}"
    return question, f"print({text!r}.count({letter!r}))", text.count(letter)


KINDS: dict[str, Callable[[random.Random], Question]] = {
    "product": product,
    "modular_power": modular_power,
    "digit_sum": digit_sum,
    "letter_count": letter_count,
}


def questions(size: int, seed: int) -> list[Sample]:
    """`size` questions, the kinds in turn, each drawn from `seed` and its number alone."""
    samples = []
    for n in range(1, size + 1):
        kind = list(KINDS)[(n - 1) % len(KINDS)]
        text, program, answer = KINDS[kind](random.Random(f"{seed}/{n}"))
        samples.append(
            Sample(
                id=f"{kind}-{n}",
                input=text,
                target=str(answer),
                metadata={"answer_format": "number", "kind": kind, "program": program},
            )
        )
    return samples


def setup() -> Solver:
    return prompt_template(PROMPT)


@task
@only_its_options
def tool_math(size: int = 40, seed: int = 0) -> Task:
    """Exact computation questions, generated offline from a seed.

    Args:
        size: how many questions (1 to 1000), the four kinds in turn.
        seed: the seed the questions are drawn from.
    """
    count = integer("size", size, 1, MAX_QUESTIONS, kind="task")
    drawn = integer("seed", seed, 0, 2**31 - 1, kind="task")
    return viewed_task(
        [final_answer()],
        dataset=MemoryDataset(questions(count, drawn), name="tool_math"),
        setup=setup(),
        solver=du_debate(),
        metadata={"source": f"generated (seed {drawn})"},
        version=1,
    )
