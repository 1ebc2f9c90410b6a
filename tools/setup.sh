#!/usr/bin/env bash
# Idempotent set-up shared by the README's two commands. With no option it makes what the demo
# needs: a .venv with the project and its runtime packages, numba's kernel cache filled, and a
# Godot 4 binary. --dev adds the test tools (the test command passes it), --bench the benchmarks'
# peer libraries, --ray the Ray client that `serve --ray` needs (docs/scale-out.md; the test command
# passes it too). A second run reuses all of it: pip runs again only when pyproject.toml changed or
# an extra is asked for the first time, and the warm-up then only loads the kernels.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
python="${PYTHON:-python3}"
extras=()
for arg in "$@"; do
  case "$arg" in
    --dev) extras+=(dev) ;;
    --bench) extras+=(bench) ;;
    --ray) extras+=(ray) ;;
    *) echo "[setup] error: unknown option '$arg' (known: --dev, --bench, --ray)" >&2; exit 2 ;;
  esac
done
began=$SECONDS
say() { echo "[setup] $*" >&2; }

if [ ! -x .venv/bin/python ]; then
  say "creating the Python environment .venv"
  "$python" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip >&2
fi

# The stamp holds pyproject.toml's hash and the extras installed with it: a changed pyproject
# installs again with the extras the environment had, plus those asked now.
stamp=.venv/.astar-bridge-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
have="$(sed -n 1p "$stamp" 2>/dev/null || true)"
have_extras="$(sed -n 2p "$stamp" 2>/dev/null || true)"
missing=""
for extra in ${extras[@]+"${extras[@]}"}; do
  case " $have_extras " in *" $extra "*) ;; *) missing="$missing $extra" ;; esac
done
if [ "$have" != "$want" ] || [ -n "$missing" ]; then
  all="$(printf '%s\n' $have_extras $missing | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//')"
  spec="."
  if [ -n "$all" ]; then spec=".[${all// /,}]"; fi
  packages_began=$SECONDS
  what="numpy, numba, msgpack, shapely, uvloop"
  case " $all " in *" dev "*) what="$what, the test tools" ;; esac
  case " $all " in *" bench "*) what="$what, the benchmarks' peer libraries" ;; esac
  case " $all " in *" ray "*) what="$what, Ray" ;; esac
  say "installing Python packages: $what"
  .venv/bin/python -m pip install -q -e "$spec" >&2
  printf '%s\n%s\n' "$want" "$all" > "$stamp"
  say "Python packages installed in $((SECONDS - packages_began)) s"
fi

# The kernels compile in the background (one process per CPU) while Godot is found or unpacked;
# the set-up waits for them at the end, so a sidecar started afterwards is warm.
kernels_began=$SECONDS
.venv/bin/python -m bridge warm-up >&2 &
warm_up=$!
trap 'kill "$warm_up" 2>/dev/null || true' EXIT

# Without Godot the Python tests still run locally (Godot tests skip); with CI=true that is a failure.
if godot="$(.venv/bin/python tools/provision_godot.py)"; then
  echo "$godot" > .venv/.godot-path
elif [ "${CI:-}" = "true" ]; then
  say "error: CI=true and no Godot 4.3+ could be found or provisioned"
  exit 1
else
  say "warning: no Godot 4.3+; Godot tests will be skipped (set GODOT=/path/to/godot)"
  : > .venv/.godot-path
fi
godot_seconds=$((SECONDS - kernels_began))

if ! wait "$warm_up"; then
  trap - EXIT
  say "error: compiling the pathfinding kernels failed (its message is above); run again to resume"
  exit 1
fi
trap - EXIT
if [ $((SECONDS - began)) -ge 10 ]; then
  say "ready in $((SECONDS - began)) s (kernels $((SECONDS - kernels_began)) s, Godot ${godot_seconds} s of it beside them)"
fi
