#!/usr/bin/env python3
"""Validates a live ojd's Contest API, releases 2023-06 (/api) and 2026-01 (/api/2026-01),
against each release's JSON schemas, plain and strict (no property a schema does not define):
every endpoint and every event-feed line, as the public, an admin and a team.

The schemas are not in this repository (the standard's repository has no licence): give a
clone of icpc/ccs-specs (with its tags 2023-06 and 2026-01) as OJD_CCS_SPECS. Run by the
conformance test (OJD_CCS_CHECK names this file; the test gives the base URL and the stage);
the tokens are the test daemon's. Needs Python's jsonschema (4.18 or later).

The 2026-01 tag's clarification schema still has 2023-06's `to_team_id`, which its text
replaced by `to_team_ids` and `to_group_ids`, and its submission schema lacks the text's
`account_id`: those schemas are corrected here to the text."""
import json, sys, os, subprocess, tempfile, urllib.request, base64
from decimal import Decimal
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

url = sys.argv[1]; stage = sys.argv[2] if len(sys.argv) > 2 else ""
ROLES = {"public": None, "admin": "admin:admin-token", "alice": "alice:alice-token"}
SINGLE = {"judgement-types": "judgement-type", "languages": "language", "problems": "problem",
          "groups": "group", "organizations": "organization", "teams": "team", "accounts": "account",
          "submissions": "submission", "judgements": "judgement", "runs": "run",
          "clarifications": "clarification", "awards": "award"}
errors = 0


def loads(text):
    """JSON with its numbers as decimals: with floats, `multipleOf: 0.001` refuses 0.043."""
    return json.loads(text, parse_float=Decimal)

SPECS = os.environ.get("OJD_CCS_SPECS") or sys.exit("OJD_CCS_SPECS: a clone of icpc/ccs-specs")
TMP = tempfile.mkdtemp()
for version in ["2023-06", "2026-01"]:
    os.makedirs(f"{TMP}/{version}")
    tar = subprocess.run(["git", "-C", SPECS, "archive", version, "json-schema"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", f"{TMP}/{version}"], input=tar, check=True)


def load(version, strict):
    d = f"{TMP}/{version}/json-schema"
    res = []
    for f in os.listdir(d):
        text = open(os.path.join(d, f)).read()
        if strict:
            text = text.replace('"$comment": "ANCHOR_TO_INSERT_REQUIRE_STRICT_PROPERTIES"', '"additionalProperties": false')
        s = loads(text)
        if version == "2026-01" and f == "clarification.json":
            # The 2026-01 tag's schema still has 2023-06's `to_team_id`; its text replaced it.
            p = s["properties"]; p.pop("to_team_id")
            p["to_team_ids"] = {"oneOf": [{"type": "array", "items": {"$ref": "common.json#/identifier"}}, {"type": "null"}]}
            p["to_group_ids"] = p["to_team_ids"]
            s["not"]["properties"] = {"from_team_id": {"$ref": "common.json#/identifier"}, "to_team_ids": {"type": "array"}}
            s["not"]["required"] = ["from_team_id", "to_team_ids"]
        if version == "2026-01" and f == "submission.json":
            # The tag's schema lacks `account_id`, which its text gives submissions ("ID ?").
            s["properties"]["account_id"] = {"oneOf": [{"$ref": "common.json#/identifier"}, {"type": "null"}]}
        res.append((f, s))
    reg = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for _, s in res])
    return {f: s for f, s in res}, reg

def get(path, cred):
    req = urllib.request.Request(url + path)
    if cred:
        req.add_header("Authorization", "Basic " + base64.b64encode(cred.encode()).decode())
    try:
        with urllib.request.urlopen(req) as r:
            body = r.read().decode()
            return r.status, body
    except urllib.error.HTTPError as e:
        return e.code, ""

def check(version, strict, schemas, reg, name, value, where):
    global errors
    v = Draft202012Validator(schemas[name], registry=reg)
    for e in v.iter_errors(value):
        errors += 1
        print(f"{version}{' strict' if strict else ''} {where}: {e.message[:300]} at {list(e.absolute_path)}")

for version, base in [("2023-06", "/api"), ("2026-01", "/api/2026-01")]:
    for strict in [False, True]:
        schemas, reg = load(version, strict)
        for role, cred in ROLES.items():
            code, body = get(base + "/", cred); check(version, strict, schemas, reg, "api_information.json", loads(body), f"{role} api")
            code, body = get(base + "/contests", cred)
            for c in loads(body):
                cid = c["id"]
                check(version, strict, schemas, reg, "contests.json", loads(body), f"{role} contests")
                for ep, sch in [("", "contest.json"), ("/state", "state.json"), ("/scoreboard", "scoreboard.json"), ("/access", "access.json")]:
                    code, b = get(f"{base}/contests/{cid}{ep}", cred)
                    check(version, strict, schemas, reg, sch, loads(b), f"{role} {cid}{ep}")
                for coll, one in SINGLE.items():
                    code, b = get(f"{base}/contests/{cid}/{coll}", cred)
                    if code != 200:
                        continue
                    check(version, strict, schemas, reg, coll + ".json", loads(b), f"{role} {cid}/{coll}")
                code, b = get(f"{base}/contests/{cid}/event-feed?stream=false", cred)
                for i, line in enumerate(b.splitlines()):
                    if line.strip():
                        check(version, strict, schemas, reg, "event-feed.json", loads(line), f"{role} {cid} feed line {i}")
print(f"schema check {stage}: {errors} errors")
sys.exit(1 if errors else 0)
