#!/usr/bin/env python3
"""folio's input oracle (issue 36): seeded, differential tests of how folio reads data.

For each seed, generate.py writes a small folio project: folio.toml and one data file
(1 to 30 attractions) in one of the shapes users' tools write (one-line, pretty or
record-a-line JSON, JSON Lines, RFC 4180 CSV, spreadsheet CSV with BOM and CRLF, the
European spreadsheet's `;` and decimal commas, TSV), and in about half the seeds damages
it the way real files are damaged. reference.py reads the bytes with Python's own `csv`
and `json` (no code or logic shared with folio) and models, from docs/config.md, what
folio must publish. Then `folio build --quiet` runs on the project and, per seed:

  (a) a file the reference reads and the model takes: folio exits 0 and publishes
      exactly those records with exactly those values (numbers compared as values) on
      the en and de pages;
  (b) a file the reference or the model refuses: folio exits 1, writes no pages and
      names the file, on a line where a fair reader puts the problem (where the reader
      stopped, or each problem the model found in the records read, with its field);
  (c) folio never publishes a record or a value the reference did not read.

Where the docs leave a file's meaning open the model is conservative (README.md here).

    python3 tests/oracle/oracle.py --folio target/release/folio --seeds 0:1000
    python3 tests/oracle/oracle.py --folio target/release/folio --seed 17 --keep /tmp/o

A failing seed prints its shape, damage, bytes, what the reference read and what folio
did; the run ends with `N passed, M failed` and exits 1 if any seed failed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
import reference  # noqa: E402
from reference import Loc, Num  # noqa: E402

PAGE = "output/api/{}/attractions/100/1.json"
UNPREFIXED = "output/api/attractions/100/1.json"


@dataclass
class Run:
    """What folio did."""

    code: int
    stderr: str
    pages: dict = field(default_factory=dict)  # "en", "de", "" -> page JSON text
    wrote_api: bool = False


@dataclass
class Failure:
    kind: str  # the class: what went wrong, without the seed's particulars
    detail: str


@dataclass
class Outcome:
    seed: int
    case: generate.Case
    readings: list
    failures: list  # judge's verdict under each reading
    run: Run
    failure: Failure | None


def build(case: generate.Case, folio: str, folder: Path) -> Run:
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "folio.toml").write_text(case.config)
    (folder / case.file).write_bytes(case.data)
    try:
        p = subprocess.run([folio, "build", "--quiet"], cwd=folder, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return Run(-1, "(timed out after 60 s)")
    run = Run(p.returncode, p.stderr.decode("utf-8", "replace"), wrote_api=(folder / "output/api").exists())
    for lang, path in [("en", PAGE.format("en")), ("de", PAGE.format("de")), ("", UNPREFIXED)]:
        if (folder / path).is_file():
            run.pages[lang] = (folder / path).read_text("utf-8", "replace")
    return run


def check(seed: int, folio: str, keep: Path | None) -> Outcome:
    try:
        return check_seed(seed, folio, keep)
    except Exception as e:  # a bug of the oracle's: say which seed, run the others
        raise RuntimeError(f"the oracle failed on seed {seed}: {e!r}") from e


def check_seed(seed: int, folio: str, keep: Path | None) -> Outcome:
    case = generate.make(seed)
    if keep:
        folder = keep / f"seed-{seed}"
        shutil.rmtree(folder, ignore_errors=True)
        run = build(case, folio, folder)
    else:
        with tempfile.TemporaryDirectory(prefix=f"folio-oracle-{seed}-") as d:
            run = build(case, folio, Path(d))
    ext = case.file.rsplit(".", 1)[1]
    readings = reference.read(case.data, "jsonl" if ext == "ndjson" else ext, case.settings)
    failures = [judge(r, case, run) for r in readings]
    # Failing under every reading: say what the plainest reading (fewest oddities) expects.
    plainest = min(range(len(readings)), key=lambda i: len(readings[i].may_refuse))
    failure = None if any(f is None for f in failures) else failures[plainest]
    return Outcome(seed, case, readings, failures, run, failure)


# --- the invariant -------------------------------------------------------------------------


@dataclass
class Named:
    """One problem folio printed for the file: its line, and the other lines of a problem
    it groups (`N values in this file are like this one (lines 2, 6, 20, …)`, where `…`
    stands for lines after the last one listed)."""

    lines: list
    open_after: int | None
    message: str

    def at(self, lo: int, hi: int) -> bool:
        if any(lo <= n <= hi for n in self.lines):
            return True
        return self.open_after is not None and hi > self.open_after


def named(stderr: str, file: str) -> list:
    out = []
    for m in re.finditer(rf"^{re.escape(file)}(?::(\d+))?:\s?(.*)$", stderr, re.M):
        lines = [int(m.group(1))] if m.group(1) else []
        group = re.search(r"\(lines ([0-9, ]+?)(, …)?\)", m.group(2))
        if group:
            lines += [int(n) for n in group.group(1).split(",")]
        out.append(Named(lines, max(lines) if group and group.group(2) else None, m.group(2)))
    return out


def mentions(message: str, field_name: str) -> bool:
    """Does folio's message name the field (`rating: ...`, `name.EN: ...`)?"""
    return re.search(rf"(^|: ){re.escape(field_name)}(\.[^\s:]+)?: ", message) is not None


