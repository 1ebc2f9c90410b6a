"""The release zip a Godot developer installs without Python: ``bash tools/release.sh [--out DIR]``.

``astar-bridge-<version>-<platform>.zip`` (version from ``addons/astar_bridge/plugin.cfg``) holds
``addons/astar_bridge/`` as the Asset Library installs it, with this platform's self-contained
sidecar inside, at ``addons/astar_bridge/sidecar/<platform>/astar-bridge-sidecar/`` (behind a
``.gdignore``: Godot never imports it, and it stays out of an exported ``.pck``). The autoload
starts it in the editor with no setting; the export plugin copies it beside an exported game.

The bundle is the one ``tools/bundle.sh`` built (release.sh runs it first). Two changes for a zip:
the bundle is marked ``run-from-cache`` (its first start must not change the project's files, so it
runs from a copy in the user's cache, see tools/sidecar/sidecar_entry.py), and its symbolic links,
which neither Godot's installer nor most unzip tools recreate, are left out and listed in
``_internal/links.json`` for the sidecar to make again. The last line is the zip and its size.
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import stat
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.bundle import NAME, REPO, is_packed, platform_tag

ADDON = Path("addons") / "astar_bridge"
SIDECARS = ADDON / "sidecar"
"""Where the addon keeps its sidecars, one folder per platform (sidecar_process.gd looks there)."""
RUN_FROM_CACHE = "run-from-cache"
LINKS = "links.json"
SKIP_PARTS = ("__pycache__", ".godot")
STORED_SUFFIXES = (".zst",)
"""Already compressed: stored as they are, which saves the zip's time and none of its size."""


def plugin_version(plugin_cfg: Path) -> str:
    """The ``version`` of ``plugin.cfg``'s ``[plugin]`` section."""
    config = configparser.ConfigParser()
    config.read(plugin_cfg)
    try:
        return config["plugin"]["version"].strip('"')
    except KeyError:
        sys.exit(f"[release] error: {plugin_cfg} has no version under [plugin]")


def addon_files(addon: Path) -> Iterator[Path]:
    """The addon's files, without caches and without a sidecar built into it for development."""
    for file in sorted(addon.rglob("*")):
        relative = file.relative_to(addon)
        if relative.parts[0] == SIDECARS.name or any(part in SKIP_PARTS for part in relative.parts):
            continue
        if file.is_file():
            yield file


def add_file(archive: zipfile.ZipFile, file: Path, name: str, *, executable: bool = False) -> None:
    """``file`` as ``name``, with its Unix mode (unzip keeps the program executable)."""
    info = zipfile.ZipInfo.from_file(file, name)
    mode = 0o755 if executable or file.stat().st_mode & stat.S_IXUSR else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    stored = name.endswith(STORED_SUFFIXES)
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with file.open("rb") as source, archive.open(info, "w") as sink:
        while chunk := source.read(1 << 20):
            sink.write(chunk)


def add_bundle(archive: zipfile.ZipFile, bundle: Path, into: str) -> int:
    """The bundle's files under ``into``, its links listed in ``_internal/links.json``; returns how
    many links were listed."""
    links: dict[str, str] = {}
    for file in sorted(bundle.rglob("*")):
        relative = file.relative_to(bundle).as_posix()
        if file.is_symlink():
            links[relative] = os.readlink(file)
        elif file.is_file():
            add_file(archive, file, f"{into}/{relative}", executable=relative == NAME)
    archive.writestr(f"{into}/{RUN_FROM_CACHE}", "This copy runs from the user's cache folder.\n")
    archive.writestr(f"{into}/_internal/{LINKS}", json.dumps(links, indent=1))
    return len(links)


def build_zip(bundle: Path, out: Path) -> Path:
    """Write the release zip into ``out``; returns its path."""
    version = plugin_version(REPO / ADDON / "plugin.cfg")
    tag = platform_tag()
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"astar-bridge-{version}-{tag}.zip"
    part = target.with_name(target.name + ".part")
    with zipfile.ZipFile(part, "w", compresslevel=6) as archive:
        for file in addon_files(REPO / ADDON):
            add_file(archive, file, file.relative_to(REPO).as_posix())
        archive.writestr(f"{SIDECARS.as_posix()}/.gdignore", "")
        links = add_bundle(archive, bundle, f"{SIDECARS.as_posix()}/{tag}/{NAME}")
    part.replace(target)
    print(f"[release] addon {version}, sidecar for {tag} ({links} links listed for the sidecar to make)")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="folder of the zip (default dist/)")
    parser.add_argument(
        "--bundle",
        type=Path,
        default=REPO / "build" / "sidecar" / platform_tag() / NAME,
        help="the sidecar bundle (default: the one tools/bundle.sh builds)",
    )
    args = parser.parse_args()
    bundle: Path = args.bundle.resolve()
    if not (bundle / NAME).is_file() and not (bundle / (NAME + ".exe")).is_file():
        sys.exit(f"[release] error: no sidecar bundle at {bundle}: run bash tools/bundle.sh first")
    if not is_packed(bundle):
        sys.exit(f"[release] error: {bundle} was started in place (unpacked): run bash tools/bundle.sh")
    began = time.monotonic()
    target = build_zip(bundle, args.out.resolve())
    megabytes = target.stat().st_size / 1e6
    print(f"[release] {target}: {megabytes:.0f} MB (zipped in {time.monotonic() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
