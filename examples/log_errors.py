"""An agentic task written the way inspect_evals writes them, to try debaters that act on it.

Each sample puts a log file in the sandbox; the answer (how many of its lines hold ERROR) needs
reading the file, which an agent can do only with a tool. Its own solver is a ReAct agent with
bash and python; replace it with a debate whose agents act:

    inspect eval examples/log_errors.py --solver mad_tasks/voting -S debater=react \
      -S tools=python --model madsim/x

The sandbox is `local` (this machine, a temporary directory per sample); use `docker` where it is
installed. Each sample also carries the Python that prints its answer (`metadata["program"]`),
which the simulated model `madsim` runs with the python tool; real models see the question only.
"""

from __future__ import annotations

import random

from inspect_ai import Task, task
from inspect_ai.agent import react
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.tool import bash, python

LEVELS = ("INFO", "DEBUG", "WARNING", "ERROR")
QUESTION = (
    "The file app.log in your working directory is a service's log. How many of its lines hold "
    "the level ERROR? Answer with an integer."
)
PROGRAM = "print(sum('ERROR' in line for line in open('app.log')))"


def log_file(rng: random.Random) -> str:
    lines = [
        f"2026-11-{rng.randint(1, 28):02d} {rng.choice(LEVELS)} request {rng.randrange(10**6)}"
        for _ in range(rng.randrange(200, 400))
    ]
    return "\n".join(lines) + "\n"


@task
def log_errors(size: int = 6, seed: int = 0) -> Task:
    samples = []
    for n in range(1, size + 1):
        text = log_file(random.Random(f"{seed}/{n}"))
        samples.append(
            Sample(
                id=n,
                input=QUESTION,
                target=str(text.count("ERROR")),
                files={"app.log": text},
                metadata={"answer_format": "number", "program": PROGRAM},
            )
        )
    return Task(
        dataset=samples,
        solver=react(tools=[bash(), python()]),
        scorer=match(numeric=True),
        sandbox="local",
    )
