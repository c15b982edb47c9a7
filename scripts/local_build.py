#!/usr/bin/env python3
"""Build and install the `local` extra's llama-cpp-python for a portable CPU level, never for this
machine's CPU: a build tuned with -march=native (ggml's default) uses whatever the build machine
has, AVX-512 or AMX, and dies with SIGILL or a protection fault on a CPU or VM without it.

Usage: local_build.py PYTHON   (the venv's interpreter; scripts/setup.sh calls it)

The wheel is built once per (version, level, flags) into .cache/llama-cpp-python/ with pip's own
cache off, so pip can never serve an earlier native build in its place, and a venv whose
installed build does not match (an older native one, another level) is reinstalled from it.
Standard library only: it runs before the project is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "llama-cpp-python"

# x86-64-v3 (Haswell, 2013; Zen, 2017): AVX2, FMA, F16C, BMI2. What ggml's runtime dispatch would
# pick on any such CPU, without the AVX-512/AMX variants that CPUID can offer where the OS or the
# VM does not grant them (the protection fault on `ldtilecfg`)
V3_NEEDS = ("avx", "avx2", "fma", "f16c", "bmi2")
X86_FEATURES = (
    "SSE42", "AVX", "AVX2", "FMA", "F16C", "BMI2", "AVX_VNNI", "AVX512", "AVX512_VBMI",
    "AVX512_VNNI", "AVX512_BF16", "AMX_TILE", "AMX_INT8", "AMX_BF16",
)  # fmt: skip
LEVELS = {
    "x86-64-v3": {"SSE42", "AVX", "AVX2", "FMA", "F16C", "BMI2"},
    "x86-64-v2": {"SSE42"},  # any x86-64 CPU since 2009 without AVX2
}


def required_version(pyproject: Path = ROOT / "pyproject.toml") -> str:
    match = re.search(r'"llama-cpp-python\[server\]==([0-9.]+)"', pyproject.read_text())
    if match is None:
        raise SystemExit(f"local_build.py: no pinned {PACKAGE} in {pyproject}")
    return match.group(1)


def level(machine: str, cpu_flags: set[str]) -> str:
    """The portable level to build for: x86-64-v3 where this CPU has it, else x86-64-v2; on
    another architecture, ggml's own generic baseline."""
    if machine.lower() not in ("x86_64", "amd64"):
        return "generic"
    return "x86-64-v3" if all(f in cpu_flags for f in V3_NEEDS) else "x86-64-v2"


def cmake_args(build_level: str) -> list[str]:
    """ggml's native tuning off, every x86 feature set explicitly (AVX-512 and AMX always off),
    and the multimodal library off (the embedded model reads text only)."""
    args = ["-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF"]
    if build_level in LEVELS:
        on = LEVELS[build_level]
        args += [f"-DGGML_{f}={'ON' if f in on else 'OFF'}" for f in X86_FEATURES]
    return args


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    try:
        text = cpuinfo.read_text()
    except OSError:
        return set()
    match = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


def build_key(version: str, build_level: str, args: list[str]) -> str:
    digest = hashlib.sha256(" ".join(args).encode()).hexdigest()[:10]
    return f"{version}-{build_level}-{digest}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("python", help="the interpreter of the venv to install into (.venv/bin/python)")
    python = ap.parse_args(argv).python
    version = required_version()
    build_level = level(platform.machine(), cpu_flags())
    args = cmake_args(build_level)
    key = build_key(version, build_level, args)
    stamp = Path(python).absolute().parent.parent / ".llama_build"  # the venv, not its base
    if stamp.exists() and stamp.read_text().strip() == key:
        return 0
    wheels = ROOT / ".cache" / PACKAGE / key
    built = sorted(wheels.glob("llama_cpp_python-*.whl"))
    if not built:
        print(
            f"scripts/local_build.py: compiling {PACKAGE} {version} for {build_level} "
            "(about 6 minutes on 2 cores, once)",
            flush=True,
        )
        env = {
            **os.environ,
            "CMAKE_ARGS": " ".join(args),
            "FORCE_CMAKE": "1",
            "CMAKE_BUILD_PARALLEL_LEVEL": os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"),
        }
        subprocess.run(
            [python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-cache-dir",
             "--no-binary", PACKAGE, f"{PACKAGE}=={version}", "--wheel-dir", str(wheels)],
            env=env, check=True,
        )  # fmt: skip
        built = sorted(wheels.glob("llama_cpp_python-*.whl"))
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
         "--no-cache-dir", str(built[-1])],
        check=True,
    )  # fmt: skip
    stamp.write_text(key + "\n")
    print(f"scripts/local_build.py: {PACKAGE} {version} installed, built for {build_level}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
