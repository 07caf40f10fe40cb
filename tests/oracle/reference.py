"""The oracle's reference: Python's own `csv` and `json` read a data file, and a small
model of what docs/config.md says folio publishes turns what they read into the items
folio must publish, or into the problems folio must name (each with the lines where a
fair reader may name it).

It shares nothing with folio's loader. Where the docs are silent about what a file
means, the model is conservative and says so (`basis = "decision"`); see README.md here
for the list.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

BOM = b"\xef\xbb\xbf"
LANGUAGES = ("en", "de")
DEFAULT = "en"
I64 = (-(2**63), 2**63 - 1)
U64_MAX = 2**64 - 1
MIN_NORMAL = 2.2250738585072014e-308
# ASCII digits only: `\d` would take other scripts' digits too.
INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
LOOSE_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
PLAIN_NAME = re.compile(r"[a-z][a-z0-9_]*")
LANGUAGE_CODE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")
ANY_EOL = re.compile(r"\r\n|\r|\n")  # how Python's csv (newline="") ends a line


@dataclass
class Num:
    """A number folio must publish: exactly `value`, or (`nearest`) the 64-bit float
    nearest to it, which is what a field typed `number` takes."""

    value: Decimal
    nearest: bool = False


@dataclass
class Loc:
    """A localized field as read: its values by lower-case language code, or one value
    shared by every language (a plain JSON value)."""

    values: dict
    shared: bool = False
    value: object = None


@dataclass
class Problem:
    kind: str
    what: str
    lo: int  # folio must name a line in lo..hi
    hi: int
    field: str | None = None  # and, when set, this field
    basis: str = "docs"  # "decision": docs silent, the oracle is conservative
    # The problems of one record share a group: a reader that refuses a record may name
    # only one of them (fixing it shows the next). A duplicate id has none: always named.
    group: int | None = None
    token: str | None = None  # text folio's message must hold to name it (`NaN`, the number)

    def __str__(self):
        where = f"line {self.lo}" if self.lo == self.hi else f"lines {self.lo}-{self.hi}"
        name = f" {self.field}:" if self.field else ""
        basis = "" if self.basis == "docs" else f" [{self.basis}]"
        return f"{where}:{name} {self.kind}: {self.what}{basis}"


@dataclass
class Record:
    lo: int
    hi: int
    fields: list  # (key, value) in source order
    id: int | None = None


@dataclass
class Reading:
    """What the reference read from one file, under one reading of its bytes."""

    how: str
    records: list = field(default_factory=list)
    # The reader refused the file here (a syntax error, bytes that are no UTF-8) and read
    # no further.
    stop: Problem | None = None
    # What the reader refuses and reads past (NaN, a repeated key, a ragged row): a reader
    # may stop at any of these, so folio must name one of the problems found.
    refusals: list = field(default_factory=list)
    # What is wrong with a CSV header: always named (its rows are not judged).
    header: list = field(default_factory=list)
    # What the model refuses in records read: each named, with its field.
    problems: list = field(default_factory=list)
    may_refuse: list = field(default_factory=list)  # why folio may refuse what the model takes
    skip_keys: set = field(default_factory=set)  # keys the model cannot say the value of
    header_lines: tuple = (0, 0)  # a CSV header's lines, from 1 (blank lines before it)
    groups: int = 0  # records judged so far

    @property
    def valid(self) -> bool:
        return self.stop is None and not (self.refusals or self.header or self.problems)

    def all_problems(self) -> list:
        return ([self.stop] if self.stop else []) + self.header + self.refusals + self.problems


def read(data: bytes, ext: str, settings) -> list:
    """Every fair reading of the file (usually one)."""
    readings = [read_one(data, ext, settings, strip_all_boms=False)]
    if data.startswith(BOM + BOM):
        readings.append(read_one(data, ext, settings, strip_all_boms=True))
    return readings


def read_one(data: bytes, ext: str, settings, strip_all_boms: bool) -> Reading:
    body = data[3:] if data.startswith(BOM) else data
    how = "one BOM stripped" if body is not data else "no BOM"
    if strip_all_boms:
        while body.startswith(BOM):
            body = body[3:]
        how = "every leading BOM stripped (a second BOM is not the file's to keep)"
    tabular = ext in ("csv", "tsv")
    try:
        text, bad = body.decode("utf-8"), None
    except UnicodeDecodeError as e:
        # Refused; the rest is read with the bad bytes kept as lone surrogates, so that
        # the problems around them are known too (a reader may name those first).
        text, bad = body.decode("utf-8", "surrogateescape"), e
    if tabular:
        delimiter = "\t" if ext == "tsv" else settings.delimiter
        reading = read_table(text, delimiter, settings)
    elif ext == "json":
        reading = read_array(text, settings)
    else:
        reading = read_lines(text, settings)
    reading.how = f"{how}; {reading.how}"
    if bad:
        before = body[: bad.start].decode("utf-8")
        line = (len(ANY_EOL.findall(before)) if tabular else before.count("\n")) + 1
        spans = [(r.lo, r.hi) for r in reading.records] + [reading.header_lines]
        spans += [(p.lo, p.hi) for p in reading.all_problems()]
        lo = min([a for a, b in spans if a <= line <= b] + [line])
        what = f"bytes {body[bad.start:bad.end + 2]!r} are not UTF-8"
        reading.refusals.insert(0, Problem("invalid-utf8", what, lo, line))
        reading.how += " (bytes that are no UTF-8 kept as surrogates)"
    nul = body.find(b"\x00")
    if nul >= 0:
        # Docs (data.md): a file is read up to its first NUL byte, which no text file
        # holds, and refused there at its line.
        before = body[:nul].decode("utf-8", "surrogateescape")
        line = (len(ANY_EOL.findall(before)) if tabular else before.count("\n")) + 1
        stop = Problem("nul", "a NUL byte: the file is read no further", line, line)
        if reading.stop is None:
            reading.stop = stop
        else:
            reading.refusals.insert(0, stop)
    if not reading.header:
        duplicate_ids(reading)
    return reading


def duplicate_ids(reading: Reading) -> None:
    first = {}
    for r in reading.records:
        if r.id is None:
            continue
        if r.id in first:
            f = first[r.id]
            what = f"id {r.id} again (first at line {f.lo})"
            reading.problems.append(Problem("duplicate-id", what, f.lo, r.hi, "id", token=str(r.id)))
        else:
            first[r.id] = r


# --- numbers (docs/config.md, "How values are read") -----------------------------------------


def number(text: str, typed: bool, field_name: str, lo: int, hi: int):
    """The JSON number `text` as folio must publish it: a Num, or a Problem."""
    value = Decimal(text)
    if INTEGER.fullmatch(text) and I64[0] <= int(text) <= U64_MAX:
        return Num(value)  # a 64-bit integer, kept exactly
    f = float(text)
    if math.isinf(f):
        return Problem("not-finite", f"{text} is past a 64-bit float", lo, hi, field_name)
    if Decimal(repr(f)) == value:
        return Num(value)  # a float writes it back as the same value
    if typed:
        # Docs: a field declared `type = "number"` takes the nearest 64-bit value, for a
        # number with too many digits and for one too small alike.
        return Num(value, nearest=True)
    if value != 0 and abs(f) < MIN_NORMAL:
        # Docs: "one too small for a 64-bit float, which would come out as 0 (1e-400) or
        # with fewer digits (2.5e-324 as 5e-324)" is a problem.
        what = f"{text} would come out as {repr(f)}"
        return Problem("underflow", what, lo, hi, field_name, "docs", token=text)
    return Problem("too-many-digits", f"{text} would come out as {repr(f)}", lo, hi, field_name, token=text)


# --- CSV and TSV ------------------------------------------------------------------------------


def read_table(text: str, delimiter: str, settings) -> Reading:
    reading = Reading(f"csv.reader(delimiter={delimiter!r}, strict=True)")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows, before = [], 0
    try:
        for cells in reader:
            if cells:  # a blank line is no record
                rows.append((before + 1, reader.line_num, cells))
            before = reader.line_num
    except csv.Error as e:
        start, end = (before + 1 if rows else 1), reader.line_num
        if "unexpected end of data" in str(e):
            opened = quote_opened(text, delimiter, start) or end
            reading.stop = Problem("unclosed-quote", f"a quoted cell never closes ({e})", start, opened)
        else:
            reading.stop = Problem("text-after-quote", str(e), start, end)
    if not rows:
        return reading
    (hlo, hhi, header), body = rows[0], rows[1:]
    reading.header_lines = (1, hhi)
    columns = table_columns(header, hlo, hhi, delimiter, reading)
    if reading.header:
        return reading
    for lo, hi, cells in body:
        record = table_record(columns, cells, lo, hi, settings, reading)
        if record:
            reading.records.append(record)
    return reading


def quote_opened(text: str, delimiter: str, line: int) -> int | None:
    """The line where the quoted cell that runs to the end of `text` opened, scanning RFC
    4180 from the start of `line` (where csv.reader began the record it could not end)."""
    starts = [0] + [m.end() for m in ANY_EOL.finditer(text)]
    if line > len(starts):
        return None
    i, at_start, quoted, opened = starts[line - 1], True, False, None
    while i < len(text):
        c = text[i]
        if quoted:
            if c == '"':
                if text.startswith('"', i + 1):
                    i += 1
                else:
                    quoted, at_start = False, False
        elif c == '"' and at_start:
            quoted, opened = True, i
        else:
            at_start = c in (delimiter, "\r", "\n")
        i += 1
    if not quoted or opened is None:
        return None
    return len(ANY_EOL.findall(text, 0, opened)) + 1


def table_columns(header: list, lo: int, hi: int, delimiter: str, reading: Reading) -> list:
    """(column, field, language or None) for each column; header problems into `reading`."""

    def refuse(kind, what, field_name=None, basis="docs"):
        # From line 1: a reader may count blank lines before the header as its own.
        reading.header.append(Problem(kind, what, 1, hi, field_name, basis))

    if len(header) == 1 and any(d in header[0] for d in ",;\t|" if d != delimiter):
        refuse("one-column-header", f"{header[0]!r} holds another delimiter than {delimiter!r}")
    columns, seen, languages = [], set(), {}
    for j, name in enumerate(header):
        if name == "":
            refuse("empty-column-name", f"column {j + 1} has no name", None, "decision")
        elif name in seen:
            refuse("duplicate-column", f"{name!r} appears twice", name.split(".")[0], "decision")
        seen.add(name)
        head, dot, rest = name.partition(".")
        if name == "name":
            # The localized field without a language: a value for every language, unless
            # a language's column says otherwise, which is not the file's to decide.
            if any(h.startswith("name.") for h in header):
                refuse("name-conflict", "a `name` column beside `name.LANG` columns", "name", "decision")
            reading.may_refuse.append("column 'name': a localized field without a language")
            columns.append((name, "name", "*"))
        elif head == "name" and dot:
            lang = rest.lower()
            # Two columns of one configured language; an unconfigured one is published in
            # neither spelling, so nothing is merged or lost.
            if lang in languages and lang in LANGUAGES:
                refuse("case-twin", f"{name!r} is the language of {languages[lang]!r}", "name")
            languages.setdefault(lang, name)
            if not LANGUAGE_CODE.fullmatch(rest):
                reading.may_refuse.append(f"column {name!r}: not a language code")
            columns.append((name, "name", lang))
        else:
            if not PLAIN_NAME.fullmatch(head) or (dot and not PLAIN_NAME.fullmatch(rest)):
                reading.may_refuse.append(f"column {name!r}: not a plain field name")
            columns.append((name, name, None))
    # A dotted column of a field that is not localized nests (`location.lat`); the model
    # keeps one level and does not judge a field that is both plain and nested.
    plain = {c for c, f, lang in columns if "." not in f and lang is None}
    for c, f, lang in columns:
        head, dot, rest = f.partition(".")
        if lang is None and dot and (head in plain or head == "name" or "." in rest):
            reading.may_refuse.append(f"column {c!r}: nests into a field that is also plain")
            reading.skip_keys.add(head)
    return columns


def table_record(columns: list, cells: list, lo: int, hi: int, settings, reading: Reading):
    if len(cells) != len(columns):
        what = f"{len(cells)} cells, the header has {len(columns)}"
        reading.refusals.append(Problem("ragged-row", what, lo, hi, None, "decision"))
        return None
    record = Record(lo, hi, [])
    values = dict()  # field -> value, in first-seen order
    first = len(reading.problems)

    def problem(kind, what, field_name, basis="docs"):
        reading.problems.append(Problem(kind, what, lo, hi, field_name, basis))

    for (column, f, lang), c in zip(columns, cells):
        value = None if c == "" else c
        if lang == "*":
            values["name"] = Loc({}, shared=True, value=value)
        elif lang is not None:
            values.setdefault("name", Loc({})).values[lang] = value
        elif f == "id":
            values["id"] = value
            if value is None:
                problem("id-required", "empty id", "id")
            elif not INTEGER.fullmatch(value):
                problem("id-not-integer", f"{value!r} is not an integer", "id")
            elif not I64[0] <= int(value) <= I64[1]:
                problem("id-range", f"{value} is past a signed 64-bit integer", "id")
            else:
                record.id = int(value)
                values["id"] = Num(Decimal(value))
        elif f == "rating" and settings.rating_typed and value is not None:
            values[f] = csv_number(value, settings.decimal, lo, hi, reading)
        elif f == "tags" and settings.tags_declared and value is not None:
            values[f] = value.split("|")
        elif "." in f:
            head, _, rest = f.partition(".")
            nested = values.setdefault(head, {})
            if isinstance(nested, dict):
                nested[rest] = value
        else:
            values[f] = value
    if "id" not in values:
        problem("id-required", "no id column", "id")
    if "name" in values:
        translations(values["name"], settings, lo, hi, reading)
    record.fields = list(values.items())
    one_record(reading, reading.problems[first:])
    return record


def one_record(reading: Reading, problems: list) -> None:
    reading.groups += 1
    for p in problems:
        p.group = reading.groups


def csv_number(cell: str, decimal: str, lo: int, hi: int, reading: Reading):
    text = cell
    if decimal == ",":
        if text.count(",") + text.count(".") > 1:
            what = f"{cell!r} holds two decimal marks"
            reading.problems.append(Problem("two-marks", what, lo, hi, "rating"))
            return None
        text = text.replace(",", ".")
    if not JSON_NUMBER.fullmatch(text):
        if not LOOSE_NUMBER.fullmatch(text):
            # Docs: finite decimals, a cell read as the same text in JSON.
            what = f"{cell!r} is no JSON number"
            reading.problems.append(Problem("not-a-number", what, lo, hi, "rating"))
            return None
        # Docs: a leading `+`, leading zeros and a point with no digits on one side
        # (`+7`, `007`, `.5`, `3.`) are read as the decimal they write.
        text = json_number(text)
    n = number(text, True, "rating", lo, hi)
    if isinstance(n, Problem):
        if n.kind == "not-finite":
            n.kind = "not-a-number"
        n.token = cell
        reading.problems.append(n)
        return None
    return n


def json_number(loose: str) -> str:
    """The JSON number a loosely written decimal (`+007.`, `-.5e3`) writes."""
    m = re.fullmatch(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eE][+-]?[0-9]+)?", loose)
    sign, whole, fraction, exponent = m.groups()
    whole = whole.lstrip("0") or "0"
    text = ("-" if sign == "-" else "") + whole
    if fraction is not None:
        text += "." + (fraction or "0")
    return text + (exponent or "")


def translations(loc: Loc, settings, lo: int, hi: int, reading: Reading) -> None:
    """With `[i18n] fallback = "error"`, each missing translation is a problem."""
    if settings.fallback != "error":
        return
    for lang in LANGUAGES:
        if not present(own(loc, lang)):
            reading.problems.append(Problem("missing-translation", f"no {lang!r} value", lo, hi, "name"))


def present(v) -> bool:
    return v is not None and v != ""


def own(loc: Loc, lang: str):
    return loc.value if loc.shared else loc.values.get(lang)


def resolve(loc: Loc, lang: str, fallback: str):
    """A localized field's value on the page of `lang` (docs: [i18n] fallback)."""
    v = own(loc, lang)
    if present(v):
        return v
    if fallback == "default":
        d = own(loc, DEFAULT)
        return d if present(d) else None
    return None


