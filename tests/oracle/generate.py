"""The oracle's generator: a seed makes one folio project (a `folio.toml` and one data
file) in one of the shapes users' tools write, sometimes damaged the way real files are.

Everything here is written from docs/config.md and what spreadsheet programs, Python's
`json` and `csv` modules and JavaScript write; nothing comes from folio's sources. The
generator never predicts what a file means: the reference reader (reference.py) reads
the bytes it wrote.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

LANGUAGES = ("en", "de")

# (shape, extension): the ways users' tools write a catalog.
SHAPES = {
    "json-line": "json",  # json.dumps(records): one line
    "json-pretty": "json",  # json.dumps(records, indent=2)
    "json-rows": "json",  # an array with a record a line, as JS code often writes it
    "jsonl": "jsonl",  # JSON Lines
    "csv-lf": "csv",  # RFC 4180 with LF line ends (Python's csv, pandas)
    "csv-excel": "csv",  # spreadsheet "CSV UTF-8": BOM + CRLF
    "csv-euro": "csv",  # European spreadsheet: BOM, CRLF, `;`, decimal commas
    "tsv": "tsv",  # tabs, CRLF
}

BOM = "\ufeff"

NAMES = {
    "en": ["Tower", "Gate", "Bridge", "Museum", "Old Town", "Castle", "Cathedral", "Market"],
    "de": ["Turm", "Tor", "Brücke", "Museum", "Altstadt", "Schloss", "Dom", "Markt"],
    "fr": ["Tour", "Porte", "Pont", "Musée", "Vieille ville", "Château", "Cathédrale"],
}
# Text that every CSV writer has to quote or that readers trip on.
TRICKY = [
    ", with a comma",
    "; with a semicolon",
    ' say "hi" ',
    "it's",
    "line\nbreak",
    "crlf\r\nbreak",
    "tab\there",
    "Ünïcödé ß",
    "日本語",
    "🏰 castle",
    "  padded  ",
    "back\\slash",
    "a|pipe",
    "x" * 70,
    "ab\"c",
]
TAGS = ["history", "art", "nature", "food", "kids", "free", "unesco", "Café"]

# Numbers a reader can change: past 64 bits, below the smallest float, many digits,
# signed zero, exponents, and what Python's json.dump writes for NaN and infinities.
EDGE_NUMBERS = [
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "12345678901234567890123",
    "100000000000000000000",
    "1e-400",
    "2.5e-324",
    "5e-324",
    "4.9e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308",
    "1.8e308",
    "1e400",
    "-0",
    "-0.0",
    "1E5",
    "1e+2",
    "0.1000000000000000000001",
    "0.30000000000000004",
    "123456789012345678",
    "0.12345678901234567",
    "1.5E-7",
    "NaN",
    "Infinity",
    "-Infinity",
]
EDGE_IDS = [
    "18446744073709551615",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999",
]
BAD_UTF8 = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80", b"\xf8\x88\x80\x80\x80"]


@dataclass
class Raw:
    """Text written as it is: a JSON token, or a CSV cell that is not quoted for it."""

    text: str


@dataclass
class Obj:
    """A JSON object as its pairs, so that a key can appear twice."""

    pairs: list


@dataclass
class Settings:
    """What the project's folio.toml says, as the reference needs it."""

    rating_typed: bool
    tags_declared: bool
    fallback: str  # "default", "null" or "error"
    delimiter: str = ","
    decimal: str = "."


@dataclass
class Case:
    seed: int
    shape: str
    file: str  # data/attractions.EXT
    settings: Settings
    config: str
    data: bytes = b""
    damage: list = field(default_factory=list)


