#!/usr/bin/env python3
"""The job folio does, written the obvious way in Python: the peer in scripts/bench.sh.

    python3 scripts/naive.py DATA.json OUT_DIR

Reads the benchmark's records (one JSON array, examples/gen.rs), sorts them by id,
resolves each localized field per language (the default language's value when one is
missing), slices every language and page size into pages in folio's standard envelope,
and writes one compact JSON file per page: OUT_DIR/api/{lang}/attractions/{size}/{page}.json
and the default language again under OUT_DIR/api/attractions/... . No validation, no
error documents, no host configs: a lower bound for what a hand-written script costs.
"""

import json
import os
import sys

LANGUAGES = ["en", "fr", "de", "ja"]
DEFAULT = "en"
SIZES = [10, 20, 50, 100]
DEFAULT_SIZE = 10
LOCALIZED = {"name", "description"}
RESOURCE = "attractions"


def resolve(record, lang):
    out = {}
    for key, value in record.items():
        if key in LOCALIZED and isinstance(value, dict):
            v = value.get(lang)
            out[key] = v if v not in (None, "") else value.get(DEFAULT)
        else:
            out[key] = value
    return out


def url(prefix, page, size):
    return f"/api/{prefix}{RESOURCE}?page={page}&per_page={size}"


def main():
    data_path, out_dir = sys.argv[1], sys.argv[2]
    with open(data_path, encoding="utf-8") as f:
        records = json.load(f)
    records.sort(key=lambda r: r["id"])
    total = len(records)
    for lang in LANGUAGES:
        items = [resolve(r, lang) for r in records]
        prefixes = [f"{lang}/"] + ([""] if lang == DEFAULT else [])
        for size in SIZES:
            pages = max(1, -(-total // size))
            for page in range(1, pages + 1):
                for prefix in prefixes:
                    body = {
                        "page": page,
                        "per_page": size,
                        "total": total,
                        "total_pages": pages,
                        "data": items[(page - 1) * size : page * size],
                        "links": {
                            "first": url(prefix, 1, size),
                            "prev": url(prefix, page - 1, size) if page > 1 else None,
                            "next": url(prefix, page + 1, size) if page < pages else None,
                            "last": url(prefix, pages, size),
                        },
                    }
                    folder = os.path.join(out_dir, "api", prefix, RESOURCE, str(size))
                    os.makedirs(folder, exist_ok=True)
                    with open(os.path.join(folder, f"{page}.json"), "w", encoding="utf-8") as f:
                        f.write(json.dumps(body, separators=(",", ":"), ensure_ascii=False))


if __name__ == "__main__":
    main()
