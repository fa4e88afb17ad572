#!/usr/bin/env python3
"""The built packages carry the Obsidian plugin: ``vaultheat/obsidian/{main.js,manifest.json,
styles.css}`` in the wheel (and in the sdist, so a wheel built from it carries it too), with the
package's own version in the manifest.

    python scripts/check_dist.py dist/        exit 1 naming what is missing
"""

from __future__ import annotations

import json
import sys
import tarfile
import zipfile
from pathlib import Path

FILES = ("main.js", "manifest.json", "styles.css")
# package data the default model needs (providers/minilm_onnx.py)
DATA = ("vaultheat/providers/data/all-MiniLM-L6-v2/tokenizer.json",
        "vaultheat/providers/data/all-MiniLM-L6-v2/NOTICE")  # fmt: skip


def check(dist: Path) -> list[str]:
    problems: list[str] = []
    wheels = sorted(dist.glob("vaultheat-*.whl"))
    sdists = sorted(dist.glob("vaultheat-*.tar.gz"))
    if not wheels:
        return [f"no vaultheat wheel in {dist}"]
    for wheel in wheels:
        version = wheel.name.split("-")[1]
        with zipfile.ZipFile(wheel) as z:
            names = set(z.namelist())
            for f in FILES:
                if f"vaultheat/obsidian/{f}" not in names:
                    problems.append(f"{wheel.name} lacks vaultheat/obsidian/{f}")
            problems += [f"{wheel.name} lacks {f}" for f in DATA if f not in names]
            if "vaultheat/obsidian/manifest.json" in names:
                shipped = json.loads(z.read("vaultheat/obsidian/manifest.json"))["version"]
                if shipped != version:
                    problems.append(f"{wheel.name} carries plugin {shipped}, not {version}")
    for sdist in sdists:
        with tarfile.open(sdist) as t:
            names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
        problems += [f"{sdist.name} lacks sidecar/vaultheat/obsidian/{f}" for f in FILES
                     if f"sidecar/vaultheat/obsidian/{f}" not in names]  # fmt: skip
        problems += [f"{sdist.name} lacks sidecar/{f}" for f in DATA
                     if f"sidecar/{f}" not in names]  # fmt: skip
    return problems


def main(argv: list[str]) -> int:
    dist = Path(argv[0] if argv else "dist")
    found = check(dist)
    for line in found:
        print(f"check_dist: {line}", file=sys.stderr)
    if not found:
        print(f"check_dist: {', '.join(p.name for p in sorted(dist.glob('vaultheat-*')))} "
              "carry the Obsidian plugin")  # fmt: skip
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