# --- JSON -----------------------------------------------------------------------------------


class Pairs(list):
    """A JSON object as its (key, value) pairs: object_pairs_hook keeps repeated keys, and
    the reader refuses them below, with the lines of the record that holds them."""


@dataclass
class Number:
    text: str  # the token as written: Decimal(text) is its value


@dataclass
class Constant:
    text: str  # NaN, Infinity, -Infinity: no JSON


# Numbers keep their text (Decimal(text) is their value) and constants are kept to be
# refused with the lines of their record; strict: a raw control character in a string
# is an error.
DECODER = json.JSONDecoder(
    object_pairs_hook=Pairs, parse_float=Number, parse_int=Number, parse_constant=Constant, strict=True
)
WHITESPACE = " \t\n\r"


def skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in WHITESPACE:
        i += 1
    return i


def line_of(text: str, i: int) -> int:
    return text.count("\n", 0, i) + 1


def refusal(v):
    """Why the reader refuses a parsed JSON value, first in document order, or None:
    (kind, what, the text folio's message must hold or None)."""
    if isinstance(v, Constant):
        return "nan", f"{v.text} is no JSON (write null for no value)", v.text.lstrip("-")
    if isinstance(v, Number) and math.isinf(float(v.text)):
        return "not-finite", f"{v.text} is past a 64-bit float", None
    if isinstance(v, str) and any("\ud800" <= c <= "\udfff" for c in v):
        return "lone-surrogate", f"{v!r} holds half a UTF-16 pair", None
    if isinstance(v, Pairs):
        seen = set()
        for k, x in v:
            why = refusal(k)
            if why:
                return why
            if k in seen:
                return "duplicate-key", f"key {k!r} twice in one object", None
            seen.add(k)
            why = refusal(x)
            if why:
                return why
    if isinstance(v, list) and not isinstance(v, Pairs):
        for x in v:
            why = refusal(x)
            if why:
                return why
    return None


