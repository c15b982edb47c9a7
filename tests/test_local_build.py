"""The embedded model's llama.cpp is built for a portable CPU level (scripts/local_build.py), the
same whatever AVX-512 or AMX the build machine has, and the installed library holds no instruction
beyond that level: a build that used them died on the first completion of a CPU or VM without
them (a protection fault on AMX's `ldtilecfg`)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("local_build", ROOT / "scripts" / "local_build.py")
assert spec is not None and spec.loader is not None
local_build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(local_build)

HASWELL = {"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"}
SAPPHIRE_RAPIDS = HASWELL | {"avx512f", "avx512bw", "avx512_vnni", "amx_tile", "amx_int8"}
SANDY_BRIDGE = {"sse4_2", "avx"}


def test_the_build_level_follows_the_cpu_but_never_past_avx2() -> None:
    assert local_build.level("x86_64", HASWELL) == "x86-64-v3"
    assert local_build.level("x86_64", SAPPHIRE_RAPIDS) == "x86-64-v3"  # AVX-512/AMX unused
    assert local_build.level("x86_64", SANDY_BRIDGE) == "x86-64-v2"
    assert local_build.level("x86_64", HASWELL - {"bmi2"}) == "x86-64-v2"
    assert local_build.level("aarch64", set()) == "generic"


def test_the_build_flags_turn_native_tuning_avx512_and_amx_off() -> None:
    v3 = local_build.cmake_args("x86-64-v3")
    assert v3 == [
        "-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF",
        "-DGGML_SSE42=ON", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON",
        "-DGGML_BMI2=ON", "-DGGML_AVX_VNNI=OFF", "-DGGML_AVX512=OFF", "-DGGML_AVX512_VBMI=OFF",
        "-DGGML_AVX512_VNNI=OFF", "-DGGML_AVX512_BF16=OFF", "-DGGML_AMX_TILE=OFF",
        "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF",
    ]  # fmt: skip
    v2 = local_build.cmake_args("x86-64-v2")
    assert [a for a in v2 if a.endswith("=ON")] == ["-DGGML_SSE42=ON"]
    assert local_build.cmake_args("generic") == ["-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF"]
    # the same wheel on an AMX machine as on a plain AVX2 one: one key, one build
    amx = local_build.cmake_args(local_build.level("x86_64", SAPPHIRE_RAPIDS))
    assert amx == v3
    assert local_build.build_key("0.3.36", "x86-64-v3", v3) != local_build.build_key(
        "0.3.36", "x86-64-v2", v2
    )


def test_cpu_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2\nbugs\t\t: spectre\n")
    assert local_build.cpu_flags(cpuinfo) == {"fpu", "sse4_2", "avx", "avx2"}
    assert local_build.cpu_flags(tmp_path / "absent") == set()


def test_setup_installs_the_portable_build_before_the_extra_that_needs_it() -> None:
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    build = setup.index("scripts/local_build.py .venv/bin/python")
    extras = setup.index('pip install --quiet -e ".[dev,local]"')
    assert build < extras  # pip then finds llama-cpp-python satisfied and never builds it
    assert local_build.required_version() == re.search(
        r"llama-cpp-python\[server\]==([0-9.]+)", (ROOT / "pyproject.toml").read_text()
    ).group(1)  # type: ignore[union-attr]


def installed_cpu_library() -> Path:
    found = importlib.util.find_spec("llama_cpp")  # found, not imported: loading it could crash
    if found is None or found.origin is None:
        pytest.skip("the `local` extra is not installed")
    libraries = sorted((Path(found.origin).parent / "lib").glob("libggml-cpu*.so"))
    if not libraries:
        pytest.skip("this llama-cpp-python has no separate ggml CPU library")
    return libraries[0]


def test_the_installed_library_holds_no_avx512_or_amx_instruction() -> None:
    library = installed_cpu_library()
    if shutil.which("objdump") is None:
        pytest.skip("objdump (binutils) is not installed")
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(library)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "%ymm" in listing  # the AVX2 level's own registers: the listing is real
    beyond = re.findall(r"%zmm\d+|%k[1-7]\b|\b(?:ldtilecfg|tileloadd\w*|tdpb\w+)\b", listing)
    assert beyond == [], f"{library} uses AVX-512/AMX: {sorted(set(beyond))[:10]}"


def test_the_venv_records_the_build_made_for_this_machine() -> None:
    installed_cpu_library()
    stamp = Path(sys.prefix) / ".llama_build"
    if not stamp.exists():
        pytest.skip("llama-cpp-python was not installed by scripts/setup.sh")
    import platform

    level = local_build.level(platform.machine(), local_build.cpu_flags())
    args = local_build.cmake_args(level)
    assert stamp.read_text().strip() == local_build.build_key(
        local_build.required_version(), level, args
    )
