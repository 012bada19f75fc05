"""Shared helpers: CSV reading/writing, deterministic number formatting, hashing, note/flag joining,
exact-duplicate removal and point-id assignment."""

import csv
import hashlib
import os


def sha1(text):
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_csv_with_lines(path):
    """Rows as dicts plus the 1-based physical line where each row starts."""
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = None
        last_end = 0
        for rec in reader:
            start = last_end + 1
            last_end = reader.line_num
            if header is None:
                header = rec
                continue
            out.append((dict(zip(header, rec)), start))
    return out


def fmt(x, sig=7):
    """Deterministic formatting of a derived number."""
    if x is None or x == "":
        return ""
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError("non-finite derived value")
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return "%.*g" % (sig, x)


def ms_to_s(s):
    return fmt(float(s) / 1e3, 10)


def us_to_s(s):
    return fmt(float(s) / 1e6, 10)


def to_int(s):
    s = (s or "").strip()
    if s == "":
        return None
    try:
        return int(s)
    except ValueError:
        v = float(s)
        if v == int(v):
            return int(v)
        raise


def to_float(s):
    s = (s or "").strip()
    return None if s == "" else float(s)


def join_notes(parts):
    seen = []
    for p in parts:
        p = (p or "").strip()
        if p and p not in seen:
            seen.append(p)
    return "; ".join(seen)


def join_flags(flags):
    out = []
    for f in flags:
        for t in (f or "").split(";"):
            t = t.strip()
            if t and t not in out:
                out.append(t)
    return ";".join(out)


def write_csv(path, columns, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([r.get(c, "") for c in columns])


def files_identical(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def is_power_of_two(v):
    return v > 0 and (v & (v - 1)) == 0


def dedupe(rows, columns, id_col):
    """Drop rows that are identical in every output column except the id."""
    seen = set()
    out = []
    dropped = 0
    for r in rows:
        sig = tuple(str(r.get(c, "")) for c in columns if c != id_col)
        if sig in seen:
            dropped += 1
            continue
        seen.add(sig)
        out.append(r)
    return out, dropped


def assign_point_ids(rows, keyfn, prefix):
    seen = {}
    for r in rows:
        pid = "%s-%s" % (prefix, sha1(keyfn(r))[:12])
        if pid in seen:
            raise SystemExit("point_id collision: %s" % keyfn(r))
        seen[pid] = True
        r["point_id"] = pid


def published_ref(x):
    """repo@commit:path[:line] of a shared-data record (every source table carries these columns)."""
    ref = "%s@%s:%s" % (x["source_repo"], x["source_commit"], x["source_path"])
    if x.get("source_line"):
        ref += ":" + x["source_line"]
    return ref
