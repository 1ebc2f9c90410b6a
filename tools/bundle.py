"""Build the self-contained sidecar for this platform: ``bash tools/bundle.sh [--force] [--out DIR]``.

Five steps, each announced on the terminal:

1. freeze ``bridge`` + ``python_core`` + their dependencies with PyInstaller into one folder
   (``tools/sidecar/sidecar.spec``, which leaves out the modules the sidecar never imports; the
   full log goes to ``build/pyinstaller.log``);
2. strip the debug symbols of the largest libraries (LLVM, Python, zstd);
3. fill numba's disk cache inside the bundle by running the frozen program's own ``warm-up``
   (every kernel compiled for a generic CPU of the platform, see tools/sidecar/sidecar_entry.py);
4. pack the two largest libraries (LLVM, OpenBLAS) with zstd; the sidecar unpacks them in place at
   its first start (``_internal/packed.json`` lists them);
5. check it: copy the bundle to a temporary folder and, with an empty environment (no PATH, no
   Python), run ``warm-up --expect-cached`` there (the first start: it unpacks, and fails if any
   kernel would compile on a player's machine), then one query of every kind
   (tools/sidecar/exercise.py), which fails if anything the sidecar needs was left out or if
   answering compiled a kernel the warm-up missed.

The result is ``<out>/<platform>/astar-bridge-sidecar/`` (default out: ``build/sidecar``), with
``bundle.json`` saying what it was built from; a second run with unchanged sources reuses it.
The last line printed is the bundle's size, beside the goal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NAME = "astar-bridge-sidecar"
SOURCES = ("python_core", "bridge", "tools/sidecar", "tools/bundle.py", "pyproject.toml")
PHASES = ("Analyzing", "Processing", "Building PYZ", "Building EXE", "Building COLLECT", "Build complete")
STRIP = ("llvmlite/binding/libllvmlite", "libpython", "lib-dynload/", "zstandard/")
PACK = ("llvmlite/binding/", "numpy.libs/libscipy_openblas")
"""The libraries shipped compressed: LLVM (160 MB, 48 packed) and numpy's OpenBLAS (25 MB, 7)."""
PACK_SUFFIXES = (".so", ".dll", ".dylib")
PACK_LEVEL = 9
"""zstd level: 19 saves another 6 MB but takes minutes; unpacking is as fast at either."""
PACKED = "packed.json"
SIZE_GOAL_MB = 150
STEPS = 5
LOGS = REPO / "build"
"""PyInstaller's work folder and the build's logs (wherever ``--out`` puts the bundle)."""


def platform_tag() -> str:
    """``linux-x86_64``, ``windows-x86_64``, ``macos-arm64``...: the folder name per platform."""
    system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}.get(machine, machine)
    return f"{system.removesuffix('2')}-{machine}"


