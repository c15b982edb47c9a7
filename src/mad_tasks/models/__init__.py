"""The models this package brings: the simulated `madsim` and the embedded local model."""

# the embedded local model as llama.cpp's server and Inspect name it (models/local.py serves it)
LOCAL_ALIAS = "gemma-3-270m"
LOCAL_MODEL = f"llama-cpp-python/{LOCAL_ALIAS}"