def read_array(text: str, settings) -> Reading:
    """A JSON file: one array of objects. Walked element by element (json's raw_decode)
    so that each record has its lines, and a refusal the lines of where it is."""
    reading = Reading("json array, element by element")
    i = skip(text, 0)
    if not text.startswith("[", i):
        try:
            DECODER.decode(text)
            end = line_of(text, len(text))
            reading.stop = Problem("not-an-array", "the file is not a JSON array", 1, end)
        except json.JSONDecodeError as e:
            reading.stop = Problem("json-syntax", e.msg, 1, line_of(text, e.pos))
        return reading
    last = i  # where the previous element (or the `[`) ended
    i = skip(text, i + 1)
    if text.startswith("]", i):
        i += 1
    else:
        while True:
            try:
                value, end = DECODER.raw_decode(text, i)
            except json.JSONDecodeError as e:
                reading.stop = Problem("json-syntax", e.msg, line_of(text, last), line_of(text, e.pos))
                return reading
            lo, hi = line_of(text, i), line_of(text, end - 1)
            json_element(value, lo, hi, settings, reading)
            last = end
            i = skip(text, end)
            if text.startswith(",", i):
                i = skip(text, i + 1)
                continue
            if text.startswith("]", i):
                i += 1
                break
            what = "expected , or ] after an element"
            reading.stop = Problem("json-syntax", what, line_of(text, last), line_of(text, i))
            return reading
    i = skip(text, i)
    if i != len(text):
        reading.stop = Problem("json-syntax", "data after the array", line_of(text, last), line_of(text, i))
    return reading