def make(seed: int) -> Case:
    """The project of one seed."""
    rng = random.Random(seed)
    shape = rng.choice(sorted(SHAPES))
    ext = SHAPES[shape]
    if shape == "jsonl" and rng.random() < 0.3:
        ext = "ndjson"
    settings = Settings(
        rating_typed=rng.random() < 0.5,
        tags_declared=rng.random() < 0.6,
        fallback=rng.choices(["default", "null", "error"], [6, 2, 2])[0],
    )
    if shape == "csv-euro":
        settings.delimiter, settings.decimal = ";", ","
    case = Case(seed, shape, f"data/attractions.{ext}", settings, config(settings, rng))
    records = catalog(rng, settings, shape)
    # Half the seeds are damaged: mostly one kind, in the records or in the bytes, so that
    # what folio says of each kind shows on its own.
    damaged = rng.random() < 0.5
    mode = rng.random()
    structural, bytewise = damaged and mode < 0.65, damaged and mode >= 0.45
    if ext in ("csv", "tsv"):
        header, rows = table(rng, records, shape)
        if structural:
            header, rows = damage_table(rng, case, header, rows)
        text = write_table(header, rows, "\t" if ext == "tsv" else settings.delimiter, shape)
    else:
        ascii_only = rng.random() < 0.5
        tree = [json_record(rng, r) for r in records]
        if structural:
            tree = damage_tree(rng, case, tree)
        text = write_json(tree, shape, ascii_only)
    data = text.encode("utf-8", "surrogatepass")
    if bytewise:
        data = damage_bytes(rng, case, data, ext)
    case.data = data
    return case


def config(s: Settings, rng: random.Random) -> str:
    lines = [
        "[listing]",
        'languages = ["en", "de"]',
        'default_language = "en"',
        "page_sizes = [100]",
        "default_page_size = 100",
        'sort = ["id"]',
        "",
        "[fields.id]",
        'type = "integer"',
        "",
        "[fields.name]",
        "localized = true",
        "",
    ]
    if s.rating_typed:
        lines += ["[fields.rating]", 'type = "number"', ""]
    if s.tags_declared:
        lines += ["[fields.tags]", 'type = "list"', ""]
    if s.delimiter != "," or s.decimal != ".":
        lines += ["[input]", f'csv_delimiter = "{s.delimiter}"', f'decimal_separator = "{s.decimal}"', ""]
    if s.fallback != "default" or rng.random() < 0.3:
        lines += ["[i18n]", f'fallback = "{s.fallback}"', ""]
    lines += ["[hosting]", "targets = []", ""]
    return "\n".join(lines)


# --- the catalog ------------------------------------------------------------------------


def text(rng: random.Random, words: list) -> str:
    word = rng.choice(words)
    if rng.random() < 0.3:
        word += rng.choice(TRICKY)
    return word


def rating(rng: random.Random) -> str:
    """A rating as the text of a JSON number whose value a 64-bit float holds exactly
    enough to be written back the same."""
    return rng.choice(
        [
            f"{rng.randint(0, 5)}.{rng.randint(0, 9)}",
            f"{rng.randint(0, 5)}.{rng.randint(0, 99):02d}",
            str(rng.randint(0, 5)),
            "-1.25",
            "1E5",
            "2.5e-3",
            "1e2",
            "0.30000000000000004",
        ]
    )


def catalog(rng: random.Random, s: Settings, shape: str) -> list:
    """1 to 30 records as plain dicts; a key that is absent is a field the record lacks."""
    n = rng.randint(1, 30)
    ids = rng.sample(range(1, rng.choice([100, 10_000, 10_000_000])), n)
    with_tags = s.tags_declared and rng.random() < 0.8
    with_fr = rng.random() < 0.3
    records = []
    for i in ids:
        r = {"id": i}
        if rng.random() < 0.9:
            name = {}
            for lang in LANGUAGES + (("fr",) if with_fr else ()):
                if rng.random() < 0.8:
                    name[lang] = text(rng, NAMES[lang])
                elif rng.random() < 0.5:
                    name[lang] = None if rng.random() < 0.5 else ""
            r["name"] = name
        if rng.random() < 0.85:
            r["note"] = rng.choice([text(rng, TRICKY), "", None, rng.choice(NAMES["en"])])
        if rng.random() < 0.9:
            r["rating"] = None if rng.random() < 0.1 else rating(rng)
        if with_tags and rng.random() < 0.9:
            r["tags"] = rng.sample(TAGS, rng.randint(0, 3))
        records.append(r)
    return records


# --- JSON -----------------------------------------------------------------------------------


def json_record(rng: random.Random, r: dict) -> Obj:
    pairs = [("id", Raw(str(r["id"])))]
    if "name" in r:
        name = r["name"]
        plain = [v for v in name.values() if v]
        if len(plain) == 1 and len(name) == 1 and rng.random() < 0.3:
            pairs.append(("name", plain[0]))  # a plain value: every language
        else:
            keys = [k.upper() if rng.random() < 0.1 else k for k in name]
            pairs.append(("name", Obj([(k, v) for k, v in zip(keys, name.values())])))
    if "note" in r:
        pairs.append(("note", r["note"]))
    if "rating" in r:
        v = r["rating"]
        if v is None:
            pairs.append(("rating", None))
        elif rng.random() < 0.1:
            pairs.append(("rating", v))  # a string: typed fields refuse it, others keep it
        else:
            pairs.append(("rating", Raw(v)))
    if "tags" in r:
        pairs.append(("tags", r["tags"]))
    if rng.random() < 0.2:
        rng.shuffle(pairs)
    return Obj(pairs)