def sources_hash() -> str:
    """A hash of every file the bundle is built from, and of the Python that freezes it."""
    digest = hashlib.sha256(sys.version.encode())
    for source in SOURCES:
        path = REPO / source
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.is_file() and "__pycache__" not in file.parts:
                digest.update(str(file.relative_to(REPO)).encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def step(number: int, text: str) -> None:
    print(f"[bundle {number}/{STEPS}] {text}", flush=True)


def run_streaming(command: list[str], log: Path, show: tuple[str, ...], env: dict[str, str]) -> None:
    """Run ``command``, its output to ``log``; echo the lines that contain one of ``show``."""
    began = time.monotonic()
    with log.open("w") as sink:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        assert process.stdout is not None
        for line in process.stdout:
            sink.write(line)
            if any(marker in line for marker in show):
                print(f"    {time.monotonic() - began:6.1f} s  {line.strip()[-100:]}", flush=True)
        status = process.wait()
    if status != 0:
        sys.exit(f"[bundle] error: {command[0]} exited {status}; see {log}")


def freeze(dist: Path, work: Path) -> Path:
    """Step 1: PyInstaller into ``dist``; returns the bundle folder."""
    command = [sys.executable, "-m", "PyInstaller", str(REPO / "tools" / "sidecar" / "sidecar.spec")]
    command += ["--noconfirm", "--log-level", "INFO", "--distpath", str(dist), "--workpath", str(work)]
    run_streaming(command, LOGS / "pyinstaller.log", PHASES, dict(os.environ))
    return dist / NAME


def strip(bundle: Path) -> None:
    """Step 2: drop the debug symbols of the big libraries (not the wheels' vendored ones in
    ``*.libs``, which stripping breaks)."""
    tool = shutil.which("strip")
    if tool is None or sys.platform == "win32":
        print("    no strip tool here: skipped")
        return
    before = folder_bytes(bundle)
    for file in bundle.rglob("*.so*"):
        if any(part in file.as_posix() for part in STRIP) and file.is_file():
            subprocess.run([tool, "--strip-unneeded", str(file)], check=True)
    print(f"    {(before - folder_bytes(bundle)) / 1e6:.0f} MB of symbols removed")


def program(bundle: Path) -> Path:
    return bundle / (NAME + (".exe" if sys.platform == "win32" else ""))


def warm_up(bundle: Path) -> None:
    """Step 3: the frozen program compiles every kernel into the bundle's own cache."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
    show = ("compiling kernel", "warm-up", "Error", "error")
    run_streaming([str(program(bundle)), "warm-up"], LOGS / "bundle-warm-up.log", show, env)


def reuse_kernels(previous: Path, bundle: Path) -> None:
    """Copy the previous build's kernel cache into ``bundle`` when it is still this source's: its
    folder is named by a hash of python_core's sources and numba's version (python_core.compiled),
    and each kernel is stamped by its file's content, so the warm-up then loads them all and
    compiles only kernels it has not seen. A cache of other sources is left behind (it would only
    add its size to the bundle)."""
    sys.path.insert(0, str(REPO))
    import numba  # noqa: PLC0415 (the build's own numba: the version the bundle freezes)

    from python_core.compiled import _sources_hash  # noqa: PLC0415 (the cache folder's name)

    name = f"python_core/__pycache__/numba-{_sources_hash(numba.__version__)}"
    cache, into = internal(previous) / name, internal(bundle) / name
    if cache.is_dir() and not into.exists():
        shutil.copytree(cache, into)
        print(f"    reusing the previous build's kernel cache {cache.name}", flush=True)


def internal(bundle: Path) -> Path:
    """The folder PyInstaller puts everything but the program in (``sys._MEIPASS`` at run time)."""
    return bundle / "_internal"


def pack(bundle: Path) -> None:
    """Step 4: the libraries of ``PACK`` replaced by ``<name>.zst``, listed in ``packed.json``
    with their unpacked sizes (tools/sidecar/sidecar_entry.py unpacks them at the first start)."""
    import zstandard  # noqa: PLC0415 (the bundle extra; only the build needs it)

    root = internal(bundle)
    packed: dict[str, int] = {}
    for file in sorted(root.rglob("*")):
        relative = file.relative_to(root).as_posix()
        if not (file.is_file() and any(part in relative for part in PACK)):
            continue
        if not any(suffix in file.name for suffix in PACK_SUFFIXES):
            continue
        packed[relative] = file.stat().st_size
        with file.open("rb") as source, file.with_name(file.name + ".zst").open("wb") as sink:
            zstandard.ZstdCompressor(level=PACK_LEVEL, threads=-1).copy_stream(source, sink)
        file.unlink()
        size = file.with_name(file.name + ".zst").stat().st_size
        print(f"    {relative}: {packed[relative] / 1e6:.0f} MB -> {size / 1e6:.0f} MB", flush=True)
    (root / PACKED).write_text(json.dumps(packed, indent=1))


def unpacked_bytes(bundle: Path) -> int:
    """The folder's size once a first start unpacked its libraries."""
    root = internal(bundle)
    try:
        packed: dict[str, int] = json.loads((root / PACKED).read_text())
    except OSError:
        return folder_bytes(bundle)
    still_packed = [root / (name + ".zst") for name in packed]
    packed_bytes = sum(file.stat().st_size for file in still_packed if file.exists())
    return folder_bytes(bundle) - packed_bytes + sum(packed.values())


def check_moved(bundle: Path) -> None:
    """Step 5: a copy elsewhere, an empty environment: the first start unpacks, every kernel loads
    from the cache, and one query of every kind is answered."""
    sys.path.insert(0, str(REPO / "tools" / "sidecar"))
    from exercise import exercise  # noqa: PLC0415 (tools/sidecar is not a package)

    with tempfile.TemporaryDirectory(prefix="sidecar-check-") as scratch:
        moved = Path(scratch) / "moved" / NAME
        shutil.copytree(bundle, moved, symlinks=True)
        env = {"SYSTEMROOT": os.environ["SYSTEMROOT"]} if "SYSTEMROOT" in os.environ else {}
        began = time.monotonic()
        out = subprocess.run(
            [str(program(moved)), "warm-up", "--expect-cached"],
            capture_output=True,
            text=True,
            env=env,
            cwd=scratch,
            check=False,
        )
        if out.returncode != 0 or " 0 compiled" not in out.stdout:
            sys.exit(f"[bundle] error: the moved copy failed or compiled kernels:\n{out.stdout}{out.stderr}")
        print(
            f"    moved copy, empty environment, first start (unpacks): {out.stdout.strip()} "
            f"({time.monotonic() - began:.1f} s)"
        )
        began = time.monotonic()
        cached = kernel_cache(moved)
        try:
            answered = exercise([str(program(moved))], env, Path(scratch))
        except AssertionError as error:
            sys.exit(f"[bundle] error: the moved copy failed a query: {error}")
        compiled = sorted(set(kernel_cache(moved)) - set(cached))
        if compiled:
            sys.exit(f"[bundle] error: the moved copy compiled kernels to answer queries: {compiled}")
        print(
            f"    moved copy: {answered} queries of every kind answered, nothing compiled "
            f"({time.monotonic() - began:.1f} s)"
        )


def kernel_cache(bundle: Path) -> list[tuple[str, int]]:
    """numba's cache files in the bundle with their sizes: a kernel compiled adds or grows one."""
    files = [*internal(bundle).rglob("*.nbi"), *internal(bundle).rglob("*.nbc")]
    return [(file.name, file.stat().st_size) for file in files]


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def build(target: Path) -> None:
    """Steps 1-4 into a scratch folder, then the finished bundle replaces ``target``."""
    scratch = target.parent / f".{target.name}.building"
    shutil.rmtree(scratch, ignore_errors=True)
    step(1, "freezing bridge + python_core + numpy/numba/llvmlite/msgpack with PyInstaller")
    bundle = freeze(scratch / "dist", LOGS / "pyinstaller")
    step(2, "stripping debug symbols")
    strip(bundle)
    step(3, "compiling every kernel into the bundle's numba cache (generic CPU; minutes)")
    reuse_kernels(target, bundle)
    warm_up(bundle)
    step(4, "packing the largest libraries (zstd; unpacked at the sidecar's first start)")
    pack(bundle)
    step(5, "checking a moved copy in an empty environment: unpacks, loads every kernel, answers queries")
    check_moved(bundle)
    (bundle / "bundle.json").write_text(
        json.dumps({"sources": sources_hash(), "platform": platform_tag(), "python": sys.version})
    )
    shutil.rmtree(target, ignore_errors=True)
    bundle.rename(target)
    shutil.rmtree(scratch, ignore_errors=True)


def is_packed(bundle: Path) -> bool:
    """Whether every library ``packed.json`` lists is still packed (a start in place unpacks them)."""
    root = internal(bundle)
    try:
        packed: dict[str, int] = json.loads((root / PACKED).read_text())
    except (OSError, ValueError):
        return False
    return all((root / (name + ".zst")).is_file() for name in packed)


def is_current(target: Path) -> bool:
    try:
        return bool(json.loads((target / "bundle.json").read_text())["sources"] == sources_hash())
    except (OSError, ValueError, KeyError):
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "build" / "sidecar", help="output folder")
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    target = out / platform_tag() / NAME
    began = time.monotonic()
    LOGS.mkdir(parents=True, exist_ok=True)  # a fresh clone has no build/ yet
    if not args.force and is_current(target):
        print(f"[bundle] up to date (sources unchanged): {target}")
        if not is_packed(target):
            print("[bundle] it was started in place, which unpacked its libraries: packing them again")
            pack(target)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        (out / ".gdignore").touch()  # Godot never scans it when it sits inside a project
        build(target)
        print(f"[bundle] built in {time.monotonic() - began:.0f} s")
    megabytes = folder_bytes(target) / 1e6
    verdict = "within" if megabytes < SIZE_GOAL_MB else "over"
    unpacked = unpacked_bytes(target) / 1e6
    print(f"[bundle] on a player's disk after the first start (libraries unpacked): {unpacked:.0f} MB")
    print(f"[bundle] {target}: {megabytes:.0f} MB ({verdict} the {SIZE_GOAL_MB} MB goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