def read_lines(text: str, settings) -> Reading:
    """JSON Lines: one object a line ("\\n"; a "\\r" before it is JSON whitespace); a blank
    line is no record."""
    reading = Reading("json lines, json.JSONDecoder a line")
    for n, line in enumerate(text.split("\n"), start=1):
        i = skip(line, 0)
        if i == len(line):
            continue
        try:
            value, end = DECODER.raw_decode(line, i)
        except json.JSONDecodeError as e:
            reading.stop = Problem("json-syntax", e.msg, n, n)
            return reading
        if skip(line, end) != len(line):
            reading.stop = Problem("json-syntax", "data after the object on its line", n, n)
            return reading
        json_element(value, n, n, settings, reading)
    return reading


def json_element(value, lo: int, hi: int, settings, reading: Reading) -> None:
    """Reads one element into a record, or into a refusal."""
    why = refusal(value)
    if why is None and not isinstance(value, Pairs):
        why = "not-an-object", "an element that is not an object", None
    if why:
        kind, what, token = why
        reading.refusals.append(Problem(kind, what, lo, hi, token=token))
        return
    record = Record(lo, hi, [])
    first = len(reading.problems)

    def problem(kind, what, field_name, basis="docs"):
        reading.problems.append(Problem(kind, what, lo, hi, field_name, basis))

    for key, v in value:
        if key == "id":
            if v is None:
                problem("id-required", "id is null", "id")
            elif not isinstance(v, Number) or not INTEGER.fullmatch(v.text):
                problem("id-not-integer", f"{plain(v)!r} is not an integer", "id")
            elif not I64[0] <= int(v.text) <= I64[1]:
                problem("id-range", f"{v.text} is past a signed 64-bit integer", "id")
            else:
                record.id = int(v.text)
            record.fields.append((key, Num(Decimal(v.text)) if record.id is not None else None))
        elif key == "name":
            record.fields.append((key, json_localized(v, lo, hi, settings, reading)))
        elif key == "rating" and settings.rating_typed and v is not None:
            if not isinstance(v, Number):
                problem("not-a-number", f"{plain(v)!r} is not a JSON number", "rating")
            record.fields.append((key, untyped(v, key, True, lo, hi, reading)))
        elif key == "tags" and settings.tags_declared and v is not None:
            if not isinstance(v, list) or isinstance(v, Pairs) or not all(isinstance(x, str) for x in v):
                problem("not-a-list", f"{plain(v)!r} is not a list of strings", "tags", "decision")
            record.fields.append((key, untyped(v, key, False, lo, hi, reading)))
        else:
            if not PLAIN_NAME.fullmatch(key):
                reading.may_refuse.append(f"key {key!r}: not a plain field name")
            record.fields.append((key, untyped(v, key, False, lo, hi, reading)))
    if "id" not in [k for k, _ in value]:
        problem("id-required", "no id", "id")
    one_record(reading, reading.problems[first:])
    reading.records.append(record)