def dump(v, ascii_only: bool, indent=None, level=0, compact=False) -> str:
    """json.dumps's output for our values (Raw tokens and repeated keys included)."""
    if isinstance(v, Raw):
        return v.text
    if v is None or isinstance(v, (bool, str)):
        return json.dumps(v, ensure_ascii=ascii_only)
    if isinstance(v, Obj):
        colon = ":" if compact else ": "
        items = [
            dump(k, ascii_only) + colon + dump(x, ascii_only, indent, level + 1, compact) for k, x in v.pairs
        ]
        open_, close = "{", "}"
    else:
        items = [dump(x, ascii_only, indent, level + 1, compact) for x in v]
        open_, close = "[", "]"
    if not items:
        return open_ + close
    if indent is None:
        return open_ + ("," if compact else ", ").join(items) + close
    inner = "\n" + " " * (indent * (level + 1))
    return open_ + inner + ("," + inner).join(items) + "\n" + " " * (indent * level) + close


def write_json(tree: list, shape: str, ascii_only: bool) -> str:
    if shape == "json-line":
        return dump(tree, ascii_only)
    if shape == "json-pretty":
        return dump(tree, ascii_only, indent=2) + "\n"
    if shape == "json-rows":
        if not tree:
            return "[]\n"
        return "[\n" + ",\n".join(dump(r, ascii_only, compact=True) for r in tree) + "\n]\n"
    return "".join(dump(r, ascii_only, compact=True) + "\n" for r in tree)


# --- CSV and TSV -----------------------------------------------------------------------------


def table(rng: random.Random, records: list, shape: str):
    """Header and rows of cells (strings, or Raw for cells written unquoted as they are)."""
    langs = list(LANGUAGES)
    if any("fr" in r.get("name", {}) for r in records):
        langs.append("fr")
    columns = ["id"] + [f"name.{lang}" for lang in langs] + ["note", "rating"]
    if any("tags" in r for r in records):
        columns.append("tags")
    if rng.random() < 0.2:
        rng.shuffle(columns)
    # Language codes in any case (`name.EN` is English).
    header = ["name." + c[5:].upper() if c.startswith("name.") and rng.random() < 0.1 else c for c in columns]
    rows = []
    for r in records:
        row = []
        for c in columns:
            if c == "id":
                row.append(str(r["id"]))
            elif c.startswith("name."):
                row.append(r.get("name", {}).get(c[5:]) or "")
            elif c == "rating":
                v = r.get("rating") or ""
                row.append(v.replace(".", ",") if shape == "csv-euro" else v)
            elif c == "tags":
                row.append("|".join(r.get("tags") or []))
            else:
                row.append(r.get(c) or "")
        rows.append(row)
    return header, rows


def cell(v, delimiter: str) -> str:
    """RFC 4180, quoting only where needed (Python's csv.QUOTE_MINIMAL)."""
    if isinstance(v, Raw):
        return v.text
    if any(c in v for c in (delimiter, '"', "\r", "\n")):
        return '"' + v.replace('"', '""') + '"'
    return v


def write_table(header: list, rows: list, delimiter: str, shape: str) -> str:
    eol = "\n" if shape == "csv-lf" else "\r\n"
    lines = [delimiter.join(cell(v, delimiter) for v in row) for row in [header] + rows]
    out = "".join(line + eol for line in lines)
    if shape in ("csv-excel", "csv-euro"):
        out = BOM + out
    return out


# --- damage -------------------------------------------------------------------------------