def found(p: reference.Problem, problems: list, with_field: bool) -> bool:
    """Did folio name `p`: a line in its window (with its field, and the text that says
    what it is, such as `NaN` or the number, where the reference knows them)?"""
    return any(
        n.at(p.lo, p.hi)
        and (not with_field or p.field is None or mentions(n.message, p.field))
        and (p.token is None or p.token in n.message)
        for n in problems
    )


def judge(reading: reference.Reading, case: generate.Case, run: Run) -> Failure | None:
    problems = named(run.stderr, case.file)
    if not reading.valid:
        first = reading.all_problems()[0]
        if run.code != 1:
            verb = "published" if run.code == 0 else f"exit {run.code} on"
            return Failure(f"{verb} a file the reference refuses ({first.kind})", str(first))
        if run.wrote_api:
            return Failure("wrote pages for a refused file", str(first))
        if not problems:
            return Failure(f"refused without naming {case.file} ({first.kind})", str(first))
        # A header is read first, and nothing hides it but a problem in it.
        top, bottom = reading.header_lines
        refused = [p for p in ([reading.stop] if reading.stop else []) + reading.refusals]
        if not any(p.lo <= bottom and top <= p.hi for p in refused):
            for p in reading.header:
                if not found(p, problems, True):
                    return Failure(f"did not name a problem ({p.kind})", str(p))
        if reading.stop or reading.refusals:
            # A reader may stop at the first of these: folio names one of the problems
            # the reference found, not necessarily the first.
            if not any(found(p, problems, False) for p in reading.all_problems()):
                where = reading.stop or reading.refusals[0]
                kind = f"named no line where the reference found a problem ({where.kind})"
                return Failure(kind, str(where))
            return None
        groups: dict = {}
        for p in reading.problems:
            groups.setdefault(p.group if p.group is not None else id(p), []).append(p)
        for group in groups.values():
            if not any(found(p, problems, True) for p in group):
                p = group[0]
                also = f" (or {', '.join(q.kind for q in group[1:])} in its record)" if len(group) > 1 else ""
                return Failure(f"did not name a problem ({p.kind})", str(p) + also)
        return None
    if run.code == 1 and reading.may_refuse and problems:
        return None
    if run.code != 0:
        return Failure(f"exit {run.code} on a file the reference reads", "")
    return compare(reading, case, run)


def compare(reading: reference.Reading, case: generate.Case, run: Run) -> Failure | None:
    pages = {}
    for lang in ("en", "de", ""):
        if lang not in run.pages:
            return Failure("no page", f"no {PAGE.format(lang or '-')}")
        try:
            pages[lang] = json.loads(run.pages[lang], parse_float=Decimal, parse_int=Decimal)
        except ValueError as e:
            return Failure("a page that is not JSON", f"{lang}: {e}")
    for lang in reference.LANGUAGES:
        want = reference.items(reading, lang, case.settings.fallback)
        got = pages[lang].get("data")
        if not isinstance(got, list):
            return Failure("a page without data", lang)
        want_ids = [str(w["id"].value) for w in want]
        got_ids = [str(g.get("id")) if isinstance(g, dict) else "?" for g in got]
        if got_ids != want_ids or pages[lang].get("total") != len(want):
            extra = [i for i in got_ids if i not in want_ids]
            lost = [i for i in want_ids if i not in got_ids]
            kind = "published records the reference does not see" if extra else "lost records"
            if not extra and not lost:
                kind = "records out of order"
            detail = f"{lang}: ids {got_ids}, the reference {want_ids}; total {pages[lang].get('total')}"
            return Failure(kind, detail)
        for g, w in zip(got, want):
            keys = set(g) - reading.skip_keys
            if keys != set(w):
                what = f"{lang} id {w['id'].value}: keys {sorted(keys)}, the reference {sorted(w)}"
                return Failure("published other fields", what)
            for k in w:
                if not same(w[k], g[k]):
                    detail = f"{lang} id {w['id'].value}: {k} = {show(g[k])}, the reference {show(w[k])}"
                    return Failure(f"published a value the reference does not read ({k})", detail)
    if pages[""].get("data") != pages["en"].get("data"):
        return Failure("unprefixed page differs from en", "")
    return None


def same(want, got) -> bool:
    if isinstance(want, Num):
        if not isinstance(got, Decimal):
            return False
        if want.nearest:
            return float(got) == float(want.value)
        # Values, not text; a zero keeps its sign (docs: `-0` is `-0.0`).
        return got == want.value and (want.value != 0 or got.is_signed() == want.value.is_signed())
    if want is None or isinstance(want, bool):
        return got is want
    if isinstance(want, str):
        return isinstance(got, str) and got == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same, want, got))
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) == set(want) and all(same(want[k], got[k]) for k in want)
    return False


