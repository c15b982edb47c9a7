"""Model API registrations; the implementations are imported only when a model is created."""

from inspect_ai.model import ModelAPI, modelapi


@modelapi(name="madsim")
def madsim() -> type[ModelAPI]:
    from .sim import SimulatedModel

    return SimulatedModel