def damage_table(rng: random.Random, case: Case, header: list, rows: list):
    # In this order: the ones that change the shape of a row or write Raw cells last.
    kinds = ["case-twin", "dup-column", "edge-number", "dup-id", "empty"]
    kinds += ["stray-quote", "unclosed-quote", "ragged"]
    for kind in sorted(rng.sample(kinds, rng.choice([1, 1, 1, 2])), key=kinds.index):
        if not header:
            break
        if kind == "case-twin":
            langs = [c for c in header if c.lower().startswith("name.")]
            if not langs:
                continue
            original = rng.choice(langs)
            j = header.index(original)
            twin = "name." + (original[5:].upper() if original[5:].islower() else original[5:].lower())
            at = rng.randint(0, len(header))
            header = header[:at] + [twin] + header[at:]
            cells = [rng.choice(["", "Twin", row[j] if j < len(row) else ""]) for row in rows]
            rows = [row[:at] + [c] + row[at:] for row, c in zip(rows, cells)]
            case.damage.append(f"case-twin column {twin!r} of {original!r}")
        elif kind == "dup-column":
            j = rng.randrange(len(header))
            header = header + [header[j]]
            rows = [row + [row[j] if rng.random() < 0.5 else "other"] for row in rows]
            case.damage.append(f"duplicate column {header[j]!r}")
        elif kind == "edge-number" and rows:
            row = rng.choice(rows)
            if rng.random() < 0.25:
                row[header.index("id")] = rng.choice(EDGE_IDS)
                case.damage.append(f"edge id {row[header.index('id')]}")
            elif "rating" in header:
                v = rng.choice(EDGE_NUMBERS)
                if case.settings.decimal == "," and rng.random() < 0.7:
                    v = v.replace(".", ",")
                row[header.index("rating")] = v
                case.damage.append(f"edge rating {v}")
        elif kind == "dup-id" and len(rows) > 1:
            a, b = rng.sample(range(len(rows)), 2)
            i = header.index("id")
            rows[b][i] = rows[a][i]
            case.damage.append(f"duplicate id {rows[a][i]} (rows {a + 1} and {b + 1})")
        elif kind == "ragged" and rows:
            k = rng.randrange(len(rows))
            if rng.random() < 0.5 and len(rows[k]) > 1:
                rows[k] = rows[k][:-1]
            else:
                rows[k] = rows[k] + ["extra"]
            case.damage.append(f"ragged row {k + 1}")
        elif kind == "stray-quote" and rows:
            k = rng.randrange(len(rows))
            j = rng.randrange(len(header))
            v = rows[k][j] if isinstance(rows[k][j], str) else "x"
            v = "".join(" " if c in ('"', "\n", "\r", "\t", case.settings.delimiter) else c for c in v)
            v = rng.choice([f'ab"{v}', f'"ab"{v}', f'{v}"c', f'"{v}" '])
            rows[k][j] = Raw(v)
            case.damage.append(f"stray quote in row {k + 1}: {v!r}")
        elif kind == "unclosed-quote":
            k = rng.randrange(len(rows) + 1)
            target = header if k == 0 else rows[k - 1]
            j = rng.randrange(len(target))
            v = target[j] if isinstance(target[j], str) else ""
            target[j] = Raw('"' + v.replace('"', ""))
            case.damage.append(f"unclosed quote at line-record {k + 1}, column {j + 1}")
        elif kind == "empty":
            choice = rng.choice(["header only", "nothing"])
            rows = []
            if choice == "nothing":
                header = []
            case.damage.append(f"empty: {choice}")
    return header, rows


def damage_tree(rng: random.Random, case: Case, tree: list) -> list:
    kinds = ["case-twin", "dup-key", "edge-number", "dup-id", "lone-surrogate", "empty"]
    for kind in rng.sample(kinds, rng.choice([1, 1, 1, 2])):
        if not tree:
            break
        rec = rng.choice(tree)
        keys = [k for k, _ in rec.pairs]
        if kind == "case-twin":
            if "name" in keys:
                i = keys.index("name")
                name = rec.pairs[i][1]
                if not isinstance(name, Obj):
                    name = Obj([("en", name)])
                    rec.pairs[i] = ("name", name)
                lang = rng.choice([k for k, _ in name.pairs] or ["en"])
                twin = rng.choice(sorted({lang.upper(), lang.lower(), lang.title()} - {lang}))
                at = rng.randint(0, len(name.pairs))
                name.pairs.insert(at, (twin, rng.choice(["Twin", None, ""])))
                case.damage.append(f"case-twin key name.{twin}")
        elif kind == "dup-key":
            i = rng.randrange(len(rec.pairs))
            k, v = rec.pairs[i]
            rec.pairs.insert(rng.randint(0, len(rec.pairs)), (k, v if rng.random() < 0.5 else "other"))
            case.damage.append(f"duplicate key {k!r}")
        elif kind == "edge-number":
            if rng.random() < 0.25:
                rec.pairs[keys.index("id")] = ("id", Raw(rng.choice(EDGE_IDS)))
                case.damage.append(f"edge id {rec.pairs[keys.index('id')][1].text}")
            else:
                v = rng.choice(EDGE_NUMBERS)
                key = "rating" if rng.random() < 0.8 else "note"
                set_key(rec, key, Raw(v))
                case.damage.append(f"edge {key} {v}")
        elif kind == "dup-id" and len(tree) > 1:
            other = rng.choice([r for r in tree if r is not rec])
            same = dict(other.pairs)["id"]
            set_key(rec, "id", same)
            case.damage.append(f"duplicate id {getattr(same, 'text', same)!r}")
        elif kind == "lone-surrogate":
            set_key(rec, "note", Raw(rng.choice(['"\\ud800"', '"x\\udc00y"', '"\\ud83c\\ud83c"'])))
            case.damage.append("lone surrogate escape in note")
        elif kind == "empty":
            tree = []
            case.damage.append("empty: no records")
    return tree