def json_localized(v, lo: int, hi: int, settings, reading: Reading) -> Loc:
    if isinstance(v, Pairs):
        loc, first = Loc({}), {}
        for k, x in v:
            lang = k.lower()
            if lang in first and lang in LANGUAGES:
                what = f"keys {first[lang]!r} and {k!r} are one language"
                reading.problems.append(Problem("case-twin", what, lo, hi, "name"))
            first.setdefault(lang, k)
            if not LANGUAGE_CODE.fullmatch(k):
                reading.may_refuse.append(f"name key {k!r}: not a language code")
            loc.values[lang] = untyped(x, "name", False, lo, hi, reading)
    else:
        loc = Loc({}, shared=True, value=untyped(v, "name", False, lo, hi, reading))
    translations(loc, settings, lo, hi, reading)
    return loc


def untyped(v, key: str, typed: bool, lo: int, hi: int, reading: Reading):
    """A JSON value as folio must publish it (numbers judged, objects as dicts)."""
    if isinstance(v, Number):
        n = number(v.text, typed, key, lo, hi)
        if isinstance(n, Problem):
            reading.problems.append(n)
            return None
        return n
    if isinstance(v, Pairs):
        return {k: untyped(x, key, False, lo, hi, reading) for k, x in v}
    if isinstance(v, list):
        return [untyped(x, key, False, lo, hi, reading) for x in v]
    return v


def plain(v):
    """A parsed value for a message."""
    if isinstance(v, Number):
        return v.text
    return v


# --- the pages --------------------------------------------------------------------------------


def items(reading: Reading, lang: str, fallback: str) -> list:
    """The items of the page of `lang`: every record, sorted by id, its localized field
    resolved to `lang`."""
    out = []
    for r in sorted(reading.records, key=lambda r: r.id):
        item = {}
        for k, v in r.fields:
            if k in reading.skip_keys:
                continue
            item[k] = resolve(v, lang, fallback) if isinstance(v, Loc) else v
        out.append(item)
    return out
