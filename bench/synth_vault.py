"""A synthetic Obsidian vault of any size, for measuring how indexing and queries scale.

    .venv/bin/python bench/synth_vault.py OUT_DIR [--notes 10000] [--seed 1]

Real vaults big enough to show scaling cannot live in the repo, so this writes one that looks
like a personal vault in the ways the pipeline cares about:

- note length: lognormal word counts (median ~250 words, long tail up to a few thousand), so
  chunk counts per note vary like in real vaults;
- topics: each note draws most of its words from one of ~60 topics (a Zipf mix of the topic's
  jargon and common English), so the similarity graph has clusters and not uniform noise;
- structure: frontmatter (tags, sometimes aliases), ``##``/``###`` headings, paragraphs and
  bullet lists, inline ``#tags`` (a few frequent, most rare), wikilinks whose targets follow a
  power law (a few hub notes get most backlinks; some links carry ``#Heading`` or ``|alias``;
  some point at notes that do not exist);
- folders two levels deep and ~10% daily notes (``Daily/YYYY-MM-DD.md``, short, tagged #daily).

Deterministic for a given ``--seed`` and ``--notes`` (``random.Random``, no hash salt, no
clock); no downloads: the vocabulary is built in.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

COMMON = """the of and to in is that it for on with as was at by be this from or have an are
not but what all were when we there can your which their said if will each about how up out
them then she many some so these would other into has more her two like him see time could no
make than first been its who now people my made over did down only way find use may water long
little very after words called just where most know get through back much before go good new
write our used me man too any day same right look think also around another came come work
three word must because does part even place well such here take why things help put years
different away again off went old number great tell men say small every found still between
name should home big give air line set own under read last never us left end along while might
next sound below saw something thought both few those always looked show large often together
asked house world going want school important until form food keep children feet land side
without boy once animals life enough took sometimes four head above kind began almost live page
got earth need far hand high year mother light parts country father let night following picture
being study second eyes soon times story boys since white days ever paper hard near sentence
better best across during today others however sure means knew try told young miles sun ways
thing whole hear example heard several change answer room sea against top turned learn point
city play toward five using himself usually money seen car morning given trees close body family
method system process project question problem result reason idea plan note list draft review
meeting week month goal task design model data source value level order state group event field
""".split()

SYLLABLES = """ka ren to mi sa lo vi du ne ra po ki la ze mo tu fi ga be ro na li su de pa ho
ti me ko ra vu qua zen thor el an is ur ob ex ly ma ri sto pre con""".split()

TOPIC_NAMES = """gardening astronomy cooking photography finance running woodworking chess
linguistics climbing birding sailing pottery baking coffee typography networking databases
compilers robotics beekeeping cycling genealogy knitting meditation nutrition parenting poetry
podcasting printing quilting reading rowing sculpture singing skiing soap stamps surfing
swimming tea tennis theatre travel violin weaving wine writing yoga architecture botany
calligraphy ceramics cryptography economics ethics geology history mathematics music
neuroscience philosophy physics psychology""".split()

DAILY_SHARE = 0.10
MISSING_LINK_SHARE = 0.05


@dataclass
class Topic:
    name: str
    folder: str
    jargon: list[str]
    tags: list[str]
    notes: list[int] = field(default_factory=list)


def make_word(rng: random.Random, n_syll: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(n_syll))


def make_topics(rng: random.Random) -> list[Topic]:
    folders = ["Areas", "Projects", "Resources", "Notes", "Archive"]
    topics = []
    for name in TOPIC_NAMES:
        jargon = sorted({make_word(rng, rng.randint(2, 4)) for _ in range(80)})
        rng.shuffle(jargon)
        tags = [name] + [f"{name}/{w}" for w in jargon[:4]]
        folder = f"{rng.choice(folders)}/{name.capitalize()}"
        topics.append(Topic(name, folder, jargon, tags))
    return topics


def zipf_pick(rng: random.Random, items: list[str], s: float = 1.1) -> str:
    """An item with probability ~ 1/rank^s (inverse-CDF on the continuous approximation)."""
    n = len(items)
    u = rng.random()
    if s == 1.0:
        rank = int(math.exp(u * math.log(n + 1)))
    else:
        a = 1.0 - s
        rank = int((1 + u * ((n + 1) ** a - 1)) ** (1 / a))
    return items[min(max(rank, 1), n) - 1]


def sentence(rng: random.Random, topic: Topic, n: int) -> str:
    words = []
    for _ in range(n):
        words.append(zipf_pick(rng, topic.jargon) if rng.random() < 0.3 else zipf_pick(rng, COMMON))
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", ".", ".", "?", "!"])


def word_count(rng: random.Random, median: float = 250.0, sigma: float = 0.8) -> int:
    return max(12, min(6000, int(rng.lognormvariate(math.log(median), sigma))))


def power_law_target(rng: random.Random, ranked: list[int]) -> int:
    """A link target: rank r is chosen with probability ~ 1/r (hubs get most backlinks)."""
    n = len(ranked)
    r = int(math.exp(rng.random() * math.log(n + 1)))
    return ranked[min(max(r, 1), n) - 1]


def generate(out: Path, n_notes: int, seed: int = 1) -> list[Path]:
    """Write ``n_notes`` notes under ``out`` (created; must not exist or be empty)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        raise SystemExit(f"{out} is not empty")
    topics = make_topics(rng)
    n_daily = int(n_notes * DAILY_SHARE)
    titles: list[str] = []
    paths: list[str] = []
    topic_of: list[Topic] = []
    used: set[str] = set()
    start = dt.date(2022, 1, 1)
    for i in range(n_notes):
        topic = topics[int(len(topics) * rng.random() ** 1.5)]  # some topics are bigger
        if i < n_daily:
            title = (start + dt.timedelta(days=i)).isoformat()
            path = f"Daily/{title}.md"
        else:
            words = [zipf_pick(rng, topic.jargon, 0.9) for _ in range(rng.randint(1, 3))]
            title = " ".join([rng.choice(COMMON).capitalize(), *words])
            k = 2
            base = title
            while title.casefold() in used:
                title = f"{base} {k}"
                k += 1
            used.add(title.casefold())
            sub = f"/{zipf_pick(rng, topic.jargon[:6])}" if rng.random() < 0.3 else ""
            path = f"{topic.folder}{sub}/{title}.md"
        titles.append(title)
        paths.append(path)
        topic_of.append(topic)
        topic.notes.append(i)
    ranked = list(range(n_daily, n_notes))
    rng.shuffle(ranked)  # link popularity is independent of creation order
    headings_of: dict[int, list[str]] = {}
    for i in range(n_notes):
        headings_of[i] = [
            " ".join(zipf_pick(rng, topic_of[i].jargon) for _ in range(rng.randint(1, 3))).title()
            for _ in range(rng.randint(0, 5))
        ]

    def link(src: int) -> str:
        if rng.random() < MISSING_LINK_SHARE:
            return f"[[{make_word(rng, 3).capitalize()}]]"
        topic = topic_of[src]
        if rng.random() < 0.6 and len(topic.notes) > 1:
            dst = topic.notes[int(len(topic.notes) * rng.random() ** 2)]
        else:
            dst = power_law_target(rng, ranked)
        target = titles[dst]
        hs = headings_of[dst]
        r = rng.random()
        if r < 0.15 and hs:
            return f"[[{target}#{rng.choice(hs)}]]"
        if r < 0.25:
            return f"[[{target}|{rng.choice(COMMON)} {rng.choice(topic.jargon)}]]"
        return f"[[{target}]]"

    files: list[Path] = []
    for i in range(n_notes):
        topic = topic_of[i]
        daily = paths[i].startswith("Daily/")
        total = word_count(rng, 60 if daily else 250)
        tags = ["daily"] if daily else rng.sample(topic.tags, k=rng.randint(1, 3))
        lines = ["---", f"tags: [{', '.join(tags)}]"]
        if not daily and rng.random() < 0.1:
            lines.append(f"aliases: [{' '.join(rng.choice(topic.jargon) for _ in range(2))}]")
        if rng.random() < 0.3:
            lines.append(f"status: {rng.choice(['draft', 'done', 'todo'])}")
        lines += ["---", ""]
        if not daily:
            lines += [f"# {titles[i]}", ""]
        heads = list(headings_of[i])
        per_section = max(40, total // (len(heads) + 1))
        written = 0
        while written < total:
            if written and heads and written % per_section < 60:
                level = "##" if rng.random() < 0.7 else "###"
                lines += [f"{level} {heads.pop(0)}", ""]
            if rng.random() < 0.2:
                for _ in range(rng.randint(2, 6)):
                    n = rng.randint(4, 14)
                    item = sentence(rng, topic, n)
                    if rng.random() < 0.3:
                        item += " " + link(i)
                    lines.append(f"- {item}")
                    written += n
                lines.append("")
                continue
            para = []
            for _ in range(rng.randint(2, 6)):
                n = rng.randint(6, 22)
                s = sentence(rng, topic, n)
                if rng.random() < 0.25:
                    s += " " + link(i)
                if rng.random() < 0.06:
                    s += " #" + rng.choice(topic.tags if rng.random() < 0.7 else [topic.name])
                para.append(s)
                written += n
            lines += [" ".join(para), ""]
        file = out / paths[i]
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("\n".join(lines), encoding="utf-8")
        files.append(file)
    return files


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("out", type=Path, help="folder to create (must be absent or empty)")
    p.add_argument("--notes", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    if (a.out / ".synth").exists():  # a vault this script wrote before: regenerate it
        shutil.rmtree(a.out)
    files = generate(a.out, a.notes, a.seed)
    (a.out / ".synth").write_text(f"notes={a.notes} seed={a.seed}\n", encoding="utf-8")
    size = sum(f.stat().st_size for f in files)
    print(f"wrote {len(files)} notes ({size / 1e6:.1f} MB) to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