def set_key(rec: Obj, key: str, value) -> None:
    for i, (k, _) in enumerate(rec.pairs):
        if k == key:
            rec.pairs[i] = (key, value)
            return
    rec.pairs.append((key, value))


def damage_bytes(rng: random.Random, case: Case, data: bytes, ext: str) -> bytes:
    kinds = ["bom", "nul", "invalid-utf8", "newlines", "trailing-comma", "truncate", "quote"]
    for kind in rng.sample(kinds, rng.choice([1, 1, 1, 2])):
        at = rng.randint(0, len(data))
        if kind == "bom":
            where = rng.choice(["start", "twice", "line", "anywhere"])
            if where == "start":
                at = 0
            elif where == "twice":
                data, at = (data if data.startswith(BOM.encode()) else BOM.encode() + data), 0
            elif where == "line":
                starts = [i + 1 for i in range(len(data)) if data[i : i + 1] == b"\n"]
                at = rng.choice(starts) if starts else 0
            data = data[:at] + BOM.encode() + data[at:]
            case.damage.append(f"BOM ({where}) at byte {at}")
        elif kind == "nul":
            data = data[:at] + b"\x00" + data[at:]
            case.damage.append(f"NUL at byte {at}")
        elif kind == "invalid-utf8":
            bad = rng.choice(BAD_UTF8)
            data = data[:at] + bad + data[at:]
            case.damage.append(f"invalid UTF-8 {bad!r} at byte {at}")
        elif kind == "newlines":
            parts = data.replace(b"\r\n", b"\n").split(b"\n")
            ends = [rng.choice([b"\n", b"\r\n", b"\r"]) for _ in parts[:-1]]
            data = b"".join(p + e for p, e in zip(parts, ends)) + parts[-1]
            case.damage.append("line ends mixed (LF, CRLF, CR)")
        elif kind == "trailing-comma":
            if ext in ("csv", "tsv"):
                d = (b"\t" if ext == "tsv" else case.settings.delimiter.encode())
                lines = data.split(b"\n")
                pick = rng.sample(range(len(lines)), rng.randint(1, len(lines)))
                for i in pick:
                    cr = lines[i].endswith(b"\r")
                    lines[i] = (lines[i][:-1] if cr else lines[i]) + d + (b"\r" if cr else b"")
                data = b"\n".join(lines)
                case.damage.append(f"trailing delimiter on {len(pick)} line(s)")
            else:
                closers = [i for i in range(len(data)) if data[i : i + 1] in (b"]", b"}")]
                if closers:
                    at = rng.choice(closers)
                    data = data[:at] + b"," + data[at:]
                    case.damage.append(f"trailing comma at byte {at}")
        elif kind == "truncate" and data:
            at = rng.randint(len(data) // 2, len(data) - 1)
            data = data[:at]
            case.damage.append(f"cut at byte {at}")
        elif kind == "quote":
            if ext in ("csv", "tsv"):
                data = data[:at] + b'"' + data[at:]
                case.damage.append(f"quote inserted at byte {at}")
            else:
                quotes = [i for i in range(len(data)) if data[i : i + 1] == b'"']
                if quotes:
                    at = rng.choice(quotes)
                    data = data[:at] + data[at + 1 :]
                    case.damage.append(f"quote removed at byte {at}")
    return data
