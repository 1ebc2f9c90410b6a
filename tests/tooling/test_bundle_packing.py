"""The bundle's packed libraries: tools/bundle.py packs them, the frozen program's entry
(tools/sidecar/sidecar_entry.py) unpacks them at the first start. Run here on a small folder laid
out as a bundle, with a stand-in library of random bytes (the real bundle is checked by the build
itself and by tests/addon/test_export.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.godot_env import REPO

sys.path.insert(0, str(REPO / "tools" / "sidecar"))

from sidecar_entry import PACKED, unpack_libraries

from tools.bundle import is_packed, pack

LIBRARY = "llvmlite/binding/libllvmlite.so"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A packed bundle whose one large library is 3 MB of random bytes plus 1 MB of zeros."""
    library = tmp_path / "_internal" / LIBRARY
    library.parent.mkdir(parents=True)
    library.write_bytes(os.urandom(3_000_000) + bytes(1_000_000))
    (tmp_path / "_internal" / "keep.so").write_bytes(b"not packed")
    (tmp_path / "original").write_bytes(library.read_bytes())
    pack(tmp_path)
    return tmp_path


def test_pack_lists_and_replaces_only_the_large_libraries(bundle: Path) -> None:
    root = bundle / "_internal"
    assert json.loads((root / PACKED).read_text()) == {LIBRARY: 4_000_000}
    assert not (root / LIBRARY).exists()
    assert (root / (LIBRARY + ".zst")).stat().st_size < 3_100_000
    assert (root / "keep.so").read_bytes() == b"not packed"


def test_first_start_unpacks_in_place_and_later_starts_do_nothing(bundle: Path) -> None:
    root = bundle / "_internal"
    unpack_libraries(root)
    assert (root / LIBRARY).read_bytes() == (bundle / "original").read_bytes()
    assert not (root / (LIBRARY + ".zst")).exists()
    assert os.access(root / LIBRARY, os.X_OK)
    before = (root / LIBRARY).stat().st_mtime_ns
    unpack_libraries(root)
    assert (root / LIBRARY).stat().st_mtime_ns == before
    assert sorted(p.name for p in (root / LIBRARY).parent.iterdir()) == ["libllvmlite.so"]


def test_a_truncated_packed_library_is_refused_and_nothing_is_left_half_written(bundle: Path) -> None:
    root = bundle / "_internal"
    packed = root / (LIBRARY + ".zst")
    packed.write_bytes(packed.read_bytes()[: packed.stat().st_size // 2])
    with pytest.raises(SystemExit, match=r"unpacks to .* bytes, not 4000000.*damaged"):
        unpack_libraries(root)
    assert sorted(p.name for p in packed.parent.iterdir()) == ["libllvmlite.so.zst"]


def test_a_missing_packed_library_says_the_bundle_is_incomplete(bundle: Path) -> None:
    root = bundle / "_internal"
    (root / (LIBRARY + ".zst")).unlink()
    with pytest.raises(SystemExit, match=r"cannot unpack llvmlite/binding/libllvmlite.so .*incomplete"):
        unpack_libraries(root)


def test_a_bundle_without_a_manifest_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "lib.so").write_bytes(b"x")
    unpack_libraries(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lib.so"]


def test_a_bundle_started_in_place_is_seen_unpacked_and_packs_again(bundle: Path) -> None:
    """What ``tools/bundle.sh`` does with an up-to-date bundle that was run where it was built."""
    root = bundle / "_internal"
    assert is_packed(bundle)
    unpack_libraries(root)
    assert not is_packed(bundle)
    pack(bundle)
    assert is_packed(bundle)
    unpack_libraries(root)
    assert (root / LIBRARY).read_bytes() == (bundle / "original").read_bytes()
