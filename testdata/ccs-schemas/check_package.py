#!/usr/bin/env python3
"""Validates a contest package written by `ojd contest export` (its JSON documents and every
line of its event feed) against the standard's JSON schemas of release 2023-06, plain and
strict (no property a schema does not define), as check.py validates the live Contest API.

Usage: OJD_CCS_SPECS=<clone of icpc/ccs-specs> check_package.py PACKAGE_DIR
Needs Python's jsonschema (4.18 or later). Exits 1 on any error, naming the file and line."""
import json, os, subprocess, sys, tempfile
from decimal import Decimal
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

pkg = sys.argv[1]
SPECS = os.environ.get("OJD_CCS_SPECS") or sys.exit("OJD_CCS_SPECS: a clone of icpc/ccs-specs")
VERSION = "2023-06"
TMP = tempfile.mkdtemp()
tar = subprocess.run(["git", "-C", SPECS, "archive", VERSION, "json-schema"], check=True, capture_output=True).stdout
subprocess.run(["tar", "-x", "-C", TMP], input=tar, check=True)

# File of the package -> schema of its document (a collection's schema is its plural name).
FILES = {"contest.json": "contest.json", "state.json": "state.json", "scoreboard.json": "scoreboard.json"}
for coll in ["judgement-types", "languages", "problems", "groups", "organizations", "teams", "accounts",
             "submissions", "judgements", "runs", "clarifications", "awards"]:
    FILES[coll + ".json"] = coll + ".json"
errors = 0


def loads(text):
    """JSON with its numbers as decimals: with floats, `multipleOf: 0.001` refuses 0.043."""
    return json.loads(text, parse_float=Decimal)


def load(strict):
    d = f"{TMP}/json-schema"
    res = []
    for f in os.listdir(d):
        text = open(os.path.join(d, f)).read()
        if strict:
            text = text.replace('"$comment": "ANCHOR_TO_INSERT_REQUIRE_STRICT_PROPERTIES"', '"additionalProperties": false')
        res.append((f, loads(text)))
    reg = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for _, s in res])
    return {f: s for f, s in res}, reg


def check(schemas, reg, strict, name, value, where):
    global errors
    for e in Draft202012Validator(schemas[name], registry=reg).iter_errors(value):
        errors += 1
        print(f"{VERSION}{' strict' if strict else ''} {where}: {e.message[:300]} at {list(e.absolute_path)}")


for strict in [False, True]:
    schemas, reg = load(strict)
    for file, schema in FILES.items():
        path = os.path.join(pkg, file)
        if os.path.exists(path):
            check(schemas, reg, strict, schema, loads(open(path).read()), file)
    feed = os.path.join(pkg, "event-feed.ndjson")
    if os.path.exists(feed):
        for i, line in enumerate(open(feed)):
            if line.strip():
                check(schemas, reg, strict, "event-feed.json", loads(line), f"event-feed.ndjson line {i + 1}")
print(f"package schema check: {errors} errors")
sys.exit(1 if errors else 0)
