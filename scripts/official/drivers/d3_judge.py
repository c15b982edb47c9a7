"""Runs D3's MORE or SAMRE (abirharrasse/D3-Judge, `utils/arch_builder.py` `more_arch` /
`samre_arch`, the README's entry points, unchanged) on one pair against the scripted server;
prints the decision as JSON.

Runs in the authors' venv: `python d3_judge.py CHECKOUT QUESTION_JSON`, with OPENAI_BASE_URL set.
QUESTION_JSON holds `question`, `answer_a`, `answer_b` and `protocol` (`more` or `samre`), and
optionally `rounds` (MORE: 1, the README's and experiments.py's value; SAMRE: 5, the README's).
Shims (each listed in docs/fidelity.md):
1. HOME is a fresh directory whose `.metagpt/config2.yaml` names the scripted server (OpenAI API,
   `stream: false`, `calc_usage: false`, so that no token counter downloads encodings);
   `util_adv.initiate_model`, which rewrites that file with api.openai.com on every call, is
   replaced by a no-op before `arch_builder` imports it;
2. the vendored MetaGPT 0.8.1 package (`MetaGPT_LLM_advocates/metagpt`) is put on sys.path, not
   pip-installed; the provider modules it imports at start-up but this run never uses (Gemini,
   ZhiPuAI, Spark, QianFan, DashScope, Anthropic, Bedrock, Ark, Together) are stub modules holding
   an empty class of the imported name, so their SDKs need not be installed, and
   `semantic_kernel.skill_definition.sk_function` (a decorator of MetaGPT's unused search tool,
   gone from today's semantic-kernel) is a no-op; the other imported packages are installed;
3. the decision is the jury's winner exactly as their code computes it (`Defense A` iff its votes
   exceed B's, else B), read from the returned votes; their score tuples, votes and rounds are
   printed too.
"""

import json
import os
import sys
import tempfile
import types
from pathlib import Path

UNUSED_PROVIDERS = {
    "google_gemini_api": "GeminiLLM",
    "zhipuai_api": "ZhiPuAILLM",
    "spark_api": "SparkLLM",
    "qianfan_api": "QianFanLLM",
    "dashscope_api": "DashScopeLLM",
    "anthropic_api": "AnthropicLLM",
    "bedrock_api": "BedrockLLM",
    "ark_api": "ArkLLM",
    "together": "TogetherLLM",
}


def configure(base_url):
    """Shim 1: the config MetaGPT reads once at import, in a scratch HOME."""
    home = tempfile.mkdtemp(prefix="d3-home-")
    os.environ["HOME"] = home
    os.chdir(home)  # MetaGPT takes the working directory as its project root and writes there
    folder = Path(home) / ".metagpt"
    folder.mkdir()
    (folder / "config2.yaml").write_text(
        "llm:\n"
        "  api_type: openai\n"
        "  model: gpt-4o\n"
        f"  base_url: {base_url}\n"
        "  api_key: x\n"
        "  stream: false\n"
        "  calc_usage: false\n"
    )


def stub_providers():
    """Shim 2: the unused providers as empty modules; semantic_kernel's old `sk_function`
    decorator (imported by MetaGPT's search-engine tool, never called here) as a no-op."""
    for module, name in UNUSED_PROVIDERS.items():
        stub = types.ModuleType(f"metagpt.provider.{module}")
        setattr(stub, name, type(name, (), {}))
        sys.modules[stub.__name__] = stub
    kernel = types.ModuleType("semantic_kernel")
    skills = types.ModuleType("semantic_kernel.skill_definition")
    skills.sk_function = lambda *args, **kwargs: lambda f: f
    kernel.skill_definition = skills
    sys.modules.update({"semantic_kernel": kernel, "semantic_kernel.skill_definition": skills})


def main():
    checkout, question_path = Path(sys.argv[1]), sys.argv[2]
    question = json.loads(Path(question_path).read_text())
    configure(os.environ["OPENAI_BASE_URL"])
    sys.path.insert(0, str(checkout / "MetaGPT_LLM_advocates"))
    sys.path.insert(0, str(checkout / "utils"))
    stub_providers()
    import util_adv

    util_adv.initiate_model = lambda *args, **kwargs: None  # shim 1
    import arch_builder

    q, a1, a2 = question["question"], question["answer_a"], question["answer_b"]
    if question["protocol"] == "more":
        scores, votes, stats = arch_builder.more_arch(
            "gpt-4o", 0.0, q, a1, a2, 3, 0.1, question.get("rounds", 1), 5
        )
    else:
        scores, votes, stats = arch_builder.samre_arch(
            "gpt-4o", 0.0, q, a1, a2, 0.1, question.get("rounds", 5), 5
        )
    if "error" in stats:  # their run_debate catches any failure and returns empty votes
        raise SystemExit(f"the authors' debate failed: {stats['error']}")
    decision = "A" if votes[0] > votes[1] else "B"  # shim 3: their jury_winner
    report = {
        "decision": decision,
        "scores": [str(s) for s in scores],
        "votes": list(votes),
        "rounds": stats.get("rounds_completed"),
        "stop": str(stats.get("stop_reason", "")),
    }
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    main()
