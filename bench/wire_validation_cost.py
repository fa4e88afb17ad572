"""What a validating MCP client pays per answer: the ``search`` tool's output schema before the
one wire schema (commit fbb6708, a loose hand-written subset) against the wire schema now.

    PYTHONPATH=sidecar python bench/wire_validation_cost.py

Prints, for each schema, its size, a one-shot ``jsonschema.validate`` (compiles each call) and a
prebuilt validator (what the MCP SDK caches per tool), on the golden ``agent:search`` document.
"""

from __future__ import annotations

import json
import subprocess
import sys
import timeit
import types
from pathlib import Path

import jsonschema

from vaultheat.agents.tools import BY_NAME

REPO = Path(__file__).resolve().parents[1]
BEFORE = "fbb6708"


def old_schema() -> dict:
    src = subprocess.run(
        ["git", "show", f"{BEFORE}:sidecar/vaultheat/agents/tools.py"],
        capture_output=True, text=True, check=True, cwd=REPO,
    ).stdout  # fmt: skip
    mod = types.ModuleType("old_tools")
    sys.modules["old_tools"] = mod
    exec(compile(src, "old_tools.py", "exec"), mod.__dict__)  # the old module, from git
    return dict(mod.BY_NAME["search"].output_schema)


def main(runs: int = 200) -> None:
    golden = json.loads((REPO / "tests/data/golden_documents.json").read_text("utf-8"))
    doc = json.loads(json.dumps(golden["agent:search"]).replace('"<ms>"', "1.5"))
    for name, schema in (("before", old_schema()), ("wire", BY_NAME["search"].output_schema)):
        once = timeit.timeit(lambda s=schema: jsonschema.validate(doc, s), number=runs) / runs
        validator = jsonschema.Draft202012Validator(schema)
        cached = timeit.timeit(lambda v=validator: v.validate(doc), number=runs) / runs
        print(f"{name}: {len(json.dumps(schema))} bytes of schema, jsonschema.validate "
              f"{once * 1000:.2f} ms, prebuilt validator {cached * 1000:.2f} ms "
              f"({len(doc['results'])} results)")  # fmt: skip


if __name__ == "__main__":
    main()