# --- reports --------------------------------------------------------------------------------


def show(v, limit: int = 80) -> str:
    if isinstance(v, Num):
        s = f"{v.value}" + (f" (its nearest float, {float(v.value)!r})" if v.nearest else "")
    elif isinstance(v, Loc):
        s = f"shared {v.value!r}" if v.shared else repr(v.values)
    elif isinstance(v, Decimal):
        s = str(v)
    else:
        s = repr(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def show_bytes(data: bytes, limit: int = 900) -> str:
    r = repr(data)
    if len(r) <= limit:
        return r
    return f"{r[: limit * 2 // 3]} ... {r[-limit // 3 :]}"


def report(o: Outcome, folio: str) -> str:
    c, s = o.case, o.case.settings
    lines = [
        f"FAIL seed {o.seed}: {o.failure.kind}",
        f"  why: {o.failure.detail}" if o.failure.detail else "  why: -",
        f"  shape: {c.shape} ({c.file}); rating {'typed number' if s.rating_typed else 'untyped'}; "
        f"tags {'declared list' if s.tags_declared else 'undeclared'}; fallback {s.fallback}",
        f"  damage: {'; '.join(c.damage) or 'none'}",
        f"  bytes ({len(c.data)}): {show_bytes(c.data)}",
    ]
    for r, f in zip(o.readings, o.failures):
        lines.append(f"  reference ({r.how}):")
        if len(o.readings) > 1:
            lines.append(f"    under this reading: {f.kind}: {f.detail}")
        if r.stop:
            lines.append(f"    stopped: {r.stop}")
        listed = [("header", p) for p in r.header] + [("refused", p) for p in r.refusals]
        listed += [("problem", p) for p in r.problems]
        for label, p in listed[:8]:
            lines.append(f"    {label}: {p}")
        if len(listed) > 8:
            lines.append(f"    ... {len(listed) - 8} more problems")
        if r.valid:
            lines.append(f"    valid: {len(r.records)} records")
        for rec in r.records[:4]:
            fields = ", ".join(f"{k}={show(v, 40)}" for k, v in rec.fields)
            lines.append(f"    line {rec.lo}: {fields}")
        if len(r.records) > 4:
            lines.append(f"    ... {len(r.records) - 4} more records")
        if r.may_refuse:
            lines.append(f"    folio may refuse: {'; '.join(r.may_refuse[:3])}")
    err = o.run.stderr.strip().splitlines()
    lines.append(f"  folio: exit {o.run.code}" + ("" if err else ", nothing on stderr"))
    lines += [f"    {line}" for line in err[:10]]
    if len(err) > 10:
        lines.append(f"    ... {len(err) - 10} more lines")
    if o.run.code == 0 and "en" in o.run.pages:
        lines.append(f"    en page: {o.run.pages['en'][:400].strip()}")
    replay = f"python3 tests/oracle/oracle.py --folio {folio} --seed {o.seed} --keep /tmp/oracle"
    lines.append(f"  replay: {replay}")
    return "\n".join(lines)


def seeds_of(args) -> list:
    seeds = list(args.seed or [])
    for spec in args.seeds or []:
        a, _, b = spec.partition(":")
        seeds += range(int(a), int(b)) if b else [int(a)]
    for path in args.regressions or []:
        for line in Path(path).read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                seeds.append(int(line))
    return list(dict.fromkeys(seeds))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folio", required=True, help="the folio binary")
    ap.add_argument("--seed", type=int, action="append", help="replay one seed (repeatable)")
    ap.add_argument("--seeds", action="append", help="a range A:B (B excluded), repeatable")
    ap.add_argument("--regressions", action="append", help="a file of seeds, one a line, `# why`")
    ap.add_argument("--keep", type=Path, help="keep each seed's project in DIR/seed-N")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--brief", action="store_true", help="one line a failing seed, not its report")
    args = ap.parse_args()
    seeds = seeds_of(args)
    if not seeds:
        ap.error("no seeds: give --seed, --seeds or --regressions")
    if not os.access(args.folio, os.X_OK):
        ap.error(f"{args.folio} is not an executable")
    folio = os.path.abspath(args.folio)
    start = time.monotonic()
    classes: dict = {}
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for o in pool.map(lambda s: check(s, folio, args.keep), seeds):
            if o.failure:
                failed += 1
                if args.brief:
                    print(f"FAIL seed {o.seed}: {o.failure.kind}: {o.failure.detail}", flush=True)
                else:
                    print(report(o, args.folio), flush=True)
                classes.setdefault(o.failure.kind, []).append(o.seed)
    took = time.monotonic() - start
    if classes:
        print("failures by class (count, first seeds):")
        for kind, found_in in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(found_in):5}  {kind}: {' '.join(map(str, found_in[:5]))}")
    print(f"{len(seeds)} seeds in {took:.1f} s ({len(seeds) / took:.0f} seeds/s, {args.jobs} jobs)")
    print(f"{len(seeds) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
