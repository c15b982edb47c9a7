"""Hosts of the engine besides Inspect: each implements `engine.runtime.Runtime` for its framework."""
