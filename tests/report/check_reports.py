"""Reads lockstep's reports back with standard consumers: a JUnit XML file
with junitparser (Debian's python3-junitparser), a SARIF log with jsonschema
(Debian's python3-jsonschema) against the SARIF 2.1.0 schema the SARIF SDK
publishes (npm's @microsoft/sarif-multitool-linux). Prints what it read as
JSON, for the test to check; exits 1 on a schema violation."""
import json
import sys

import jsonschema
import junitparser


def junit(path):
    xml = junitparser.JUnitXml.fromfile(path)
    cases = []
    for suite in xml:
        for case in suite:
            results = [{"kind": type(r).__name__, "message": r.message, "type": r.type,
                        "text": r.text} for r in case.result]
            cases.append({"name": case.name, "time": case.time, "results": results})
    return {"tests": xml.tests, "failures": xml.failures, "errors": xml.errors, "cases": cases}


def sarif(path, schema_path):
    with open(schema_path) as f:
        schema = json.load(f)
    with open(path) as f:
        log = json.load(f)
    validator = jsonschema.Draft202012Validator(schema,
                                                format_checker=jsonschema.FormatChecker())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    return {"errors": errors}


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    out = junit(path) if kind == "junit" else sarif(path, sys.argv[3])
    print(json.dumps(out))
    sys.exit(1 if out.get("errors") and kind == "sarif" else 0)
